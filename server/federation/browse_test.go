package federation_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
)

// TestBrowseAndLink: RULINGS "Federation: instances and the platform":
// browse is public and answers the hub's active store, local and synced,
// without endpoints, credentials or passwords, paged; marketplace-link
// disable hides the instance's agents from browse and discover without
// deleting them, enable shows them again.
func TestBrowseAndLink(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	ctx := context.Background()
	local := listing(t, l.hub, l.admin, map[string]any{"name": "Local One", "accessPassword": "open sesame 123",
		"authMethod": "bearer", "authCredential": "tok-secret-value"})
	// Under the review policy the hub's own listing waits too; approve it.
	if err := l.hub.DB.StoreAgent.UpdateOneID(local).SetStatus(storeagent.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2"} {
		res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/"+id, map[string]any{"name": "Synced " + id})
		if res.Status != http.StatusCreated {
			t.Fatalf("sync: %d %s", res.Status, res.Body)
		}
	}
	// s1 approved, s2 still pending; B's agent approved.
	if err := l.hub.DB.StoreAgent.Update().Where(storeagent.Slug("synced-s1")).SetStatus(storeagent.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if res := l.b.Do(http.MethodPut, "/api/v2/federation/agents/b1", map[string]any{"name": "From B"}); res.Status != http.StatusCreated {
		t.Fatalf("sync B: %d %s", res.Status, res.Body)
	}
	if err := l.hub.DB.StoreAgent.Update().Where(storeagent.Slug("from-b")).SetStatus(storeagent.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	slugs := func(path string, key string) []string {
		t.Helper()
		res := l.hub.Anonymous().Do(http.MethodGet, path, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, res.Status, res.Body)
		}
		for _, secret := range []string{"endpointUrl", "93.184.215.14", "tok-secret-value", "open sesame", "accessPassword", "authCredential"} {
			if strings.Contains(string(res.Body), secret) {
				t.Fatalf("%s answers %s: %s", path, secret, res.Body)
			}
		}
		var out []string
		for _, a := range res.JSON(t)[key].([]any) {
			out = append(out, a.(map[string]any)["slug"].(string))
		}
		return out
	}
	got := slugs("/api/v2/federation/browse", "agents")
	if strings.Join(got, ",") != "from-b,synced-s1,local-one" {
		t.Fatalf("browse: %v", got)
	}
	// Paged: limit 2 of 3.
	res := l.hub.Anonymous().Do(http.MethodGet, "/api/v2/federation/browse?limit=2&offset=1", nil)
	page := res.JSON(t)
	pg := page["pagination"].(map[string]any)
	if len(page["agents"].([]any)) != 2 || pg["total"] != float64(3) || pg["hasMore"] != false ||
		page["agents"].([]any)[0].(map[string]any)["origin"] != "synced" {
		t.Fatalf("page: %s", res.Body)
	}
	if got := slugs("/api/v2/federation/browse?q=LOCAL", "agents"); strings.Join(got, ",") != "local-one" {
		t.Fatalf("q: %v", got)
	}
	// A credential changes nothing (even a bad one).
	if res := l.hub.WithKey("sbp_nonsense").Do(http.MethodGet, "/api/v2/federation/browse", nil); res.Status != http.StatusOK {
		t.Fatalf("browse with a credential: %d %s", res.Status, res.Body)
	}

	// A disables its link: its agents leave browse and discover, and stay.
	if res := l.a.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "disable"}); res.Status != http.StatusOK {
		t.Fatalf("disable: %d %s", res.Status, res.Body)
	}
	if got := slugs("/api/v2/federation/browse", "agents"); strings.Join(got, ",") != "from-b,local-one" {
		t.Fatalf("browse after disable: %v", got)
	}
	if got := slugs("/api/v2/network/discover?type=agents", "agents"); strings.Join(got, ",") != "from-b,local-one" {
		t.Fatalf("discover after disable: %v", got)
	}
	if n, _ := l.hub.DB.StoreAgent.Query().Where(storeagent.SlugHasPrefix("synced-")).Count(ctx); n != 2 {
		t.Fatalf("disable deleted agents: %d left", n)
	}
	l.a.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"})
	if got := slugs("/api/v2/federation/browse", "agents"); strings.Join(got, ",") != "from-b,synced-s1,local-one" {
		t.Fatalf("browse after enable: %v", got)
	}
}

// TestMarketplaceReviews: RULINGS "Federation: instances and the platform"
// (GET /api/admin/marketplace?status=pending_review): the listings and
// capabilities awaiting review, synced and local, oldest first, each with its
// origin; admin only; a status outside the vocabulary is 400.
func TestMarketplaceReviews(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	ctx := context.Background()
	if res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/r1", map[string]any{"name": "Review Me"}); res.Status != http.StatusCreated {
		t.Fatalf("sync: %d %s", res.Status, res.Body)
	}
	l.hub.Clock.Advance(1e9)
	results(t, l.b.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{
		map[string]any{"id": "c1", "name": "Cap B", "prompt": "p"}}}))
	l.hub.Clock.Advance(1e9)
	// A local listing under the review policy waits too.
	local := listing(t, l.hub, l.admin, map[string]any{"name": "Local Wait"})
	l.hub.Clock.Advance(1e9)
	if res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/r2", map[string]any{"name": "Approved"}); res.Status != http.StatusCreated {
		t.Fatalf("sync: %d %s", res.Status, res.Body)
	}
	if err := l.hub.DB.StoreAgent.Update().Where(storeagent.Slug("approved")).SetStatus(storeagent.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	res := l.admin.Session.Do(http.MethodGet, "/api/admin/marketplace?status=pending_review", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("reviews: %d %s", res.Status, res.Body)
	}
	items := res.JSON(t)["items"].([]any)
	if len(items) != 3 {
		t.Fatalf("items: %s", res.Body)
	}
	first, second, third := items[0].(map[string]any), items[1].(map[string]any), items[2].(map[string]any)
	if first["kind"] != "agent" || first["name"] != "Review Me" || first["origin"] != "synced" ||
		first["instanceName"] != "Spoke A" || first["instanceId"] != l.aID || first["remoteId"] != "r1" {
		t.Fatalf("first: %v", first)
	}
	if second["kind"] != "capability" || second["origin"] != "synced" || second["instanceName"] != "Spoke B" {
		t.Fatalf("second: %v", second)
	}
	if third["kind"] != "agent" || third["id"] != local || third["origin"] != "local" || third["instanceId"] != nil {
		t.Fatalf("third: %v", third)
	}
	// The default is pending_review; paging spans both kinds.
	res = l.admin.Session.Do(http.MethodGet, "/api/admin/marketplace?limit=1&offset=1", nil)
	if got := res.JSON(t); len(got["items"].([]any)) != 1 || got["items"].([]any)[0].(map[string]any)["kind"] != "capability" ||
		got["pagination"].(map[string]any)["total"] != float64(3) {
		t.Fatalf("paged: %s", res.Body)
	}
	if err := l.hub.DB.CapabilityPack.Update().Where(capabilitypack.Name("Cap B")).SetStatus(capabilitypack.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	res = l.admin.Session.Do(http.MethodGet, "/api/admin/marketplace?status=active", nil)
	if got := res.JSON(t)["items"].([]any); len(got) != 2 {
		t.Fatalf("active: %s", res.Body)
	}
	if res := l.admin.Session.Do(http.MethodGet, "/api/admin/marketplace?status=bogus", nil); res.Status != http.StatusBadRequest {
		t.Fatalf("bad status: %d %s", res.Status, res.Body)
	}
	other := l.hub.SignUp("member")
	if res := other.Session.Do(http.MethodGet, "/api/admin/marketplace", nil); res.Status != http.StatusForbidden {
		t.Fatalf("non-admin: %d %s", res.Status, res.Body)
	}
}

// TestNewRoutesAreAudited: RULINGS "Federation: instances and the platform"
// (Guard, Audit): each new platform route, over REST and over Connect, writes
// an inbound audit row.
func TestNewRoutesAreAudited(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	l.a.Do(http.MethodPut, "/api/v2/federation/agents/r1", map[string]any{"name": "Audited"})
	l.a.Do(http.MethodGet, "/api/v2/federation/agents/r1", nil)
	l.a.Do(http.MethodDelete, "/api/v2/federation/agents/r1", nil)
	l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{}})
	l.a.Do(http.MethodGet, "/api/v2/federation/capabilities", nil)
	l.hub.Anonymous().Do(http.MethodGet, "/api/v2/federation/browse", nil)
	client := switchboardv1connect.NewFederationPlatformServiceClient(l.hub.HTTP, l.hub.URL)
	if _, err := client.BrowseFederation(context.Background(), &switchboardv1.BrowseFederationRequest{}); err != nil {
		t.Fatalf("browse over Connect: %v", err)
	}
	rows := auditRows(t, l.admin, "direction=inbound")
	for _, endpoint := range []string{"/api/v2/federation/agents/r1", "/api/v2/federation/capabilities",
		"/api/v2/federation/browse", switchboardv1connect.FederationPlatformServiceBrowseFederationProcedure} {
		findRow(t, rows, "inbound", endpoint)
	}
	n := 0
	for _, r := range rows {
		if r["endpoint"] == "/api/v2/federation/agents/r1" {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("rows of /api/v2/federation/agents/r1: %d, want 3 (PUT, GET, DELETE)", n)
	}
}
