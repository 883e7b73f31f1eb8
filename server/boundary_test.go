package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/ent/migrate"
	"github.com/switchboard-hq/switchboard/ent/ratecount"
	"github.com/switchboard-hq/switchboard/ent/replica"
	"github.com/switchboard-hq/switchboard/ent/timerlease"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The input-at-the-boundary tables (RULINGS "Input at the boundary (every
// route, both transports)"): every route of the contract, generated from its
// descriptors, is sent each class of bad text over REST and Connect, answers
// 400 naming the field, and writes nothing.

// boundary is a hub with the operator network on, and an owner whose key has
// every scope and who holds each credential the public routes' handlers read
// (credentials come before bodies: the tables present them to reach the body).
type boundary struct {
	s    *servertest.Server
	ann  *servertest.Account
	key  string
	jar  http.CookieJar
	proc []*contract.Procedure
	held held
}

func newBoundary(t *testing.T) *boundary {
	s := servertest.New(t, servertest.WithRole("hub"), servertest.WithNetwork(network.Config{Enabled: true}),
		servertest.WithCronSecret(HeldCronSecret))
	ann := s.SignUp("ann")
	key := ann.NewKey("all", "queue", "chat", "kanban", "contacts", "settings", "mcp", "a2a", "store", "network", "projects")
	var procs []*contract.Procedure
	for _, p := range contract.MustLoad().All() {
		if p.Descriptor.IsStreamingServer() || p.Descriptor.IsStreamingClient() {
			continue // the stream's request is checked by the same call; its transport differs
		}
		procs = append(procs, p)
	}
	return &boundary{s: s, ann: ann, key: key, jar: ann.Jar, proc: procs, held: holdCredentials(t, s, ann)}
}

// caller is who may call p: the all-scopes key, else the session.
func (b *boundary) caller(p *contract.Procedure) *servertest.Caller {
	if p.AcceptKey && !p.Public {
		return b.s.WithKey(b.key)
	}
	if p.AcceptSess && !p.Public {
		return b.ann.Session
	}
	return b.held.caller(b.s, p)
}

// rows counts every table's rows: a refused request changes none.
func (b *boundary) rows(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tbl := range migrate.Tables {
		var n int
		if err := b.s.DB.SQL.QueryRowContext(context.Background(), "SELECT count(*) FROM "+tbl.Name).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", tbl.Name, err)
		}
		out[tbl.Name] = n
	}
	return out
}

func (b *boundary) unchanged(t *testing.T, before map[string]int) {
	t.Helper()
	after := b.rows(t)
	for name, n := range before {
		// The federation audit log records every inbound federation call,
		// refused ones included (RULINGS "Federation: instances and the
		// platform", Audit): its rows are the one write a refusal makes.
		if name == "federation_audit_logs" {
			continue
		}
		// The rate counters (server/gate) count every request the gate
		// lets through, whatever its handler then answers.
		if name == ratecount.Table {
			continue
		}
		// The server's own loops, not requests, write these: each timer's
		// lease on its first pass (which may come after the first snapshot)
		// and the replica's heartbeat row.
		if name == timerlease.Table || name == replica.Table {
			continue
		}
		if after[name] != n {
			t.Errorf("table %s: %d rows before, %d after refused requests", name, n, after[name])
		}
	}
}

// maxLen is the contract's declared limit of a string field (0: none).
func maxLen(f protoreflect.FieldDescriptor) int {
	r, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
	return int(r.GetString().GetMaxLen())
}

// target is the string field a route's body or query carries that the test
// spoils: the one with the smallest limit, so over-long values stay small.
type target struct {
	field protoreflect.FieldDescriptor
	// outer is the request field the REST body is (body: "card"), nil for
	// "*" or a query.
	outer protoreflect.FieldDescriptor
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

func pickTarget(p *contract.Procedure, bd contract.Binding) (target, bool) {
	in := p.Descriptor.Input()
	inPath := map[string]bool{}
	for _, m := range pathParam.FindAllStringSubmatch(bd.Template, -1) {
		inPath[m[1]] = true
	}
	md, t := in, target{}
	if bd.Body != "" && bd.Body != "*" {
		t.outer = in.Fields().ByName(protoreflect.Name(bd.Body))
		md = t.outer.Message()
	}
	best := -1
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if f.Kind() != protoreflect.StringKind || f.IsList() || f.IsMap() || (t.outer == nil && inPath[string(f.Name())]) {
			continue
		}
		if n := maxLen(f); n > 0 && (best < 0 || n < best) {
			best, t.field = n, f
		}
	}
	return t, t.field != nil
}

// restPath fills the binding's path parameters, one of them with bad (a
// pre-escaped value) when spoil names it.
func restPath(bd contract.Binding, spoil, bad string) string {
	return pathParam.ReplaceAllStringFunc(bd.Template, func(m string) string {
		if m[1:len(m)-1] == spoil {
			return bad
		}
		return "x1"
	})
}

// rest sends value in the route's target field: in the JSON body, or in the
// query when the route has no body. raw is the JSON string literal.
func (b *boundary) rest(p *contract.Procedure, bd contract.Binding, tg target, rawJSON, query string) *servertest.Response {
	path := restPath(bd, "", "")
	if bd.Body == "" {
		return b.caller(p).Do(bd.Method, path+"?"+tg.field.JSONName()+"="+query, nil)
	}
	return b.caller(p).Do(bd.Method, path, []byte(`{"`+tg.field.JSONName()+`":`+rawJSON+`}`))
}

// connectRaw posts a request message's wire bytes to p over Connect's unary
// protocol (binary or JSON) with the caller's credentials.
func (b *boundary) connectRaw(t *testing.T, p *contract.Procedure, contentType string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.s.URL+p.Name, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Connect-Protocol-Version", "1")
	client := b.s.HTTP
	switch {
	case p.AcceptKey && !p.Public:
		req.Header.Set("Authorization", "Bearer "+b.key)
	case p.AcceptSess && !p.Public:
		client = &http.Client{Jar: b.jar, Timeout: b.s.HTTP.Timeout}
	}
	if hdr := b.held.headers(p); p.Public && hdr != nil {
		req.Header.Set(hdr[0], hdr[1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	defer res.Body.Close()
	var e struct{ Code, Message string }
	_ = json.NewDecoder(res.Body).Decode(&e)
	return res.StatusCode, e.Code + ": " + e.Message
}

// wire is the binary request with value (any bytes, valid UTF-8 or not) in
// the target field.
func wire(tg target, value []byte) []byte {
	inner := protowire.AppendTag(nil, tg.field.Number(), protowire.BytesType)
	inner = protowire.AppendBytes(inner, value)
	if tg.outer == nil {
		return inner
	}
	outer := protowire.AppendTag(nil, tg.outer.Number(), protowire.BytesType)
	return protowire.AppendBytes(outer, inner)
}

// jsonName is the field's name in a Connect JSON request (the outer field's
// object around it when the REST body is one field).
func connectJSON(tg target, rawJSON string) []byte {
	inner := `{"` + tg.field.JSONName() + `":` + rawJSON + `}`
	if tg.outer == nil {
		return []byte(inner)
	}
	return []byte(`{"` + tg.outer.JSONName() + `":` + inner + `}`)
}

// bodyClass is one kind of bad value for a body or query field.
type bodyClass struct {
	name    string
	json    func(tg target) string // the JSON literal
	query   func(tg target) string // the escaped query value
	wire    func(tg target) []byte // the binary value
	message string                 // what the refusal says, after the field's name
}

func bodyClasses() []bodyClass {
	long := func(tg target) string { return strings.Repeat("é", maxLen(tg.field)+1) }
	return []bodyClass{
		{"NUL", func(target) string { return `"a\u0000b"` }, func(target) string { return "a%00b" },
			func(target) []byte { return []byte("a\x00b") }, "must be valid UTF-8 without NUL characters"},
		{"invalid UTF-8", func(target) string { return "\"a\xff\xfeb\"" }, func(target) string { return "a%FF%FEb" },
			func(target) []byte { return []byte("a\xff\xfeb") }, "UTF-8"},
		{"over-long", func(tg target) string { return `"` + long(tg) + `"` }, func(tg target) string { return url.QueryEscape(long(tg)) },
			func(tg target) []byte { return []byte(long(tg)) }, "is longer than"},
	}
}

// Every route with a string field in its body or query, both transports:
// 400 (invalid_argument) naming the field, nothing written.
func TestBoundaryBodyAndQueryText(t *testing.T) {
	b := newBoundary(t)
	for _, c := range bodyClasses() {
		t.Run(c.name, func(t *testing.T) {
			before := b.rows(t)
			routes := 0
			for _, p := range b.proc {
				for _, bd := range p.Bindings {
					tg, ok := pickTarget(p, bd)
					if !ok {
						continue
					}
					routes++
					res := b.rest(p, bd, tg, c.json(tg), c.query(tg))
					body := string(res.Body)
					if res.Status != http.StatusBadRequest || !strings.Contains(body, c.message) || !strings.Contains(body, `"success":false`) {
						t.Errorf("REST %s %s (%s): %d %.300s", bd.Method, bd.Template, tg.field.JSONName(), res.Status, body)
					}
				}
				tg, ok := pickTarget(p, contract.Binding{Body: "*"})
				if !ok {
					continue
				}
				for ct, data := range map[string][]byte{
					"application/proto": wire(tg, c.wire(tg)),
					"application/json":  connectJSON(tg, c.json(tg)),
				} {
					status, msg := b.connectRaw(t, p, ct, data)
					if status != http.StatusBadRequest || !strings.HasPrefix(msg, "invalid_argument: ") || !strings.Contains(msg, tg.field.JSONName()) && !strings.Contains(msg, string(tg.field.FullName())) {
						t.Errorf("Connect %s %s (%s): %d %.300s", ct, p.Name, tg.field.JSONName(), status, msg)
					}
				}
			}
			if routes < 45 {
				t.Errorf("only %d REST routes carry a string field; the table lost its routes", routes)
			}
			b.unchanged(t, before)
		})
	}
}

// Every REST route with a path parameter: NUL, invalid UTF-8 and an id over
// its limit in the path answer 400 before any handler runs; nothing written.
func TestBoundaryPathText(t *testing.T) {
	b := newBoundary(t)
	for _, c := range []struct{ name, value, message string }{
		{"NUL", "a%00b", "the path must be valid UTF-8 without NUL characters"},
		{"invalid UTF-8", "a%FF%FEb", "the path must be valid UTF-8 without NUL characters"},
		{"over-long", strings.Repeat("a", 65), "is longer than 64 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := b.rows(t)
			routes := 0
			for _, p := range b.proc {
				for _, bd := range p.Bindings {
					for _, m := range pathParam.FindAllStringSubmatch(bd.Template, -1) {
						routes++
						var body any
						if bd.Body != "" {
							body = "{}"
						}
						res := b.caller(p).Do(bd.Method, restPath(bd, m[1], c.value), body)
						if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), c.message) {
							t.Errorf("%s %s {%s}: %d %.300s", bd.Method, bd.Template, m[1], res.Status, res.Body)
						}
					}
				}
			}
			if routes < 34 {
				t.Errorf("only %d path parameters; the table lost its routes", routes)
			}
			b.unchanged(t, before)
		})
	}
}

// Headers the server reads are text too; the check runs before credentials.
func TestBoundaryHeaderText(t *testing.T) {
	b := newBoundary(t)
	before := b.rows(t)
	for _, h := range []string{"X-Agent-Name", "Idempotency-Key", "Last-Event-ID", "Authorization"} {
		for _, path := range []string{"/api/v2/kanban", "/switchboard.v1.KanbanService/ListCards"} {
			res := b.s.WithKey(b.key).Do(http.MethodPost, path, "{}", h, "a\xffb")
			if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "header "+h+" must be valid UTF-8") {
				t.Errorf("%s with a bad %s: %d %s", path, h, res.Status, res.Body)
			}
		}
	}
	b.unchanged(t, before)
}

// The cases the attack found, named (RULINGS "Input at the boundary").
func TestBoundaryFoundCases(t *testing.T) {
	b := newBoundary(t)
	before := b.rows(t)
	api := b.s.WithKey(b.key)
	long := strings.Repeat("x", 3000)
	for _, c := range []struct {
		name, method, path, body, want string
	}{
		{"username check with %ff%fe", http.MethodGet, "/api/username/check?username=%ff%fe", "", "query parameter username must be valid UTF-8"},
		{"3,000-character contact name", http.MethodPost, "/api/v2/contacts", `{"name":"` + long + `"}`, "name is longer than 500 characters"},
		{"3,000-character projectId on a card", http.MethodPost, "/api/v2/kanban", `{"title":"t","projectId":"` + long + `"}`, "projectId is longer than 64 characters"},
		{"3,000-character projectId on a queue item", http.MethodPost, "/api/v2/queue", `{"title":"t","projectId":"` + long + `"}`, "projectId is longer than 64 characters"},
		{"51 labels", http.MethodPost, "/api/v2/kanban", `{"title":"t","labels":[` + strings.TrimSuffix(strings.Repeat(`"l",`, 51), ",") + `]}`, "labels has more than 50 items"},
		{"NUL in a checklist item", http.MethodPost, "/api/v2/kanban", `{"title":"t","checklist":[{"text":"a\u0000"}]}`, "checklist[0].text must be valid UTF-8 without NUL characters"},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		res := api.Do(c.method, c.path, body)
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), c.want) {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	b.unchanged(t, before)
}

// Reference fields naming another account's row, or none, are 404 as path ids
// are (RULINGS "Input at the boundary"), on both transports, writing nothing.
func TestBoundaryForeignReferences(t *testing.T) {
	b := newBoundary(t)
	bob := b.s.SignUp("bob")
	bobKey := bob.NewKey("all", "queue", "kanban", "contacts")
	bobAPI := b.s.WithKey(bobKey)
	id := func(res *servertest.Response, keys ...string) string {
		t.Helper()
		var v any = res.JSON(t)
		for _, k := range keys {
			v = v.(map[string]any)[k]
		}
		s, _ := v.(string)
		if s == "" {
			t.Fatalf("no id at %v in %s", keys, res.Body)
		}
		return s
	}
	bobCard := id(bobAPI.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "bob's"}), "card", "id")
	bobItem := id(bobAPI.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "bob's"}), "item", "id")
	bobContact := id(bobAPI.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Bob's"}), "contact", "id")
	bobTeam := id(bob.Session.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Bob's"}), "team", "id")
	bobProject := id(bob.Session.Do(http.MethodPost, "/api/projects", map[string]any{"name": "Bob's", "teamId": bobTeam}), "project", "id")
	api := b.s.WithKey(b.key)
	annCard := id(api.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "ann's"}), "card", "id")
	annItem := id(api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "ann's"}), "item", "id")
	before := b.rows(t)
	for _, foreign := range []struct{ who, card, item, contact, team, project string }{
		{"another account's", bobCard, bobItem, bobContact, bobTeam, bobProject},
		{"no", "nosuchcard", "nosuchitem", "nosuchcontact", "nosuchteam", "nosuchproject"},
	} {
		for _, c := range []struct{ name, method, path, body string }{
			{"card parentCardId", http.MethodPost, "/api/v2/kanban", `{"title":"t","parentCardId":"` + foreign.card + `"}`},
			{"card update parentCardId", http.MethodPut, "/api/v2/kanban/" + annCard, `{"parentCardId":"` + foreign.card + `"}`},
			{"card contacts contactId", http.MethodPost, "/api/v2/kanban", `{"title":"t","contacts":[{"contactId":"` + foreign.contact + `"}]}`},
			{"card checklist item id", http.MethodPut, "/api/v2/kanban/" + annCard, `{"checklist":[{"id":"` + foreign.item + `","text":"x"}]}`},
			{"queue cardId", http.MethodPost, "/api/v2/queue", `{"title":"t","cardId":"` + foreign.card + `"}`},
			{"queue dependsOn", http.MethodPost, "/api/v2/queue", `{"title":"t","dependsOn":"` + foreign.item + `"}`},
			{"queue parentTaskId", http.MethodPost, "/api/v2/queue", `{"title":"t","parentTaskId":"` + foreign.item + `"}`},
			// A project is its members' (RULINGS "Teams, projects, invites, profiles").
			{"queue projectId", http.MethodPost, "/api/v2/queue", `{"title":"t","projectId":"` + foreign.project + `"}`},
			{"queue update projectId", http.MethodPut, "/api/v2/queue/" + annItem, `{"projectId":"` + foreign.project + `"}`},
			{"card projectId", http.MethodPost, "/api/v2/kanban", `{"title":"t","projectId":"` + foreign.project + `"}`},
			{"card update projectId", http.MethodPut, "/api/v2/kanban/" + annCard, `{"projectId":"` + foreign.project + `"}`},
			{"project teamId", http.MethodPost, "/api/projects", `{"name":"t","teamId":"` + foreign.team + `"}`},
		} {
			res := api.Do(c.method, c.path, c.body)
			if res.Status != http.StatusNotFound {
				t.Errorf("REST %s naming %s row: %d %s", c.name, foreign.who, res.Status, res.Body)
			}
		}
		for _, c := range []struct{ name, proc, body string }{
			{"card parentCardId", "/switchboard.v1.KanbanService/CreateCard", `{"card":{"title":"t","parentCardId":"` + foreign.card + `"}}`},
			{"card update parentCardId", "/switchboard.v1.KanbanService/UpdateCard", `{"id":"` + annCard + `","card":{"parentCardId":"` + foreign.card + `"}}`},
			{"queue dependsOn", "/switchboard.v1.QueueService/CreateQueueItem", `{"title":"t","dependsOn":"` + foreign.item + `"}`},
			{"queue projectId", "/switchboard.v1.QueueService/CreateQueueItem", `{"title":"t","projectId":"` + foreign.project + `"}`},
			{"card projectId", "/switchboard.v1.KanbanService/CreateCard", `{"card":{"title":"t","projectId":"` + foreign.project + `"}}`},
			{"project teamId", "/switchboard.v1.ProjectService/CreateProject", `{"name":"t","teamId":"` + foreign.team + `"}`},
		} {
			p, _ := contract.MustLoad().ByName(c.proc)
			status, msg := b.connectRaw(t, p, "application/json", []byte(c.body))
			if status != http.StatusNotFound || !strings.HasPrefix(msg, "not_found") {
				t.Errorf("Connect %s naming %s row: %d %s", c.name, foreign.who, status, msg)
			}
		}
	}
	b.unchanged(t, before)
	// A card is not its own parent.
	if res := api.Do(http.MethodPut, "/api/v2/kanban/"+annCard, `{"parentCardId":"`+annCard+`"}`); res.Status != http.StatusBadRequest {
		t.Errorf("card as its own parent: %d %s", res.Status, res.Body)
	}
}

// A stream's request passes the same check: a lastEventId over its limit or
// holding NUL ends the Connect stream with invalid_argument, on every protocol.
func TestBoundaryStreamRequest(t *testing.T) {
	b := newBoundary(t)
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(b.key)))
		client := switchboardv1connect.NewEventServiceClient(b.s.Client(name), b.s.URL, opts...)
		for _, bad := range []string{"a\x00", strings.Repeat("1", 65)} {
			ctx, cancel := context.WithCancel(context.Background())
			st, err := client.StreamEvents(ctx, &switchboardv1.StreamEventsRequest{LastEventId: bad})
			if err == nil {
				for st.Receive() {
				}
				err = st.Err()
			}
			cancel()
			if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "lastEventId") {
				t.Errorf("%s, lastEventId %.10q: %v", name, bad, err)
			}
		}
	}
}
