package input

import (
	"strings"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// A REST route's path parameters are checked before its body is read: the
// other fields' rules (here a rating, 1 to 5) are the body's, not theirs,
// while the named field's are.
func TestCheckOnlyLooksAtTheNamedFields(t *testing.T) {
	path := &switchboardv1.RateRelayRequest{RelayId: "r1"}
	if err := Check(path); err == nil {
		t.Fatal("Check: a rating of 0 passed (the test needs a message with a rule beside the named field)")
	}
	if err := CheckOnly(path, []string{"relay_id"}); err != nil {
		t.Fatalf("CheckOnly of the named field: %v", err)
	}
	long := &switchboardv1.RateRelayRequest{RelayId: strings.Repeat("x", 101)}
	if err := CheckOnly(long, []string{"relay_id"}); err == nil || !strings.Contains(err.Error(), "relayId is longer than 100") {
		t.Fatalf("CheckOnly of an over-long field: %v", err)
	}
	if err := CheckOnly(&switchboardv1.RateRelayRequest{RelayId: "a\x00b"}, []string{"relay_id"}); err == nil {
		t.Fatal("CheckOnly passed a NUL")
	}
}
