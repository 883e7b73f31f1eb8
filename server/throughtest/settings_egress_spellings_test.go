package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/egress/egresstest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary" and "Security details": a push-webhook
// target whose host spells a private address in any form a resolver accepts
// (decimal, hex, octal, short, IPv6, IPv4-mapped, NAT64, and the Unicode that
// UTS-46 maps to those) is refused when saved, and nothing is stored; a host
// UTS-46 cannot map is 400 naming the entry.
func TestServiceKeysRefuseEveryPrivateSpelling(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("agent"))
	for _, host := range egresstest.PrivateHosts {
		t.Run(host, func(t *testing.T) {
			body := `{"serviceKeys":[{"service":"webhook_push","url":"http://` + host + `/hook","secret":"` + secretA + `"}]}`
			res := api.Do(http.MethodPatch, "/api/v2/settings", body)
			if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "not allowed") {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
	}
	for _, host := range egresstest.InvalidHosts {
		t.Run("invalid/"+host, func(t *testing.T) {
			body := `{"serviceKeys":[{"service":"webhook_push","url":"http://` + host + `/hook","secret":"` + secretA + `"}]}`
			res := api.Do(http.MethodPatch, "/api/v2/settings", body)
			if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "serviceKeys[0]") {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
	}
	if got := storedKeys(t, s, ann.ID); len(got) != 0 {
		t.Fatalf("stored = %v", got)
	}
}
