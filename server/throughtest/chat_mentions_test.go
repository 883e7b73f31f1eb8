package throughtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// fixture is a server with two accounts, ann (the caller) and bob, each with
// an every-scope key.
type fixture struct {
	s              *servertest.Server
	ann, bob       *servertest.Account
	annKey, bobKey string
}

// newFixture starts the server; call it before t.Parallel(), since ent's
// migration is not safe to run concurrently.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := servertest.New(t)
	f := &fixture{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob")}
	f.annKey, f.bobKey = f.ann.NewKey("agent"), f.bob.NewKey("bob-agent")
	return f
}

// mention is one result as both transports must agree on it.
type mention struct {
	ID, Name, Type   string
	Avatar, Subtitle *string
	MemberCount      *int32
}

func (m mention) String() string {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	n := "<nil>"
	if m.MemberCount != nil {
		n = fmt.Sprint(*m.MemberCount)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s", m.ID, m.Type, m.Name, s(m.Subtitle), s(m.Avatar), n)
}

// contact makes a contact for the key's account through the REST API.
func (f *fixture) contact(t *testing.T, key string, body map[string]any) string {
	t.Helper()
	res := f.s.WithKey(key).Do(http.MethodPost, "/api/v2/contacts", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create contact %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["contact"].(map[string]any)["id"].(string)
}

// agent lists a store agent for userID directly in the database: the store's
// API lands in a later issue, and is not what is under test.
func (f *fixture) agent(t *testing.T, userID, name, slug, status string) string {
	t.Helper()
	a, err := f.s.DB.StoreAgent.Create().SetUserID(userID).SetName(name).SetSlug(slug).
		SetStatus(storeagent.Status(status)).Save(context.Background())
	if err != nil {
		t.Fatalf("create store agent: %v", err)
	}
	return a.ID
}

// rest calls GET /api/chat/mentions and checks the REST form: a bare array of
// objects with exactly the six documented keys, null for absent values.
func rest(t *testing.T, caller *servertest.Caller, typ, q string) []mention {
	t.Helper()
	res := caller.Do(http.MethodGet, "/api/chat/mentions?"+url.Values{"type": {typ}, "q": {q}}.Encode(), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET mentions type=%s q=%q: %d %s", typ, q, res.Status, res.Body)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &raw); err != nil || raw == nil {
		t.Fatalf("REST answer is not an array (%v): %s", err, res.Body)
	}
	out := make([]mention, 0, len(raw))
	for _, obj := range raw {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"avatar", "id", "memberCount", "name", "subtitle", "type"}; !slices.Equal(keys, want) {
			t.Fatalf("REST mention keys = %v, want %v: %s", keys, want, res.Body)
		}
		var m mention
		for k, dst := range map[string]any{"id": &m.ID, "name": &m.Name, "type": &m.Type,
			"avatar": &m.Avatar, "subtitle": &m.Subtitle, "memberCount": &m.MemberCount} {
			if err := json.Unmarshal(obj[k], dst); err != nil {
				t.Fatalf("REST mention %s: %v: %s", k, err, res.Body)
			}
		}
		out = append(out, m)
	}
	return out
}

func client(f *fixture, protocol, key string) switchboardv1connect.SharedChatServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewSharedChatServiceClient(f.s.Client(protocol), f.s.URL, opts...)
}

// both asks REST and every Connect protocol with key, checks that they answer
// the same, and returns the answer.
func both(t *testing.T, f *fixture, key, typ, q string) []mention {
	t.Helper()
	want := rest(t, f.s.WithKey(key), typ, q)
	for protocol := range servertest.Protocols() {
		res, err := client(f, protocol, key).ListMentions(context.Background(),
			&switchboardv1.ListMentionsRequest{Type: typ, Q: q})
		if err != nil {
			t.Fatalf("%s ListMentions type=%s q=%q: %v", protocol, typ, q, err)
		}
		got := make([]mention, 0, len(res.GetResults()))
		for _, m := range res.GetResults() {
			got = append(got, mention{ID: m.GetId(), Name: m.GetName(), Type: m.GetType(),
				Avatar: m.Avatar, Subtitle: m.Subtitle, MemberCount: m.MemberCount})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s answers %v, REST %v", protocol, got, want)
		}
	}
	return want
}

func names(ms []mention) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func wantNames(t *testing.T, got []mention, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(names(got), want) {
		t.Fatalf("names = %q, want %q", names(got), want)
	}
}

// Document 1, "Other v2 endpoints" and RULINGS "Shared chat and events":
// people are the instance's local users and the caller's own contacts, never
// another account's contacts; an empty q answers the first by name.
func TestMentionsPeople(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	avatar := "https://example.com/bob.png"
	if err := f.s.DB.User.UpdateOneID(f.bob.ID).SetAvatar(avatar).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	grace := f.contact(t, f.annKey, map[string]any{"name": "Grace Hopper", "company": "US Navy", "email": "grace@navy.example"})
	ada := f.contact(t, f.annKey, map[string]any{"name": "Ada Lovelace", "email": "ada@example.com"})
	f.contact(t, f.annKey, map[string]any{"name": "Charles Babbage"})
	// Bob's contacts match ann's queries but are never hers to see.
	f.contact(t, f.bobKey, map[string]any{"name": "Grace Bobsfriend", "company": "Secret Co"})
	f.contact(t, f.bobKey, map[string]any{"name": "Ann's rival"})

	got := both(t, f, f.annKey, "people", "")
	wantNames(t, got, "Ada Lovelace", "Bob", "Charles Babbage", "Grace Hopper")
	byName := map[string]mention{}
	for _, m := range got {
		byName[m.Name] = m
		if m.Type != "person" || m.MemberCount != nil {
			t.Fatalf("person mention %v: type %q, memberCount %v", m, m.Type, m.MemberCount)
		}
	}
	if b := byName["Bob"]; b.ID != f.bob.ID || b.Subtitle == nil || *b.Subtitle != "@bob" || b.Avatar == nil || *b.Avatar != avatar {
		t.Fatalf("bob as a local user = %v", b)
	}
	if g := byName["Grace Hopper"]; g.ID != grace || g.Subtitle == nil || *g.Subtitle != "US Navy" || g.Avatar != nil {
		t.Fatalf("contact with a company = %v", g)
	}
	if a := byName["Ada Lovelace"]; a.ID != ada || a.Subtitle == nil || *a.Subtitle != "ada@example.com" {
		t.Fatalf("contact with only an email = %v", a)
	}
	if c := byName["Charles Babbage"]; c.Subtitle != nil || c.Avatar != nil {
		t.Fatalf("contact with neither = %v", c)
	}

	wantNames(t, both(t, f, f.annKey, "people", "grace"), "Grace Hopper")
	// Bob sees ann as a local user, and only his own contacts.
	wantNames(t, both(t, f, f.bobKey, "people", ""), "Ann", "Ann's rival", "Grace Bobsfriend")
	wantNames(t, both(t, f, f.bobKey, "people", "hopper"))
}

// Document 1, "Other v2 endpoints": q is a prefix or substring; matches whose
// name or handle starts with q come first, then the rest, each by name.
func TestMentionsQueryRanksPrefixFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.s.SignUp("lottie")
	billy := f.s.SignUp("zz_top")
	if err := f.s.DB.User.UpdateOneID(billy.ID).SetName("Billy").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []map[string]any{
		{"name": "Ada Lovelace"},                          // inside the name
		{"name": "Lois Lane"},                             // name prefix
		{"name": "Zed", "company": "Globo Corp"},          // inside the company
		{"name": "Xavier", "email": "xavier@lo.example"},  // inside the email
		{"name": "Nobody", "email": "nobody@example.com"}, // no match
		{"name": "Carlos", "company": "Acme"},             // inside the name
	} {
		f.contact(t, f.annKey, c)
	}
	want := []string{"Lois Lane", "Lottie", "Ada Lovelace", "Carlos", "Xavier", "Zed"}
	for _, q := range []string{"lo", "LO", "  Lo  "} {
		wantNames(t, both(t, f, f.annKey, "people", q), want...)
	}
	// A username is matched like a name.
	got := both(t, f, f.annKey, "people", "ZZ_")
	wantNames(t, got, "Billy")
	if *got[0].Subtitle != "@zz_top" {
		t.Fatalf("subtitle = %q", *got[0].Subtitle)
	}
	wantNames(t, both(t, f, f.annKey, "people", "no such person"))
}

// Decision (docs/decisions.md): case folding is ASCII only, identically on
// SQLite and PostgreSQL.
func TestMentionsFoldASCIIOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.contact(t, f.annKey, map[string]any{"name": "Émile Zola"})
	for _, q := range []string{"zola", "ZOLA", "Émile", "ÉMILE"} {
		wantNames(t, both(t, f, f.annKey, "people", q), "Émile Zola")
	}
	wantNames(t, both(t, f, f.annKey, "people", "émile"))
}

// Decision (docs/decisions.md): at most MentionLimit results, the first in the
// order, merged across users and contacts.
func TestMentionsLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var want []string
	for i := 1; i <= 24; i++ {
		name := fmt.Sprintf("Member %02d", i)
		if i%6 == 0 { // some members are accounts, the rest contacts
			u := f.s.SignUp(fmt.Sprintf("member%02d", i))
			if err := f.s.DB.User.UpdateOneID(u.ID).SetName(name).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
		} else {
			f.contact(t, f.annKey, map[string]any{"name": name})
		}
		want = append(want, name)
	}
	if chat.MentionLimit != 20 {
		t.Fatalf("MentionLimit = %d", chat.MentionLimit)
	}
	wantNames(t, both(t, f, f.annKey, "people", "member"), want[:20]...)
	wantNames(t, both(t, f, f.annKey, "people", "ember 2"), want[19:]...)
	// Empty q: Bob first by name, then the members.
	wantNames(t, both(t, f, f.annKey, "people", ""), append([]string{"Bob"}, want[:19]...)...)

	// The database ranks before it cuts: a prefix match that sorts after more
	// than MentionLimit inner matches still comes first.
	var halos []string
	for i := 1; i <= 21; i++ {
		halos = append(halos, fmt.Sprintf("Halo %02d", i))
		f.contact(t, f.annKey, map[string]any{"name": halos[i-1]})
	}
	f.contact(t, f.annKey, map[string]any{"name": "Lola"})
	wantNames(t, both(t, f, f.annKey, "people", "lo"), append([]string{"Lola"}, halos[:19]...)...)
}

// specActionTags are the action tags the two documents name: document 1,
// "Queue" (queue action tags used from chat), and document 2, "Action tags in
// chat".
var specActionTags = []string{
	"dispatch_queue", "queue_capability_action", "suggest_marketplace", "confirm_queue_item",
	"remove_queue_item", "edit_queue_item", "decompose_task",
	"create_card", "link_cards", "create_project", "invite_to_project", "assign_team_to_project",
	"show_google_connect", "show_settings_widget", "complete_checklist", "create_checklist", "generate_image",
	"declare_capability", "find_providers", "hire_provider", "submit_deliverable", "close_project",
	"submit_project_review", "list_my_capabilities", "remove_capability", "project_update", "request_info",
	"add_project_scope", "suggest_close_project", "dispute_project", "manage_review_visibility",
}

// RULINGS "Shared chat and events": commands are the action-tag list;
// RULINGS "The assistant": the list offers exactly the tags this instance
// runs (the executor's), not the documented ones whose systems are missing.
func TestMentionsCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var listed []string
	for _, c := range chat.Commands {
		listed = append(listed, c.Name)
	}
	if !slices.Equal(listed, specActionTags) {
		t.Fatalf("documented commands = %q\nwant the spec's action tags %q", listed, specActionTags)
	}
	var available []string
	for _, c := range f.s.App.Assistant.Commands() {
		available = append(available, c.Name)
	}
	// Every documented tag is built now (issue 29 built the economy's); the
	// network's own tags come after them.
	for _, name := range specActionTags {
		if !slices.Contains(available, name) {
			t.Fatalf("the documented tag %s is not available: %q", name, available)
		}
	}

	got := both(t, f, f.annKey, "commands", "")
	// Sorted by name and cut at the answer's cap, as every mention list is.
	sorted := slices.Sorted(slices.Values(available))
	wantNames(t, got, sorted[:min(len(sorted), chat.MentionLimit)]...)
	for _, m := range got {
		if m.Type != "command" || m.ID != m.Name || m.Subtitle == nil || *m.Subtitle == "" || m.Avatar != nil || m.MemberCount != nil {
			t.Fatalf("command mention = %v", m)
		}
	}
	// Names and descriptions match; the name prefix comes first.
	wantNames(t, both(t, f, f.annKey, "commands", "Queue"),
		"queue_capability_action", "confirm_queue_item", "dispatch_queue", "edit_queue_item", "remove_queue_item")
	wantNames(t, both(t, f, f.annKey, "commands", "kanban card"), "create_card")
	// The economy's tags are offered now that their service exists (a tag
	// without its service is not: TestEconomyTagsNeedTheirService).
	wantNames(t, both(t, f, f.annKey, "commands", "hire_provider"), "hire_provider")
	// Every tag is reachable by its name, first.
	api := f.s.WithKey(f.annKey)
	for _, tag := range available {
		if got := rest(t, api, "commands", tag); len(got) == 0 || got[0].Name != tag {
			t.Fatalf("q=%s: %v", tag, got)
		}
	}
}

// Document 1, "Other v2 endpoints": agents are the caller's own listings and
// installed agents; never another account's.
func TestMentionsAgents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// No agents at all: an empty array, not null.
	wantNames(t, both(t, f, f.annKey, "agents", ""))

	mine := f.agent(t, f.ann.ID, "Research Bot", "research-bot", "active")
	f.agent(t, f.ann.ID, "Zeta Writer", "writer", "active")
	f.agent(t, f.ann.ID, "Retired Bot", "retired-bot", "disabled")
	f.agent(t, f.ann.ID, "Waiting Bot", "waiting-bot", "pending_review")
	bobs := f.agent(t, f.bob.ID, "Bob Bot", "bob-bot", "active")

	got := both(t, f, f.annKey, "agents", "")
	wantNames(t, got, "Research Bot", "Zeta Writer")
	if m := got[0]; m.ID != mine || m.Type != "agent" || m.Subtitle == nil || *m.Subtitle != "@research-bot" || m.Avatar != nil {
		t.Fatalf("agent mention = %v", m)
	}
	wantNames(t, both(t, f, f.annKey, "agents", "WRITER"), "Zeta Writer") // by slug prefix
	wantNames(t, both(t, f, f.annKey, "agents", "bot"), "Research Bot")
	got = both(t, f, f.bobKey, "agents", "")
	if len(got) != 1 || got[0].ID != bobs {
		t.Fatalf("bob's agents = %v", got)
	}
	// Installed agents join one's own; an installed one that is no longer
	// active does not.
	retired := f.agent(t, f.ann.ID, "Old Helper", "old-helper", "disabled")
	for _, id := range []string{mine, retired} {
		if err := f.s.DB.StoreInstall.Create().SetUserID(f.bob.ID).SetAgentID(id).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wantNames(t, both(t, f, f.bobKey, "agents", ""), "Bob Bot", "Research Bot")
}

// RULINGS "Shared chat and events": teams and channels are what exists, and
// none do until teams land; memberCount is only ever set for teams.
func TestMentionsTeamsAndChannels(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.contact(t, f.annKey, map[string]any{"name": "Team Player"})
	for _, typ := range []string{"teams", "channels"} {
		for _, q := range []string{"", "team"} {
			wantNames(t, both(t, f, f.annKey, typ, q))
		}
		// The REST form is a bare empty array; the Connect JSON form wraps it.
		if res := f.s.WithKey(f.annKey).Do(http.MethodGet, "/api/chat/mentions?type="+typ, nil); string(res.Body) != "[]\n" {
			t.Fatalf("REST %s: %d %s", typ, res.Status, res.Body)
		}
		res := f.s.WithKey(f.annKey).Do(http.MethodPost, "/switchboard.v1.SharedChatService/ListMentions",
			`{"type":"`+typ+`"}`, "Connect-Protocol-Version", "1")
		if res.Status != http.StatusOK || string(res.Body) != "{\"results\":[]}\n" {
			t.Fatalf("Connect %s: %d %s", typ, res.Status, res.Body)
		}
	}
	// The Connect JSON form omits absent fields where REST writes null.
	res := f.s.WithKey(f.annKey).Do(http.MethodPost, "/switchboard.v1.SharedChatService/ListMentions",
		`{"type":"people","q":"player"}`, "Connect-Protocol-Version", "1")
	if want := `{"results":[{"id":"`; res.Status != http.StatusOK || !strings.HasPrefix(string(res.Body), want) ||
		strings.Contains(string(res.Body), "subtitle") || strings.Contains(string(res.Body), "null") {
		t.Fatalf("Connect people: %d %s", res.Status, res.Body)
	}
}

// Document 1, "Other v2 endpoints": type is required and one of five values;
// RULINGS "Errors": bad input is a 400 in the error form and writes nothing.
func TestMentionsRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.contact(t, f.annKey, map[string]any{"name": "Grace Hopper"})
	before := counts(t, f)
	api := f.s.WithKey(f.annKey)
	for name, query := range map[string]string{
		"missing type":   "",
		"empty type":     "type=",
		"q without type": "q=grace",
		"unknown type":   "type=users",
		"singular type":  "type=person",
		"upper case":     "type=PEOPLE",
		"long q":         "type=people&q=" + strings.Repeat("a", 1001),
		"NUL in q":       "type=people&q=a%00b",
		"bad UTF-8 in q": "type=people&q=%ff",
		"unknown param":  "type=people&limit=5",
	} {
		t.Run(name, func(t *testing.T) {
			servertest.WantError(t, api.Do(http.MethodGet, "/api/chat/mentions?"+query, nil), http.StatusBadRequest)
		})
	}
	// The contract's 1,000 characters are still accepted.
	wantNames(t, rest(t, api, "people", strings.Repeat("a", 1000)))
	for protocol := range servertest.Protocols() {
		c := client(f, protocol, f.annKey)
		for _, req := range []*switchboardv1.ListMentionsRequest{
			{}, {Q: "grace"}, {Type: "users"}, {Type: "people", Q: "a\x00b"}, {Type: "people", Q: strings.Repeat("é", 1001)},
		} {
			if _, err := c.ListMentions(context.Background(), req); connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Fatalf("%s %v: %v, want invalid_argument", protocol, req, err)
			}
		}
	}
	if after := counts(t, f); after != before {
		t.Fatalf("refused calls changed rows: %v -> %v", before, after)
	}
}

// counts are the rows a mention search must never touch.
func counts(t *testing.T, f *fixture) [3]int {
	t.Helper()
	ctx := context.Background()
	var out [3]int
	var err error
	if out[0], err = f.s.DB.User.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	if out[1], err = f.s.DB.Contact.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	if out[2], err = f.s.DB.ActivityEntry.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// Document 1, "Other v2 endpoints": session or key, 401 when unauthorized;
// keys need the chat scope (contract access rule).
func TestMentionsCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	path := "/api/chat/mentions?type=commands"
	for name, c := range map[string]*servertest.Caller{
		"anonymous": f.s.Anonymous(), "unknown key": f.s.WithKey("sbk_unknown"),
	} {
		if res := c.Do(http.MethodGet, path, nil); res.Status != http.StatusUnauthorized {
			t.Fatalf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	queueOnly := f.ann.NewKey("queue only", "queue")
	if res := f.s.WithKey(queueOnly).Do(http.MethodGet, path, nil); res.Status != http.StatusForbidden {
		t.Fatalf("key without the chat scope: %d %s", res.Status, res.Body)
	}
	chatOnly := f.ann.NewKey("chat only", "chat")
	if got := rest(t, f.s.WithKey(chatOnly), "commands", "queue"); len(got) == 0 {
		t.Fatal("chat-scoped key found no commands")
	}
	if got := rest(t, f.ann.Session, "people", ""); len(got) != 1 || got[0].ID != f.bob.ID {
		t.Fatalf("session caller's people = %v", got)
	}

	ctx := context.Background()
	req := &switchboardv1.ListMentionsRequest{Type: "commands"}
	anon := switchboardv1connect.NewSharedChatServiceClient(f.s.HTTP, f.s.URL)
	if _, err := anon.ListMentions(ctx, req); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("Connect anonymous: %v", err)
	}
	if _, err := client(f, "grpc", queueOnly).ListMentions(ctx, req); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("Connect without the chat scope: %v", err)
	}
}
