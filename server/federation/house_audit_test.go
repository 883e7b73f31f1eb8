package federation_test

import (
	"net/http"
	"net/url"
	"testing"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestAuditPageAndBlocked: RULINGS "Pages" and "Details for the house
// issue": the audit takes page (1-based; it wins over offset) and blocked
// (true only blocked rows, false only the others), on REST and Connect.
func TestAuditPageAndBlocked(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	admin := s.SignUp("owner")
	for i := range 7 {
		s.DB.FederationAuditLog.Create().SetDirection("inbound").SetEndpoint("/api/v2/federation/register").
			SetStatus("blocked").SetBlocked(i < 3).SaveX(t.Context())
	}
	list := func(query string) (ids []string, pg map[string]any) {
		t.Helper()
		res := admin.Session.Do(http.MethodGet, "/api/admin/federation-audit?"+query, nil)
		servertest.WantStatus(t, res, http.StatusOK)
		body := res.JSON(t)
		for _, e := range body["entries"].([]any) {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
		return ids, body["pagination"].(map[string]any)
	}
	all, _ := list("limit=100")
	if len(all) != 7 {
		t.Fatalf("all rows: %d", len(all))
	}
	second, pg := list("limit=2&page=2&offset=5")
	if len(second) != 2 || second[0] != all[2] || second[1] != all[3] || pg["offset"] != float64(2) {
		t.Fatalf("page 2 of 2 (offset given too): %v %v, want %v", second, pg, all[2:4])
	}
	if last, _ := list("limit=3&page=3"); len(last) != 1 || last[0] != all[6] {
		t.Fatalf("page 3 of 3: %v", last)
	}
	if blocked, _ := list("blocked=true"); len(blocked) != 3 {
		t.Fatalf("blocked=true: %d rows", len(blocked))
	}
	if clean, _ := list("blocked=false"); len(clean) != 4 {
		t.Fatalf("blocked=false: %d rows", len(clean))
	}
	servertest.WantError(t, admin.Session.Do(http.MethodGet, "/api/admin/federation-audit?page=-1", nil), http.StatusBadRequest)

	c := switchboardv1connect.NewFederationAuditServiceClient(&http.Client{Jar: admin.Jar, Transport: s.HTTP.Transport}, s.URL)
	out, err := c.ListFederationAudit(t.Context(), &switchboardv1.ListFederationAuditRequest{Limit: 2, Page: 2, Blocked: proto.Bool(false)})
	if err != nil || len(out.GetEntries()) != 2 || out.GetEntries()[0].GetBlocked() || out.GetPagination().GetOffset() != 2 {
		t.Fatalf("Connect: %v %v", out, err)
	}
}

// TestGuardAndAuditCoverDiscoverAndPromptGroups: RULINGS "Federation"
// (Guard, Audit: every inbound federation request) and "Details for the
// house issue" (the guard reads query values too): discover and
// prompt-groups, on REST and Connect, pass the guard and write one audit
// row each; a script in a query value is blocked (403) before the handler.
func TestGuardAndAuditCoverDiscoverAndPromptGroups(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithRole("hub"))
	admin := s.SignUp("owner")
	anon := s.Anonymous()
	servertest.WantStatus(t, anon.Do(http.MethodGet, "/api/v2/network/discover", nil), http.StatusOK)
	res := anon.Do(http.MethodGet, "/api/v2/network/discover?q="+url.QueryEscape("<script>alert(1)</script>"), nil)
	servertest.WantErrorContaining(t, res, http.StatusForbidden, "script")
	servertest.WantError(t, anon.Do(http.MethodGet, "/api/v2/prompt-groups", nil), http.StatusUnauthorized)
	res = anon.Do(http.MethodGet, "/api/v2/prompt-groups?note="+url.QueryEscape("<script>alert(1)</script>"), nil)
	servertest.WantError(t, res, http.StatusForbidden)
	c := switchboardv1connect.NewFederationPlatformServiceClient(s.HTTP, s.URL)
	if _, err := c.DiscoverNetwork(t.Context(), &switchboardv1.DiscoverNetworkRequest{}); err != nil {
		t.Fatalf("Connect discover: %v", err)
	}

	count := func(endpoint, status string) int {
		t.Helper()
		n := 0
		for _, r := range auditRows(t, admin, "direction=inbound&endpoint="+url.QueryEscape(endpoint)) {
			if r["status"] == status {
				n++
			}
		}
		return n
	}
	servertest.WaitFor(t, "the audit rows", func() bool {
		return count("/api/v2/network/discover", "ok") == 1 && count("/api/v2/network/discover", "blocked") == 1 &&
			count("/api/v2/prompt-groups", "ok") == 1 && count("/api/v2/prompt-groups", "blocked") == 1 &&
			count(switchboardv1connect.FederationPlatformServiceDiscoverNetworkProcedure, "ok") == 1
	})
}
