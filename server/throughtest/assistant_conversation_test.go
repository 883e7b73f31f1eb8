package throughtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// chatWorld is newWorld with the loopback provider configured.
func chatWorld(t *testing.T) (*assistantWorld, *llmtest.Provider) {
	t.Helper()
	provider := llmtest.New(t)
	return newAssistantWorld(t, servertest.WithLLM(provider.URL)), provider
}

// send posts message to /api/chat/send as acc.
func send(acc *servertest.Account, message string) *servertest.SSEStream {
	return acc.Session.StreamPost("/api/chat/send", `{"message":`+quote(message)+`}`)
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// all reads the stream to its end.
func all(t *testing.T, st *servertest.SSEStream) []servertest.SSEEvent {
	t.Helper()
	if !st.Ended(servertest.StreamTimeout) {
		t.Fatal("the reply's stream did not end")
	}
	return st.Drain()
}

// RULINGS "The assistant": POST /api/chat/send streams token events as the
// provider streams, then tags_executed, then done with the stored
// message's id; the reply's tags run after it ends, in order, through the
// capability gate (an installed agent's task type passes; a type nobody
// handles creates nothing and suggests the store); GET /api/chat/messages
// pages the conversation.
func TestSendStreamsTokensThenTags(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	tokens := []string{"On it. ", "[[dispatch_queue {\"title\":", "\"Find papers on sleep\",\"type\":\"research\"}]]", " And ",
		`[[dispatch_queue {"title":"Paint the fence","type":"painting"}]]`, " done."}
	provider.Chat(llmtest.Reply{Tokens: tokens})

	st := send(w.ann, "Find me papers on sleep, and paint the fence")
	if st.Response.StatusCode != http.StatusOK || st.Response.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("send: %d %s", st.Response.StatusCode, st.Response.Header.Get("Content-Type"))
	}
	events := all(t, st)
	var text strings.Builder
	i := 0
	for ; i < len(events) && events[i].Event == "token"; i++ {
		text.WriteString(events[i].JSON(t)["text"].(string))
	}
	if i != len(tokens) || text.String() != strings.Join(tokens, "") {
		t.Fatalf("tokens: %d events, text %q; want %d in order", i, text.String(), len(tokens))
	}
	if len(events) != i+2 || events[i].Event != "tags_executed" || events[i+1].Event != "done" {
		t.Fatalf("after the tokens: %v", events[i:])
	}
	executed := events[i].JSON(t)["tags"].([]any)
	if len(executed) != 2 {
		t.Fatalf("tags_executed: %v", executed)
	}
	first, second := executed[0].(map[string]any), executed[1].(map[string]any)
	item := first["result"].(map[string]any)["item"].(map[string]any)
	if first["ok"] != true || item["status"] != "pending_confirmation" || item["title"] != "Find papers on sleep" {
		t.Errorf("the research tag: %v", first)
	}
	if second["ok"] != false || !strings.Contains(second["error"].(string), "suggest_marketplace") {
		t.Errorf("the painting tag: %v", second)
	}
	if n := w.items(t); n != 1 {
		t.Errorf("queue items: %d, want 1 (no handler creates nothing)", n)
	}

	// The provider was asked with the message last, under a system prompt.
	reqs := provider.Requests()
	msgs := reqs[len(reqs)-1].JSON["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "user" || last["content"] != "Find me papers on sleep, and paint the fence" {
		t.Errorf("the provider's last message: %v", last)
	}
	if reqs[len(reqs)-1].JSON["stream"] != true {
		t.Errorf("the provider was not asked to stream: %v", reqs[len(reqs)-1].JSON)
	}

	// The conversation: the operator's message, then the reply with its tags.
	id := events[i+1].JSON(t)["messageId"].(string)
	res := w.ann.Session.Do(http.MethodGet, "/api/chat/messages", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	page := res.JSON(t)
	got := page["messages"].([]any)
	if len(got) != 2 {
		t.Fatalf("messages: %s", res.Body)
	}
	mine, reply := got[0].(map[string]any), got[1].(map[string]any)
	if mine["role"] != "user" || mine["content"] != "Find me papers on sleep, and paint the fence" || len(mine["tags"].([]any)) != 0 {
		t.Errorf("the operator's turn: %v", mine)
	}
	if reply["id"] != id || reply["role"] != "assistant" || reply["content"] != strings.Join(tokens, "") || len(reply["tags"].([]any)) != 2 {
		t.Errorf("the reply: %v (done said %s)", reply, id)
	}
	// Another account's conversation is its own.
	if other := w.eve.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)["messages"].([]any); len(other) != 0 {
		t.Errorf("eve sees %v", other)
	}

	// The next send carries the earlier turns to the provider.
	provider.Chat(llmtest.Reply{Tokens: []string{"Yes."}})
	all(t, send(w.ann, "Anything else?"))
	reqs = provider.Requests()
	msgs = reqs[len(reqs)-1].JSON["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" {
		t.Errorf("the second prompt's roles: %v", roles)
	}
}

// RULINGS "The assistant": a provider that fails midway ends the stream
// with error; no tag of the unfinished reply runs and no reply is stored.
func TestSendProviderFailsMidway(t *testing.T) {
	t.Parallel()
	for _, then := range []llmtest.Fail{llmtest.Abort, llmtest.ErrorEvent, llmtest.End} {
		w, provider := chatWorld(t)
		provider.Chat(llmtest.Reply{Tokens: []string{"Sure. ", `[[dispatch_queue {"title":"Find papers","type":"research"}]]`}, Then: then})
		events := all(t, send(w.ann, "Find papers"))
		last := events[len(events)-1]
		if last.Event != "error" || !strings.Contains(last.JSON(t)["error"].(string), "nothing of it was kept") {
			t.Fatalf("fail %d: the last event %v", then, last)
		}
		for _, ev := range events[:len(events)-1] {
			if ev.Event != "token" {
				t.Errorf("fail %d: %s before the error", then, ev.Event)
			}
		}
		if n := w.items(t); n != 0 {
			t.Errorf("fail %d: %d items from an unfinished reply", then, n)
		}
		got := w.ann.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)["messages"].([]any)
		if len(got) != 1 || got[0].(map[string]any)["role"] != "user" {
			t.Errorf("fail %d: the conversation %v, want only the operator's message", then, got)
		}
	}
}

// RULINGS "The assistant": a client that disconnects cancels the provider
// call (the fake sees its connection close); two streams per account, a
// third 429 before any stream; the limit is given back when a stream ends.
func TestSendDisconnectAndStreamLimit(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	provider.Chat(llmtest.Reply{Tokens: []string{"Thinking"}, Then: llmtest.Hang}, llmtest.Reply{Tokens: []string{"Also"}, Then: llmtest.Hang})
	one, two := send(w.ann, "first"), send(w.ann, "second")
	if ev := one.Next(); ev.Event != "token" {
		t.Fatalf("first stream: %v", ev)
	}
	if ev := two.Next(); ev.Event != "token" {
		t.Fatalf("second stream: %v", ev)
	}
	third := w.ann.Session.Do(http.MethodPost, "/api/chat/send", map[string]any{"message": "third"})
	servertest.WantStatus(t, third, http.StatusTooManyRequests)
	if third.Header.Get("Content-Type") == "text/event-stream" || !strings.Contains(third.JSON(t)["error"].(string), "two assistant replies") {
		t.Errorf("the third stream: %s %s", third.Header.Get("Content-Type"), third.Body)
	}
	// Another account is not held by ann's streams.
	provider.Chat(llmtest.Reply{Tokens: []string{"Hi eve"}})
	if events := all(t, send(w.eve, "hello")); events[len(events)-1].Event != "done" {
		t.Errorf("eve's send: %v", events)
	}

	one.Close()
	select {
	case <-provider.Disconnected:
	case <-time.After(servertest.StreamTimeout):
		t.Fatal("the provider never saw the first stream's connection close")
	}
	// The slot is free again once the server has seen the hang-up.
	for deadline := time.Now().Add(servertest.StreamTimeout); ; time.Sleep(20 * time.Millisecond) {
		provider.Chat(llmtest.Reply{Tokens: []string{"Back"}})
		st := send(w.ann, "again")
		if st.Response.StatusCode == http.StatusOK {
			if events := all(t, st); events[len(events)-1].Event != "done" {
				t.Fatalf("after the hang-up: %v", events)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no free stream after the hang-up: %d", st.Response.StatusCode)
		}
	}
	two.Close()
	// Nothing of the replies cut off was stored.
	for _, m := range w.ann.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)["messages"].([]any) {
		if c := m.(map[string]any)["content"]; c == "Thinking" || c == "Also" {
			t.Errorf("a cut-off reply was stored: %v", m)
		}
	}
}

// RULINGS "The assistant": without a provider, 503 as JSON before any
// stream; bad input 400; a key cannot send (session only).
func TestSendRefusals(t *testing.T) {
	t.Parallel()
	bare := newAssistantWorld(t)
	res := bare.ann.Session.Do(http.MethodPost, "/api/chat/send", map[string]any{"message": "hello"})
	servertest.WantStatus(t, res, http.StatusServiceUnavailable)
	if !strings.Contains(res.JSON(t)["error"].(string), "language model") {
		t.Errorf("503 body: %s", res.Body)
	}

	w, provider := chatWorld(t)
	for _, c := range []struct {
		name, body string
		want       int
	}{
		{"empty body", ``, http.StatusBadRequest},
		{"blank message", `{"message":"   "}`, http.StatusBadRequest},
		{"NUL", `{"message":"a\u0000b"}`, http.StatusBadRequest},
		{"invalid UTF-8", "{\"message\":\"a\xffb\"}", http.StatusBadRequest},
		{"over-long", `{"message":"` + strings.Repeat("x", 8001) + `"}`, http.StatusBadRequest},
		{"unknown field", `{"message":"hi","model":"gpt"}`, http.StatusBadRequest},
		{"not JSON", `message=hi`, http.StatusBadRequest},
	} {
		res := w.ann.Session.Do(http.MethodPost, "/api/chat/send", c.body)
		if res.Status != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, res.Status, res.Body, c.want)
		}
	}
	if res := w.srv.Anonymous().Do(http.MethodPost, "/api/chat/send", map[string]any{"message": "hi"}); res.Status != http.StatusUnauthorized {
		t.Errorf("anonymous: %d %s", res.Status, res.Body)
	}
	key := w.ann.NewKey("agent")
	res = w.srv.WithKey(key).Do(http.MethodPost, "/api/chat/send", map[string]any{"message": "hi"})
	if res.Status != http.StatusForbidden {
		t.Errorf("a key: %d %s", res.Status, res.Body)
	}
	if n := len(provider.Requests()); n != 0 {
		t.Errorf("the provider was called %d times by refused sends", n)
	}
	if got := w.ann.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)["messages"].([]any); len(got) != 0 {
		t.Errorf("refused sends stored %v", got)
	}
}

// The Connect twin streams the same events; a failure ends the stream with
// the error itself; a third stream is ResourceExhausted.
func TestSendChatConnect(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	client := switchboardv1connect.NewAssistantChatServiceClient(&http.Client{Jar: w.ann.Jar}, w.srv.URL)
	provider.Chat(llmtest.Reply{Tokens: []string{"Card: ", `[[create_card {"title":"Plan Q3"}]]`}})
	st, err := client.SendChat(context.Background(), &switchboardv1.SendChatRequest{Message: "Make a card for Q3"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var done string
	for st.Receive() {
		switch e := st.Msg().GetEvent().(type) {
		case *switchboardv1.SendChatResponse_Token:
			kinds = append(kinds, "token")
		case *switchboardv1.SendChatResponse_TagsExecuted:
			kinds = append(kinds, "tags_executed")
			if tags := e.TagsExecuted.GetTags(); len(tags) != 1 || !tags[0].GetOk() || tags[0].GetTag() != "create_card" {
				t.Errorf("tags: %v", tags)
			}
		case *switchboardv1.SendChatResponse_Done:
			kinds = append(kinds, "done")
			done = e.Done.GetMessageId()
		}
	}
	if err := st.Err(); err != nil || strings.Join(kinds, ",") != "token,token,tags_executed,done" || done == "" {
		t.Fatalf("stream: %v %v %q", err, kinds, done)
	}
	list, err := switchboardv1connect.NewAssistantServiceClient(&http.Client{Jar: w.ann.Jar}, w.srv.URL).
		ListAssistantMessages(context.Background(), &switchboardv1.ListAssistantMessagesRequest{})
	if err != nil || len(list.GetMessages()) != 2 || list.GetMessages()[1].GetId() != done {
		t.Fatalf("list: %v %v", err, list)
	}

	provider.Chat(llmtest.Reply{Tokens: []string{"x"}, Then: llmtest.Abort})
	st, err = client.SendChat(context.Background(), &switchboardv1.SendChatRequest{Message: "again"})
	if err != nil {
		t.Fatal(err)
	}
	for st.Receive() {
	}
	if connect.CodeOf(st.Err()) != connect.CodeUnavailable {
		t.Errorf("a failed reply over Connect: %v", st.Err())
	}

	bare := newAssistantWorld(t)
	st, err = switchboardv1connect.NewAssistantChatServiceClient(&http.Client{Jar: bare.ann.Jar}, bare.srv.URL).
		SendChat(context.Background(), &switchboardv1.SendChatRequest{Message: "hi"})
	if err == nil {
		for st.Receive() {
			t.Errorf("an event without a provider: %v", st.Msg())
		}
		err = st.Err()
	}
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnavailable {
		t.Errorf("no provider over Connect: %v", err)
	}
}

// GET /api/chat/messages pages from the newest back: default 30, each page
// oldest first, cursors neither overlapping nor leaving gaps.
func TestAssistantMessagesPaging(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	for i := range 16 {
		provider.Chat(llmtest.Reply{Tokens: []string{"reply " + string(rune('a'+i))}})
		all(t, send(w.ann, "message "+string(rune('a'+i))))
		w.srv.Clock.Advance(time.Second)
	}
	first := w.ann.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)
	msgs := first["messages"].([]any)
	pg := first["pagination"].(map[string]any)
	if len(msgs) != 30 || pg["hasMore"] != true || pg["limit"] != float64(30) {
		t.Fatalf("first page: %d messages, %v", len(msgs), pg)
	}
	if msgs[29].(map[string]any)["content"] != "reply p" || msgs[0].(map[string]any)["content"] != "message b" {
		t.Errorf("first page order: %v … %v", msgs[0], msgs[29])
	}
	second := w.ann.Session.Do(http.MethodGet, "/api/chat/messages?limit=30&cursor="+pg["cursor"].(string), nil).JSON(t)
	rest := second["messages"].([]any)
	if len(rest) != 2 || rest[0].(map[string]any)["content"] != "message a" || rest[1].(map[string]any)["content"] != "reply a" || second["pagination"].(map[string]any)["hasMore"] != false {
		t.Errorf("second page: %v", second)
	}
	for _, q := range []string{"limit=-1", "cursor=bogus", "cursor=%00"} {
		if res := w.ann.Session.Do(http.MethodGet, "/api/chat/messages?"+q, nil); res.Status != http.StatusBadRequest {
			t.Errorf("?%s: %d %s", q, res.Status, res.Body)
		}
	}
}
