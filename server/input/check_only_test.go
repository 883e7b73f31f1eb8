package input

import (
	"strings"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// A REST route's path parameters are checked before its body is read: the
// body's own rules (a review's scores, 1 to 5) are not theirs, while the
// path field's limits are.
func TestCheckOnlyLooksAtTheNamedFields(t *testing.T) {
	path := &switchboardv1.ReviewContractRequest{Id: "c1"}
	if err := Check(path); err == nil {
		t.Fatal("Check: a review without scores passed (the test needs a message with body rules)")
	}
	if err := CheckOnly(path, []string{"id"}); err != nil {
		t.Fatalf("CheckOnly of the path's id: %v", err)
	}
	long := &switchboardv1.ReviewContractRequest{Id: strings.Repeat("x", 65)}
	if err := CheckOnly(long, []string{"id"}); err == nil || !strings.Contains(err.Error(), "id is longer than 64") {
		t.Fatalf("CheckOnly of an over-long id: %v", err)
	}
	if err := CheckOnly(&switchboardv1.ReviewContractRequest{Id: "a\x00b"}, []string{"id"}); err == nil {
		t.Fatal("CheckOnly passed a NUL")
	}
}
