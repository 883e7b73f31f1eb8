package throughtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/egress/egresstest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary" and "Security details": endpointUrl,
// healthCheckUrl and instanceUrl are refused at registration and on PATCH
// when their host spells a private address in any form a resolver accepts
// (the Unicode UTS-46 maps to one included), or is a host UTS-46 cannot map,
// before any outbound call; nothing is written.
func TestRegistrationURLsRefuseEveryPrivateSpelling(t *testing.T) {
	t.Parallel()
	s := servertest.New(t) // private endpoints not allowed
	f := &devFixture{s: s, admin: s.SignUp("owner"), dev: s.SignUp("dev")}
	public := "https://93.184.215.14/agent"
	// A listing of dev's to PATCH, made through the store (no probe, no call).
	store := s.WithKey(f.dev.NewKey("store", "store"))
	if res := store.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Kept", "slug": "kept", "endpointUrl": public}); res.Status != http.StatusCreated {
		t.Fatalf("seed listing: %d %s", res.Status, res.Body)
	}
	api := s.WithKey(f.developerKey(t, f.dev))
	before := f.counts(t)
	for _, field := range []string{"endpointUrl", "healthCheckUrl", "instanceUrl"} {
		for _, host := range append(slices.Clone(egresstest.PrivateHosts), egresstest.InvalidHosts...) {
			url := "http://" + host + "/agent"
			t.Run(field+"/"+host, func(t *testing.T) {
				body := agentBody("fresh", public)
				body[field] = url
				res := api.Do(http.MethodPost, "/api/developer/agents/register", body)
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) {
					t.Errorf("register: %d %s", res.Status, res.Body)
				}
				res = api.Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "kept", field: url})
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) {
					t.Errorf("patch: %d %s", res.Status, res.Body)
				}
			})
		}
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refusals wrote: %+v → %+v", before, after)
	}
	row, err := s.DB.StoreAgent.Query().Only(t.Context())
	if err != nil || row.EndpointURL == nil || *row.EndpointURL != public || row.HealthCheckURL != nil || row.SourceInstanceURL != nil {
		t.Fatalf("the kept listing changed: %+v, %v", row, err)
	}
}
