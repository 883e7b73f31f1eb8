package throughtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

type chatEnv struct {
	s   *servertest.Server
	ann *servertest.Account
	key string
	api *servertest.Caller
	ctx context.Context
}

func setupChat(t *testing.T) *chatEnv {
	t.Helper()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("Scout", "chat")
	return &chatEnv{s: s, ann: ann, key: key, api: s.WithKey(key), ctx: context.Background()}
}

// rpc is a Connect client (JSON) with the key and optional extra headers.
func (e *chatEnv) rpc(hdr ...string) switchboardv1connect.SharedChatServiceClient {
	return switchboardv1connect.NewSharedChatServiceClient(e.s.HTTP, e.s.URL, connect.WithProtoJSON(),
		connect.WithInterceptors(servertest.BearerInterceptor(e.key), headers(hdr...)))
}

func headers(kv ...string) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			for i := 0; i+1 < len(kv); i += 2 {
				req.Header().Set(kv[i], kv[i+1])
			}
			return next(ctx, req)
		}
	})
}

func (e *chatEnv) count(t *testing.T) int {
	t.Helper()
	n, err := e.s.DB.ChatMessage.Query().Count(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// list answers GET /api/v2/shared-chat/messages?query as JSON.
func (e *chatEnv) list(t *testing.T, query string) map[string]any {
	t.Helper()
	res := e.api.Do(http.MethodGet, "/api/v2/shared-chat/messages?"+query, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list %q: %d %s", query, res.Status, res.Body)
	}
	return res.JSON(t)
}

func contents(body map[string]any) []string {
	var out []string
	for _, m := range body["messages"].([]any) {
		out = append(out, m.(map[string]any)["content"].(string))
	}
	return out
}

// Document 1, "Shared chat": send answers the flat {id, role, content,
// agentName, createdAt}; role is assistant for a key, user for the operator's
// session, content trimmed; the list is
// oldest first.
func TestSendThenList(t *testing.T) {
	e := setupChat(t)
	res := e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "  first  "})
	if res.Status != http.StatusCreated {
		t.Fatalf("send: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"agentName", "content", "createdAt", "id", "role"}) {
		t.Fatalf("send answers %v, want the flat message of document 1: %s", keys, res.Body)
	}
	// Without X-Agent-Name the key's label names the sender.
	if body["role"] != "assistant" || body["content"] != "first" || body["agentName"] != "Scout" {
		t.Fatalf("send = %s", res.Body)
	}
	res = e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "second", "role": "user"})
	if res.Status != http.StatusBadRequest {
		t.Fatalf("role is not the caller's to choose (unknown field): %d %s", res.Status, res.Body)
	}
	res = e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "second"}, "X-Agent-Name", " Ranger ")
	if res.Status != http.StatusCreated || res.JSON(t)["agentName"] != "Ranger" {
		t.Fatalf("send with X-Agent-Name: %d %s", res.Status, res.Body)
	}
	got, err := e.rpc("X-Agent-Name", "Pilot").SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "third\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetRole() != "assistant" || got.GetContent() != "third" || got.GetAgentName() != "Pilot" || got.GetId() == "" {
		t.Fatalf("Connect send = %v", got)
	}
	// A dashboard session is the operator: role user, attributed to the account's name.
	res = e.ann.Session.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "fourth"})
	if res.Status != http.StatusCreated || res.JSON(t)["agentName"] != "Ann" || res.JSON(t)["role"] != "user" {
		t.Fatalf("send with a session: %d %s", res.Status, res.Body)
	}

	list := e.list(t, "")
	if c := contents(list); !slices.Equal(c, []string{"first", "second", "third", "fourth"}) {
		t.Fatalf("list order = %v, want oldest first", c)
	}
	first := list["messages"].([]any)[0].(map[string]any)
	if first["id"] != body["id"] || first["userId"] != e.ann.ID || first["createdAt"] != body["createdAt"] ||
		first["agentName"] != "Scout" || first["metadata"] != nil {
		t.Fatalf("listed message = %v, sent %v", first, body)
	}
	pg := list["pagination"].(map[string]any)
	if pg["limit"] != float64(50) || pg["hasMore"] != false || pg["cursor"] != nil {
		t.Fatalf("pagination = %v (REST writes the absent cursor as null)", pg)
	}
}

// Document 1, "Pagination objects" and "Shared chat": pages are cut newest
// first and answered oldest first; the cursor leads to older messages, with no
// overlap and no gap even among messages with the same timestamp, and is absent
// on the last page.
func TestCursorPaging(t *testing.T) {
	e := setupChat(t)
	base := time.Now().UTC().Truncate(time.Second)
	var want []string
	// 3 at one instant, 5 at the next (equal timestamps straddle pages), 3 after.
	for i, at := range []int{0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2} {
		content := fmt.Sprintf("m%02d", i)
		want = append(want, content)
		if _, err := e.s.DB.ChatMessage.Create().SetUserID(e.ann.ID).SetRole("user").SetContent(content).
			SetCreatedAt(base.Add(time.Duration(at) * time.Second)).Save(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Equal timestamps order by id, so the expected order is (createdAt, id).
	rows, err := e.s.DB.ChatMessage.Query().Order(ent.Asc(chatmessage.FieldCreatedAt), ent.Asc(chatmessage.FieldID)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = want[:0]
	for _, r := range rows {
		want = append(want, r.Content)
	}

	for name, pageOf := range map[string]func(cursor string) ([]string, string, bool){
		"REST": func(cursor string) ([]string, string, bool) {
			body := e.list(t, "limit=3&cursor="+url.QueryEscape(cursor))
			pg := body["pagination"].(map[string]any)
			c, _ := pg["cursor"].(string)
			return contents(body), c, pg["hasMore"].(bool)
		},
		"Connect": func(cursor string) ([]string, string, bool) {
			res, err := e.rpc().ListMessages(e.ctx, &switchboardv1.ListMessagesRequest{Limit: 3, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			var c []string
			for _, m := range res.GetMessages() {
				c = append(c, m.GetContent())
			}
			return c, res.GetPagination().GetCursor(), res.GetPagination().GetHasMore()
		},
	} {
		t.Run(name, func(t *testing.T) {
			var pages [][]string
			cursor := ""
			for range 10 {
				page, next, more := pageOf(cursor)
				pages = append(pages, page)
				if more != (next != "") {
					t.Fatalf("hasMore %v with cursor %q", more, next)
				}
				if next == "" {
					break
				}
				cursor = next
			}
			// Pages come newest first; each page is oldest first.
			var all []string
			for i := len(pages) - 1; i >= 0; i-- {
				all = append(all, pages[i]...)
			}
			if !slices.Equal(all, want) {
				t.Fatalf("pages %v joined = %v, want %v", pages, all, want)
			}
			if len(pages) != 4 || len(pages[3]) != 2 {
				t.Fatalf("pages = %v, want 3+3+3+2", pages)
			}
		})
	}
}

// RULINGS "Shared chat and events" (the comms view's filter) and document 1:
// role and metadataType (repeatable; agent_activity expands) on both transports.
func TestFilters(t *testing.T) {
	e := setupChat(t)
	base := time.Now().UTC()
	for i, m := range []struct{ role, content, typ string }{
		{"user", "hello", ""},
		{"assistant", "Started: A", "agent_execution_started"},
		{"assistant", "Completed: A", "task_completed"},
		{"assistant", "a note", "note"},
		{"system", "cleared", ""},
	} {
		c := e.s.DB.ChatMessage.Create().SetUserID(e.ann.ID).SetRole(m.role).SetContent(m.content).
			SetCreatedAt(base.Add(time.Duration(i) * time.Millisecond))
		if m.typ != "" {
			c.SetMetadata(`{"type":"` + m.typ + `"}`).SetMetadataType(m.typ)
		}
		if _, err := c.Save(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		role  string
		types []string
		want  []string
	}{
		{"", nil, []string{"hello", "Started: A", "Completed: A", "a note", "cleared"}},
		{"user", nil, []string{"hello"}},
		{"assistant", nil, []string{"Started: A", "Completed: A", "a note"}},
		{"", []string{"agent_activity"}, []string{"Started: A", "Completed: A"}},
		{"", []string{"task_completed"}, []string{"Completed: A"}},
		{"", []string{"note", "agent_execution_started"}, []string{"Started: A", "a note"}},
		{"user", []string{"agent_activity"}, nil},
		{"nobody", nil, nil},
	}
	for _, c := range cases {
		q := url.Values{}
		if c.role != "" {
			q.Set("role", c.role)
		}
		for _, typ := range c.types {
			q.Add("metadataType", typ)
		}
		if got := contents(e.list(t, q.Encode())); !slices.Equal(got, c.want) {
			t.Errorf("REST %s = %v, want %v", q.Encode(), got, c.want)
		}
		res, err := e.rpc().ListMessages(e.ctx, &switchboardv1.ListMessagesRequest{Role: c.role, MetadataType: c.types})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range res.GetMessages() {
			got = append(got, m.GetContent())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Connect role=%q types=%v = %v, want %v", c.role, c.types, got, c.want)
		}
	}
}

// RULINGS "Shared chat and events": metadataJson that does not parse is stored
// as given over REST and refused (invalid_argument) over RPC, nothing stored.
// Valid metadata with a type can be filtered on.
func TestMetadataJSONByTransport(t *testing.T) {
	e := setupChat(t)
	res := e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "rest", "metadataJson": "{not json"})
	if res.Status != http.StatusCreated {
		t.Fatalf("REST send with unparsable metadata: %d %s", res.Status, res.Body)
	}
	_, err := e.rpc().SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "rpc", MetadataJson: "{not json"})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "metadataJson") {
		t.Fatalf("Connect send with unparsable metadata: %v", err)
	}
	// Only the empty string means none: blank text does not parse either.
	if _, err := e.rpc().SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "rpc", MetadataJson: "  "}); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("Connect send with blank metadata: %v", err)
	}
	if _, err := e.rpc().SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "typed", MetadataJson: `{"type":"handoff","to":"Ranger"}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.rpc().SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "plain"}); err != nil {
		t.Fatal(err)
	}
	msgs := e.list(t, "")["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("stored %d messages, want 3 (the refused one is not stored)", len(msgs))
	}
	if m := msgs[0].(map[string]any); m["content"] != "rest" || m["metadata"] != "{not json" {
		t.Fatalf("REST message = %v, want the metadata text as given", m)
	}
	if m := msgs[2].(map[string]any); m["content"] != "plain" || m["metadata"] != nil {
		t.Fatalf("empty metadataJson means none: %v", m)
	}
	if got := contents(e.list(t, "metadataType=handoff")); !slices.Equal(got, []string{"typed"}) {
		t.Fatalf("metadataType=handoff = %v", got)
	}
}

// Document 1, "Shared chat": missing, non-string or whitespace-only content is
// refused with one message, on both transports, and nothing is stored; other
// bad input is a clear 400 too.
func TestRefusalsStoreNothing(t *testing.T) {
	e := setupChat(t)
	for name, body := range map[string]string{
		"missing":    `{}`,
		"empty":      `{"content": ""}`,
		"whitespace": `{"content": " \n\t "}`,
		"number":     `{"content": 5}`,
		"object":     `{"content": {"text": "hi"}}`,
		"list":       `{"content": ["hi"]}`,
		"bool":       `{"content": true}`,
	} {
		res := e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", body)
		if res.Status != http.StatusBadRequest || res.JSON(t)["error"] != chat.ContentRequired {
			t.Errorf("REST %s: %d %s", name, res.Status, res.Body)
		}
		req, _ := http.NewRequest(http.MethodPost, e.s.URL+switchboardv1connect.SharedChatServiceSendMessageProcedure, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.key)
		r, err := e.s.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Code, Message string }
		decodeJSON(t, r, &got)
		if r.StatusCode != http.StatusBadRequest || got.Code != "invalid_argument" || !strings.HasSuffix(got.Message, chat.ContentRequired) {
			t.Errorf("Connect %s: %d %+v", name, r.StatusCode, got)
		}
	}
	for name, c := range map[string]struct {
		method, path string
		body         any
		hdr          []string
	}{
		"long agent name":  {http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "hi"}, []string{"X-Agent-Name", strings.Repeat("a", 101)}},
		"control in name":  {http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "hi"}, []string{"X-Agent-Name", "a\tb"}},
		"NUL in content":   {http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "a\x00b"}, nil},
		"unknown field":    {http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "hi", "agentName": "me"}, nil},
		"malformed JSON":   {http.MethodPost, "/api/v2/shared-chat/send", `{"content": "hi"`, nil},
		"bad cursor":       {http.MethodGet, "/api/v2/shared-chat/messages?cursor=nope", nil, nil},
		"forged cursor":    {http.MethodGet, "/api/v2/shared-chat/messages?cursor=" + "eHh4", nil, nil},
		"negative limit":   {http.MethodGet, "/api/v2/shared-chat/messages?limit=-1", nil, nil},
		"limit not number": {http.MethodGet, "/api/v2/shared-chat/messages?limit=ten", nil, nil},
		"unknown param":    {http.MethodGet, "/api/v2/shared-chat/messages?rol=user", nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			servertest.WantError(t, e.api.Do(c.method, c.path, c.body, c.hdr...), http.StatusBadRequest)
		})
	}
	if n := e.count(t); n != 0 {
		t.Fatalf("%d messages stored by refused requests", n)
	}
	// A limit past the maximum is cut to it.
	if pg := e.list(t, "limit=1000")["pagination"].(map[string]any); pg["limit"] != float64(100) {
		t.Fatalf("limit=1000 answers pagination %v, want limit 100", pg)
	}
}

// RULINGS "Accounts, keys, sessions": keys need the chat scope; another
// account's messages never appear.
func TestAccessAndIsolation(t *testing.T) {
	e := setupChat(t)
	bob := e.s.SignUp("bob")
	bobAPI := e.s.WithKey(bob.NewKey("bob agent"))
	if res := bobAPI.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "bob's secret"}); res.Status != http.StatusCreated {
		t.Fatalf("bob send: %d %s", res.Status, res.Body)
	}
	e.api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "ann's"})
	if got := contents(e.list(t, "")); !slices.Equal(got, []string{"ann's"}) {
		t.Fatalf("ann lists %v", got)
	}
	// Bob's cursor means nothing to Ann's list beyond its position: still only Ann's.
	res, err := e.rpc().ListMessages(e.ctx, &switchboardv1.ListMessagesRequest{})
	if err != nil || len(res.GetMessages()) != 1 || res.GetMessages()[0].GetUserId() != e.ann.ID {
		t.Fatalf("Connect list = %v, %v", res, err)
	}
	queueOnly := e.s.WithKey(e.ann.NewKey("queue only", "queue"))
	if res := queueOnly.Do(http.MethodGet, "/api/v2/shared-chat/messages", nil); res.Status != http.StatusForbidden {
		t.Fatalf("key without the chat scope: %d %s", res.Status, res.Body)
	}
	if res := e.s.Anonymous().Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "x"}); res.Status != http.StatusUnauthorized {
		t.Fatalf("anonymous send: %d %s", res.Status, res.Body)
	}
	_, err = switchboardv1connect.NewSharedChatServiceClient(e.s.HTTP, e.s.URL).
		SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "x"})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("anonymous Connect send: %v", err)
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("not a Connect error: %v", err)
	}
}

func decodeJSON(t *testing.T, r *http.Response, v any) {
	t.Helper()
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		t.Fatalf("decode: %v", err)
	}
}

// Who wrote a message: a key's send is the assistant, the operator's session
// (the dashboard) is the user named by the account, on both transports and in
// what the list and the stream give back.
func TestOperatorSendsAsTheUser(t *testing.T) {
	e := setupChat(t)
	sess := switchboardv1connect.NewSharedChatServiceClient(&http.Client{Jar: e.ann.Jar}, e.s.URL)
	mine, err := sess.SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "from the dashboard"})
	if err != nil || mine.GetRole() != "user" || mine.GetAgentName() != "Ann" {
		t.Fatalf("Connect session send = %v %v, want role user by Ann", mine, err)
	}
	theirs, err := e.rpc().SendMessage(e.ctx, &switchboardv1.SendMessageRequest{Content: "from the agent"})
	if err != nil || theirs.GetRole() != "assistant" || theirs.GetAgentName() != "Scout" {
		t.Fatalf("Connect key send = %v %v, want role assistant by Scout", theirs, err)
	}
	rest := e.ann.Session.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "typed in"})
	if rest.Status != http.StatusCreated || rest.JSON(t)["role"] != "user" {
		t.Fatalf("REST session send: %d %s", rest.Status, rest.Body)
	}
	got := map[string]string{}
	for _, m := range e.list(t, "")["messages"].([]any) {
		m := m.(map[string]any)
		got[m["content"].(string)] = m["role"].(string) + " " + m["agentName"].(string)
	}
	want := map[string]string{"from the dashboard": "user Ann", "from the agent": "assistant Scout", "typed in": "user Ann"}
	if !maps.Equal(got, want) {
		t.Fatalf("listed = %v, want %v", got, want)
	}
}
