package throughtest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// The developer portal (issue 31 point 8; RULINGS "Onboarding, sprite, admin
// views, the developer portal"): the session routes under /api/developer/.

// registerAgent registers a conforming agent with a developer key of acct
// and answers its id.
func (f *devFixture) registerAgent(t *testing.T, acct *servertest.Account, slug string, a *fakeAgent) string {
	t.Helper()
	out := f.register(t, f.developerKey(t, acct), agentBody(slug, a.URL), http.StatusCreated)
	id, _ := out["agent"].(map[string]any)["id"].(string)
	if id == "" {
		t.Fatalf("register %s: %v", slug, out)
	}
	return id
}

// TestPortalTeamManagesAgents: a member of a developer's team (added by
// email) lists, reads, changes and tests the owner's agents, through the
// portal and through the developer-key route; only the owner deletes; a
// stranger gets 404 on every agent route, and so does a removed member.
func TestPortalTeamManagesAgents(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	mate, stranger := f.s.SignUp("mate"), f.s.SignUp("stranger")
	agent := newFakeAgent(t, true)
	id := f.registerAgent(t, f.dev, "team-agent", agent)
	base := "/api/developer/agents/" + id

	routes := func(c *servertest.Caller) []*servertest.Response {
		return []*servertest.Response{
			c.Do(http.MethodGet, base, nil),
			c.Do(http.MethodPatch, base, map[string]any{"description": "Changed by a stranger"}),
			c.Do(http.MethodDelete, base, nil),
			c.Do(http.MethodGet, base+"/test-runs", nil),
			c.Do(http.MethodPost, base+"/test-runs", map[string]any{}),
			c.Do(http.MethodGet, base+"/executions", nil),
			c.Do(http.MethodGet, base+"/earnings", nil),
		}
	}
	for _, res := range append(routes(stranger.Session), routes(mate.Session)...) {
		servertest.WantError(t, res, http.StatusNotFound)
	}
	if n := len(f.dev.Session.Do(http.MethodGet, "/api/developer/agents", nil).JSON(t)["agents"].([]any)); n != 1 {
		t.Fatalf("the owner lists %d agents, want 1", n)
	}

	// Added by email (case and spaces do not matter).
	res := f.dev.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "  MATE@example.com "})
	servertest.WantStatus(t, res, http.StatusCreated)
	if m := res.JSON(t)["member"].(map[string]any); m["userId"] != mate.ID || m["username"] != "mate" {
		t.Fatalf("added member: %v", m)
	}
	servertest.WantError(t, f.dev.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "mate@example.com"}), http.StatusConflict)
	servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "nobody@example.com"}), http.StatusNotFound, "nobody@example.com")
	servertest.WantError(t, f.dev.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "dev@example.com"}), http.StatusBadRequest)
	team := mate.Session.Do(http.MethodGet, "/api/developer/team", nil).JSON(t)
	if of := team["memberOf"].([]any); len(of) != 1 || of[0].(map[string]any)["username"] != "dev" {
		t.Fatalf("mate's teams: %v", team)
	}

	// The member manages the owner's agent.
	list := mate.Session.Do(http.MethodGet, "/api/developer/agents", nil).JSON(t)["agents"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["access"] != "member" || list[0].(map[string]any)["ownerUsername"] != "dev" {
		t.Fatalf("mate's agents: %v", list)
	}
	res = mate.Session.Do(http.MethodPatch, base, map[string]any{"description": "Tuned by mate"})
	servertest.WantStatus(t, res, http.StatusOK)
	if a := res.JSON(t)["agent"].(map[string]any)["agent"].(map[string]any); a["description"] != "Tuned by mate" {
		t.Fatalf("patched: %v", a)
	}
	servertest.WantErrorContaining(t, mate.Session.Do(http.MethodPatch, base, map[string]any{"slug": "renamed"}), http.StatusBadRequest, "slug")
	f.s.Clock.Advance(time.Second)
	servertest.WantStatus(t, mate.Session.Do(http.MethodPost, base+"/test-runs", map[string]any{}), http.StatusCreated)
	f.s.Clock.Advance(time.Second)
	// Its own developer key reaches the owner's agent by slug too.
	mateKey := f.developerKey(t, mate)
	res = f.s.WithKey(mateKey).Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "team-agent", "description": "By key"})
	servertest.WantStatus(t, res, http.StatusOK)
	res = f.s.WithKey(mateKey).Do(http.MethodPost, base+"/test-run", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	runs := f.dev.Session.Do(http.MethodGet, base+"/test-runs?limit=2", nil).JSON(t)
	if got := runs["runs"].([]any); len(got) != 2 || runs["pagination"].(map[string]any)["total"] != float64(3) ||
		got[0].(map[string]any)["trigger"] != "test_run" {
		t.Fatalf("test runs, newest first: %v", runs)
	}
	// Only the owner deletes.
	servertest.WantError(t, mate.Session.Do(http.MethodDelete, base, nil), http.StatusForbidden)
	// The stranger's key route is 404 as well.
	servertest.WantError(t, f.s.WithKey(f.developerKey(t, stranger)).Do(http.MethodPatch, "/api/developer/agents/register",
		map[string]any{"slug": "team-agent", "description": "x"}), http.StatusNotFound)

	// Removed, the member manages nothing of the owner's.
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/team?userId="+mate.ID, nil), http.StatusOK)
	servertest.WantError(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/team?userId="+mate.ID, nil), http.StatusNotFound)
	servertest.WantError(t, mate.Session.Do(http.MethodGet, base, nil), http.StatusNotFound)

	// The owner deletes it: gone, its runs with it.
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodDelete, base, nil), http.StatusOK)
	servertest.WantError(t, f.dev.Session.Do(http.MethodGet, base, nil), http.StatusNotFound)
	if n, _ := f.s.DB.ShipGateRun.Query().Count(context.Background()); n != 0 {
		t.Fatalf("%d ship-gate runs left of a deleted agent", n)
	}
}

// portalCounts are the rows a developer account holds.
type portalCounts struct{ agents, keys, tokens, team, templates, executions, ledger int }

func (f *devFixture) portalCounts(t *testing.T) portalCounts {
	t.Helper()
	ctx := context.Background()
	var c portalCounts
	var err error
	for _, q := range []struct {
		dst *int
		n   func() (int, error)
	}{
		{&c.agents, func() (int, error) { return f.s.DB.StoreAgent.Query().Count(ctx) }},
		{&c.keys, func() (int, error) { return f.s.DB.DeveloperKey.Query().Count(ctx) }},
		{&c.tokens, func() (int, error) { return f.s.DB.ConnectToken.Query().Count(ctx) }},
		{&c.team, func() (int, error) { return f.s.DB.DeveloperTeamMember.Query().Count(ctx) }},
		{&c.templates, func() (int, error) { return f.s.DB.WidgetTemplate.Query().Count(ctx) }},
		{&c.executions, func() (int, error) { return f.s.DB.Execution.Query().Count(ctx) }},
		{&c.ledger, func() (int, error) { return f.s.DB.LedgerEntry.Query().Count(ctx) }},
	} {
		if *q.dst, err = q.n(); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// paidExecution seeds a finished execution of agentID for buyer, its payment
// captured in the ledger as the engine writes it: gross split into the
// developer's payout and the platform's fee.
func (f *devFixture) paidExecution(t *testing.T, buyer, owner, agentID string, gross, fee money.Cents, currency string) *ent.Execution {
	t.Helper()
	ctx := context.Background()
	ex, err := f.s.DB.Execution.Create().SetUserID(buyer).SetStoreAgentID(agentID).SetStatus(execution.StatusCompleted).
		SetInput("task").SetPaymentHoldStatus(execution.PaymentHoldStatusCaptured).SetCurrency(currency).
		SetGross(gross).SetPlatformFee(fee).SetDeveloperPayout(gross - fee).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The next row is later: the lists order by time.
	defer f.s.Clock.Advance(time.Second)
	hold := "hold-" + ex.ID
	err = f.s.DB.LedgerEntry.CreateBulk(
		f.s.DB.LedgerEntry.Create().SetHoldID(hold).SetExecutionID(ex.ID).SetKind("authorize").SetAccount(buyer).SetAmount(-gross).SetCurrency(currency),
		f.s.DB.LedgerEntry.Create().SetHoldID(hold).SetExecutionID(ex.ID).SetKind(payments.KindCaptureDeveloper).SetAccount(owner).SetAmount(gross-fee).SetCurrency(currency),
		f.s.DB.LedgerEntry.Create().SetHoldID(hold).SetExecutionID(ex.ID).SetKind(payments.KindCapturePlatform).SetAccount(payments.PlatformAccount).SetAmount(fee).SetCurrency(currency),
	).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestPortalDeleteAccount: a wrong confirmation is 400 and writes nothing,
// as is an agent with work in flight (409); the right one removes the
// developer's agents, keys, tokens, team rows and templates, keeps the
// finished executions and their ledger lines (unlinked), and leaves the
// sign-in account and other developers' rows alone.
func TestPortalDeleteAccount(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	ctx := context.Background()
	mate := f.s.SignUp("mate")
	agent := newFakeAgent(t, true)
	id := f.registerAgent(t, f.dev, "closing", agent)
	f.registerAgent(t, mate, "mates-own", agent)
	f.connectToken(t, f.dev, "agent")
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "mate@example.com"}), http.StatusCreated)
	servertest.WantStatus(t, mate.Session.Do(http.MethodPost, "/api/developer/team", map[string]any{"email": "dev@example.com"}), http.StatusCreated)
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodPost, "/api/developer/widget-templates", map[string]any{
		"name": "Summary", "widget": map[string]any{"type": "info_card", "title": "Summary", "items": []any{map[string]any{"id": "1", "label": "Finding"}}},
	}), http.StatusCreated)
	f.paidExecution(t, f.admin.ID, f.dev.ID, id, 1000, 100, "USD")
	before := f.portalCounts(t)

	for _, body := range []map[string]any{{"confirm": "Dev"}, {"confirm": "mate"}, {}} {
		servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/account", body), http.StatusBadRequest, "confirm")
	}
	if after := f.portalCounts(t); after != before {
		t.Fatalf("a refused deletion wrote: %+v → %+v", before, after)
	}
	// Work in flight refuses the whole deletion.
	running, err := f.s.DB.Execution.Create().SetUserID(f.admin.ID).SetStoreAgentID(id).SetStatus(execution.StatusRunning).SetInput("t").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	servertest.WantError(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/account", map[string]any{"confirm": "dev"}), http.StatusConflict)
	if err := f.s.DB.Execution.DeleteOneID(running.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if after := f.portalCounts(t); after != before {
		t.Fatalf("a deletion refused for work in flight wrote: %+v → %+v", before, after)
	}

	res := f.dev.Session.Do(http.MethodDelete, "/api/developer/account", map[string]any{"confirm": "dev"})
	servertest.WantStatus(t, res, http.StatusOK)
	del := res.JSON(t)["deleted"].(map[string]any)
	want := map[string]float64{"agents": 1, "developerKeys": 1, "connectTokens": 1, "teamMembers": 2, "widgetTemplates": 1, "executionsUnlinked": 1}
	for k, v := range want {
		if del[k] != v {
			t.Errorf("deleted.%s = %v, want %v (%v)", k, del[k], v, del)
		}
	}
	after := f.portalCounts(t)
	if after.agents != before.agents-1 || after.keys != before.keys-1 || after.tokens != before.tokens-1 || after.team != 0 ||
		after.templates != 0 || after.executions != before.executions || after.ledger != before.ledger {
		t.Fatalf("after deletion: %+v (before %+v)", after, before)
	}
	ex, err := f.s.DB.Execution.Query().Only(ctx)
	if err != nil || ex.AgentID != nil || ex.AgentOwnerID == nil || *ex.AgentOwnerID != f.dev.ID {
		t.Fatalf("the finished execution must stay, unlinked: %+v %v", ex, err)
	}
	// The sign-in account stays; its billing still reads the kept ledger.
	acct := f.dev.Session.Do(http.MethodGet, "/api/developer/account", nil)
	servertest.WantStatus(t, acct, http.StatusOK)
	if b := f.dev.Session.Do(http.MethodGet, "/api/developer/billing", nil).JSON(t); b["payoutsCents"] != float64(900) {
		t.Fatalf("billing after closing: %v", b)
	}
	// Nothing of mate's went but the team rows.
	if n := len(mate.Session.Do(http.MethodGet, "/api/developer/agents", nil).JSON(t)["agents"].([]any)); n != 1 {
		t.Fatalf("mate's agents after dev closed: %d", n)
	}
}

// TestPortalDeleteAccountKeepsInstanceAgents: an admin closing their
// developer side removes the listings they registered as a developer, not
// the instance's own agents they saved under Admin (those belong to the
// instance; the next admin keeps managing them).
func TestPortalDeleteAccountKeepsInstanceAgents(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	own := f.registerAgent(t, f.admin, "admins-own", newFakeAgent(t, true))
	res := f.admin.Session.Do(http.MethodPost, "/api/admin/my-agents", map[string]any{"name": "Briefing writer", "slug": "briefing"})
	servertest.WantStatus(t, res, http.StatusOK)
	instanceAgent := res.JSON(t)["agent"].(map[string]any)["id"].(string)

	del := f.admin.Session.Do(http.MethodDelete, "/api/developer/account", map[string]any{"confirm": "owner"})
	servertest.WantStatus(t, del, http.StatusOK)
	if n := del.JSON(t)["deleted"].(map[string]any)["agents"]; n != float64(1) {
		t.Fatalf("deleted.agents = %v, want 1 (the developer listing alone)", n)
	}
	ctx := context.Background()
	if _, err := f.s.DB.StoreAgent.Get(ctx, own); err == nil {
		t.Fatal("the admin's developer listing survived the deletion")
	}
	kept, err := f.s.DB.StoreAgent.Get(ctx, instanceAgent)
	if err != nil || !kept.InstanceOwned {
		t.Fatalf("the instance's agent must stay: %+v %v", kept, err)
	}
	servertest.WantStatus(t, f.admin.Session.Do(http.MethodGet, "/api/marketplace/"+instanceAgent, nil), http.StatusOK)
}

// TestPortalAccount: the account as the portal shows it, its name and
// contact email changed; a taken or malformed email refused.
func TestPortalAccount(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := f.dev.Session.Do(http.MethodGet, "/api/developer/account", nil).JSON(t)["account"].(map[string]any)
	if a["id"] != f.dev.ID || a["username"] != "dev" || a["contactEmail"] != "dev@example.com" || a["createdAt"] == nil {
		t.Fatalf("account: %v", a)
	}
	res := f.dev.Session.Do(http.MethodPatch, "/api/developer/account", map[string]any{"name": " Devon ", "contactEmail": "Devon@Example.COM"})
	servertest.WantStatus(t, res, http.StatusOK)
	if a := res.JSON(t)["account"].(map[string]any); a["name"] != "Devon" || a["contactEmail"] != "devon@example.com" {
		t.Fatalf("patched account: %v", a)
	}
	servertest.WantError(t, f.dev.Session.Do(http.MethodPatch, "/api/developer/account", map[string]any{"contactEmail": "owner@example.com"}), http.StatusConflict)
	servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodPatch, "/api/developer/account", map[string]any{"contactEmail": "not an address"}), http.StatusBadRequest, "contactEmail")
	servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodPatch, "/api/developer/account", map[string]any{"name": "  "}), http.StatusBadRequest, "name")
	u, err := f.s.DB.User.Get(context.Background(), f.dev.ID)
	if err != nil || u.Email != "devon@example.com" || u.Name != "Devon" {
		t.Fatalf("stored account: %+v %v", u, err)
	}
}

// TestPortalKeysAndTokens: a revoked developer key is refused (403) and
// listed inactive; connect tokens are listed without their values, an
// unused one revoked stops registering (401), a used one is 409, another
// account's token 404.
func TestPortalKeysAndTokens(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	agent := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	keyID := f.dev.Session.Do(http.MethodGet, "/api/developer/keys", nil).JSON(t)["keys"].([]any)[0].(map[string]any)["id"].(string)
	servertest.WantError(t, f.admin.Session.Do(http.MethodDelete, "/api/developer/keys/"+keyID, nil), http.StatusNotFound)
	res := f.dev.Session.Do(http.MethodDelete, "/api/developer/keys/"+keyID, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if k := res.JSON(t)["key"].(map[string]any); k["active"] != false {
		t.Fatalf("revoked key: %v", k)
	}
	f.register(t, key, agentBody("by-revoked", agent.URL), http.StatusForbidden)

	spare := f.connectToken(t, f.dev, "agent")
	used := f.connectToken(t, f.dev, "any")
	f.register(t, used, agentBody("by-token", agent.URL), http.StatusCreated)
	res = f.dev.Session.Do(http.MethodGet, "/api/developer/connect-tokens", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if strings.Contains(string(res.Body), spare) || strings.Contains(string(res.Body), used) {
		t.Fatal("a listed token carries its value")
	}
	tokens := res.JSON(t)["tokens"].([]any)
	if len(tokens) != 2 {
		t.Fatalf("tokens: %v", tokens)
	}
	var spareID, usedID string
	for _, raw := range tokens {
		tok := raw.(map[string]any)
		switch {
		case strings.HasPrefix(spare, tok["prefix"].(string)) && tok["active"] == true && tok["usedAt"] == nil:
			spareID = tok["id"].(string)
		case strings.HasPrefix(used, tok["prefix"].(string)) && tok["active"] == false && tok["agentId"] != nil:
			usedID = tok["id"].(string)
		}
	}
	if spareID == "" || usedID == "" {
		t.Fatalf("tokens as listed: %v", tokens)
	}
	servertest.WantError(t, f.admin.Session.Do(http.MethodDelete, "/api/developer/connect-tokens/"+spareID, nil), http.StatusNotFound)
	servertest.WantError(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/connect-tokens/"+usedID, nil), http.StatusConflict)
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/connect-tokens/"+spareID, nil), http.StatusOK)
	f.register(t, spare, agentBody("by-spare", agent.URL), http.StatusUnauthorized)
	servertest.WantError(t, f.dev.Session.Do(http.MethodDelete, "/api/developer/connect-tokens/"+spareID, nil), http.StatusNotFound)
}

// TestPortalWidgetTemplates: stored widget examples checked against their
// type, the refusal naming the field and writing nothing; another account's
// template is 404.
func TestPortalWidgetTemplates(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	item := func(id, label string, actions ...string) map[string]any {
		return map[string]any{"id": id, "label": label, "actions": actions}
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		naming string
	}{
		{"no widget", map[string]any{"name": "x"}, "widget"},
		{"no name", map[string]any{"widget": map[string]any{"type": "info_card", "title": "t", "items": []any{item("1", "a")}}}, "name"},
		{"unknown type", map[string]any{"name": "x", "widget": map[string]any{"type": "banner", "title": "t", "items": []any{item("1", "a")}}}, "type"},
		{"no type", map[string]any{"name": "x", "widget": map[string]any{"title": "t", "items": []any{item("1", "a")}}}, "widget.type"},
		{"no title", map[string]any{"name": "x", "widget": map[string]any{"type": "info_card", "items": []any{item("1", "a")}}}, "widget.title"},
		{"no items", map[string]any{"name": "x", "widget": map[string]any{"type": "info_card", "title": "t"}}, "widget.items"},
		{"item without id", map[string]any{"name": "x", "widget": map[string]any{"type": "info_card", "title": "t", "items": []any{item("", "a")}}}, "widget.items[0].id"},
		{"repeated id", map[string]any{"name": "x", "widget": map[string]any{"type": "info_card", "title": "t", "items": []any{item("1", "a"), item("1", "b")}}}, "widget.items[1].id"},
		{"one choice", map[string]any{"name": "x", "widget": map[string]any{"type": "choice_card", "title": "t", "items": []any{item("a", "A", "select")}}}, "widget.items"},
		{"list without actions", map[string]any{"name": "x", "widget": map[string]any{"type": "action_list", "title": "t", "items": []any{item("1", "a")}}}, "widget.items[0].actions"},
		{"prompt without decline", map[string]any{"name": "x", "widget": map[string]any{"type": "payment_prompt", "title": "t", "items": []any{item("q", "$5", "approve")}}}, "widget.items[0].actions"},
		{"unknown layout", map[string]any{"name": "x", "widget": map[string]any{"type": "info_card", "title": "t", "layout": "diagonal", "items": []any{item("1", "a")}}}, "layout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodPost, "/api/developer/widget-templates", tc.body), http.StatusBadRequest, tc.naming)
		})
	}
	if n, _ := f.s.DB.WidgetTemplate.Query().Count(context.Background()); n != 0 {
		t.Fatalf("refused templates wrote %d rows", n)
	}

	choice := map[string]any{"type": "choice_card", "title": "Pick one", "layout": "grid", "items": []any{item("a", "A", "select"), item("b", "B", "select")}}
	res := f.dev.Session.Do(http.MethodPost, "/api/developer/widget-templates", map[string]any{"name": "Variations", "widget": choice})
	servertest.WantStatus(t, res, http.StatusCreated)
	tpl := res.JSON(t)["template"].(map[string]any)
	id := tpl["id"].(string)
	if w := tpl["widget"].(map[string]any); tpl["name"] != "Variations" || w["type"] != "choice_card" || len(w["items"].([]any)) != 2 || w["layout"] != "grid" {
		t.Fatalf("created: %v", tpl)
	}
	path := "/api/developer/widget-templates/" + id
	for _, res := range []*servertest.Response{
		f.admin.Session.Do(http.MethodGet, path, nil),
		f.admin.Session.Do(http.MethodPut, path, map[string]any{"name": "Mine", "widget": choice}),
		f.admin.Session.Do(http.MethodDelete, path, nil),
	} {
		servertest.WantError(t, res, http.StatusNotFound)
	}
	prompt := map[string]any{"type": "payment_prompt", "title": "Approve $5.00", "items": []any{item("quote", "$5.00", "approve", "decline")}}
	servertest.WantErrorContaining(t, f.dev.Session.Do(http.MethodPut, path, map[string]any{"name": "Price"}), http.StatusBadRequest, "widget")
	res = f.dev.Session.Do(http.MethodPut, path, map[string]any{"name": "Price", "widget": prompt})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := f.dev.Session.Do(http.MethodGet, path, nil).JSON(t)["template"].(map[string]any); got["name"] != "Price" ||
		got["widget"].(map[string]any)["type"] != "payment_prompt" {
		t.Fatalf("replaced: %v", got)
	}
	if n := len(f.dev.Session.Do(http.MethodGet, "/api/developer/widget-templates", nil).JSON(t)["templates"].([]any)); n != 1 {
		t.Fatalf("listed %d templates", n)
	}
	if n := len(f.admin.Session.Do(http.MethodGet, "/api/developer/widget-templates", nil).JSON(t)["templates"].([]any)); n != 0 {
		t.Fatalf("another account lists %d templates", n)
	}
	servertest.WantStatus(t, f.dev.Session.Do(http.MethodDelete, path, nil), http.StatusOK)
	servertest.WantError(t, f.dev.Session.Do(http.MethodGet, path, nil), http.StatusNotFound)
}

// TestPortalBilling: the sums and the ledger lines are the seeded ledger's
// captures of the developer's agents, per currency; another developer's
// payments and the payers' lines do not count. An agent's earnings and
// executions read the same rows.
func TestPortalBilling(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	other := f.s.SignUp("other")
	agent := newFakeAgent(t, true)
	mine := f.registerAgent(t, f.dev, "earner", agent)
	theirs := f.registerAgent(t, other, "their-earner", agent)
	f.paidExecution(t, f.admin.ID, f.dev.ID, mine, 1000, 100, "USD")
	last := f.paidExecution(t, other.ID, f.dev.ID, mine, 2550, 255, "USD")
	f.paidExecution(t, f.admin.ID, f.dev.ID, mine, 700, 70, "EUR")
	f.paidExecution(t, f.admin.ID, other.ID, theirs, 99900, 9990, "USD")
	if _, err := f.s.DB.Execution.Create().SetUserID(f.admin.ID).SetStoreAgentID(mine).SetStatus(execution.StatusCompleted).
		SetInput("held").SetPaymentHoldStatus(execution.PaymentHoldStatusHeld).SetCurrency("USD").
		SetGross(500).SetPlatformFee(50).SetDeveloperPayout(450).Save(context.Background()); err != nil {
		t.Fatal(err)
	}

	b := f.dev.Session.Do(http.MethodGet, "/api/developer/billing", nil).JSON(t)
	if b["currency"] != "USD" || b["earningsCents"] != float64(3550) || b["feesCents"] != float64(355) || b["payoutsCents"] != float64(3195) {
		t.Fatalf("USD billing: %v", b)
	}
	if cs := b["currencies"].([]any); len(cs) != 2 || cs[0] != "EUR" || cs[1] != "USD" {
		t.Fatalf("currencies: %v", cs)
	}
	ledger := b["ledger"].([]any)
	if len(ledger) != 2 || b["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("ledger: %v", b)
	}
	top := ledger[0].(map[string]any)
	if top["executionId"] != last.ID || top["agentId"] != mine || top["agentName"] != "Agent earner" ||
		top["earningsCents"] != float64(2550) || top["feeCents"] != float64(255) || top["payoutCents"] != float64(2295) {
		t.Fatalf("newest line: %v", top)
	}
	eur := f.dev.Session.Do(http.MethodGet, "/api/developer/billing?"+url.Values{"currency": {"eur"}, "limit": {"1"}}.Encode(), nil).JSON(t)
	if eur["currency"] != "EUR" || eur["earningsCents"] != float64(700) || eur["payoutsCents"] != float64(630) || len(eur["ledger"].([]any)) != 1 {
		t.Fatalf("EUR billing: %v", eur)
	}
	if o := f.s.Anonymous().Do(http.MethodGet, "/api/developer/billing", nil); o.Status != http.StatusUnauthorized {
		t.Fatalf("billing without a session: %d", o.Status)
	}
	if ob := other.Session.Do(http.MethodGet, "/api/developer/billing", nil).JSON(t); ob["earningsCents"] != float64(99900) {
		t.Fatalf("the other developer's billing: %v", ob)
	}

	earned := f.dev.Session.Do(http.MethodGet, "/api/developer/agents/"+mine+"/earnings", nil).JSON(t)
	totals := earned["totals"].([]any)
	if len(totals) != 2 {
		t.Fatalf("earnings: %v", earned)
	}
	usd := totals[1].(map[string]any)
	if usd["currency"] != "USD" || usd["earningsCents"] != float64(3550) || usd["pendingCents"] != float64(450) || usd["paidExecutions"] != float64(2) {
		t.Fatalf("USD earnings: %v", usd)
	}
	execs := f.dev.Session.Do(http.MethodGet, "/api/developer/agents/"+mine+"/executions?limit=2", nil).JSON(t)
	if list := execs["executions"].([]any); len(list) != 2 || execs["pagination"].(map[string]any)["total"] != float64(4) {
		t.Fatalf("executions: %v", execs)
	}
	if strings.Contains(string(f.dev.Session.Do(http.MethodGet, "/api/developer/agents/"+mine+"/executions", nil).Body), `"input"`) {
		t.Fatal("an execution as the developer sees it carries the requester's task")
	}
}

// TestPortalInstances: on a hub, the instance an admin's connect token
// registered is listed with its status for that admin, and for nobody else.
func TestPortalInstances(t *testing.T) {
	t.Parallel()
	f := newHubFixture(t)
	rc := joinedReceiver(t, f)
	list := f.admin.Session.Do(http.MethodGet, "/api/developer/instances", nil).JSON(t)["instances"].([]any)
	if len(list) != 1 {
		t.Fatalf("instances: %v", list)
	}
	inst := list[0].(map[string]any)
	if inst["baseUrl"] != rc.URL || inst["status"] != "active" || inst["name"] != "Source" {
		t.Fatalf("instance: %v", inst)
	}
	if n := len(f.dev.Session.Do(http.MethodGet, "/api/developer/instances", nil).JSON(t)["instances"].([]any)); n != 0 {
		t.Fatalf("another developer lists %d instances", n)
	}
	// The token that registered it is listed as used.
	tokens := f.admin.Session.Do(http.MethodGet, "/api/developer/connect-tokens", nil).JSON(t)["tokens"].([]any)
	if len(tokens) != 1 || tokens[0].(map[string]any)["purpose"] != "instance" || tokens[0].(map[string]any)["usedAt"] == nil {
		t.Fatalf("tokens: %v", tokens)
	}
}

// TestPortalOverConnect: the same service over Connect with the session
// cookie: the codes of the REST statuses (RULINGS "Errors").
func TestPortalOverConnect(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	agent := newFakeAgent(t, true)
	id := f.registerAgent(t, f.dev, "over-connect", agent)
	ctx := context.Background()
	client := func(a *servertest.Account) switchboardv1connect.DeveloperPortalServiceClient {
		return switchboardv1connect.NewDeveloperPortalServiceClient(&http.Client{Jar: a.Jar, Transport: f.s.HTTP.Transport, Timeout: f.s.HTTP.Timeout}, f.s.URL)
	}
	dev, admin := client(f.dev), client(f.admin)
	list, err := dev.ListPortalAgents(ctx, &switchboardv1.ListPortalAgentsRequest{})
	if err != nil || len(list.GetAgents()) != 1 || list.GetAgents()[0].GetAgent().GetId() != id || list.GetAgents()[0].GetAccess() != "owner" {
		t.Fatalf("list: %v %v", list, err)
	}
	_, err = admin.GetPortalAgent(ctx, &switchboardv1.GetPortalAgentRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = dev.CreateWidgetTemplate(ctx, &switchboardv1.CreateWidgetTemplateRequest{Name: "x",
		Widget: &switchboardv1.AgentWidgetData{Type: "choice_card", Title: "t", Items: []*switchboardv1.AgentWidgetItem{{Id: "a", Label: "A"}}}})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = dev.DeleteDeveloperAccount(ctx, &switchboardv1.DeleteDeveloperAccountRequest{Confirm: "owner"})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	tpl, err := dev.CreateWidgetTemplate(ctx, &switchboardv1.CreateWidgetTemplateRequest{Name: "Summary",
		Widget: &switchboardv1.AgentWidgetData{Type: "info_card", Title: "t", Items: []*switchboardv1.AgentWidgetItem{{Id: "1", Label: "A"}}}})
	if err != nil || tpl.GetTemplate().GetWidget().GetItems()[0].GetLabel() != "A" {
		t.Fatalf("create template: %v %v", tpl, err)
	}
	_, err = admin.DeleteWidgetTemplate(ctx, &switchboardv1.DeleteWidgetTemplateRequest{Id: tpl.GetTemplate().GetId()})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = switchboardv1connect.NewDeveloperPortalServiceClient(f.s.HTTP, f.s.URL).GetDeveloperAccount(ctx, &switchboardv1.GetDeveloperAccountRequest{})
	servertest.WantCode(t, err, connect.CodeUnauthenticated)
}
