package throughtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/egress/egresstest"
)

// RULINGS "Input at the boundary" and "Security details": a listing's
// endpointUrl and healthCheckUrl are refused at save, on create and on
// update, when their host spells a private address in any form a resolver
// accepts (the Unicode UTS-46 maps to one included), or is a host UTS-46
// cannot map; nothing is written.
func TestListingURLsRefuseEveryPrivateSpelling(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	id := f.create(t, f.api, map[string]any{"name": "Keep", "slug": "keep"})["id"].(string)
	before, snapshot := f.counts(t), f.get(t, f.api, id)
	for _, field := range []string{"endpointUrl", "healthCheckUrl"} {
		for _, host := range append(slices.Clone(egresstest.PrivateHosts), egresstest.InvalidHosts...) {
			url := "http://" + host + "/agent"
			t.Run(field+"/"+host, func(t *testing.T) {
				create := map[string]any{"name": "Fresh agent", "endpointUrl": publicURL, field: url}
				res := f.api.Do(http.MethodPost, "/api/marketplace", create)
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) {
					t.Errorf("create: %d %s", res.Status, res.Body)
				}
				res = f.api.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{field: url})
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) {
					t.Errorf("update: %d %s", res.Status, res.Body)
				}
			})
		}
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refusals wrote: %+v → %+v", before, after)
	}
	if got := f.get(t, f.api, id); !equalJSON(got, snapshot) {
		t.Fatalf("listing changed:\n%v\n%v", snapshot, got)
	}
}
