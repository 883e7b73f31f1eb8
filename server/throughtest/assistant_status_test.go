package throughtest

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// Issue 31 point 9: a provider that cannot be reached is said so, naming its
// base URL (never its key, nor the URL's user information), over the SSE
// route and Connect; nothing of the reply is kept.
func TestProviderUnreachableNamesTheURL(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	srv := servertest.New(t, servertest.WithLLMClient(llm.New(llm.Config{
		BaseURL: "http://operator:hunter2@" + addr + "/v1?token=q1", APIKey: "sk-very-secret", Model: "m",
		Timeouts: llm.Timeouts{Backoff: 1}})))
	ann := srv.SignUp("ann")
	want := "http://" + addr + "/v1"
	check := func(how, msg string) {
		t.Helper()
		if !strings.Contains(msg, "could not be reached") || !strings.Contains(msg, want) || !strings.Contains(msg, "refused") {
			t.Errorf("%s: %q, want it to say the provider at %s could not be reached", how, msg, want)
		}
		for _, secret := range []string{"sk-very-secret", "hunter2", "operator", "token=q1"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: %q shows %q", how, msg, secret)
			}
		}
	}
	events := all(t, send(ann, "hello"))
	last := events[len(events)-1]
	if last.Event != "error" {
		t.Fatalf("events: %v", events)
	}
	check("SSE", last.JSON(t)["error"].(string))

	st, err := switchboardv1connect.NewAssistantChatServiceClient(sessionHTTP(srv, ann), srv.URL).
		SendChat(t.Context(), &switchboardv1.SendChatRequest{Message: "hello again"})
	if err != nil {
		t.Fatal(err)
	}
	for st.Receive() {
		t.Errorf("an event from an unreachable provider: %v", st.Msg())
	}
	servertest.WantCode(t, st.Err(), connect.CodeUnavailable)
	if ce, ok := errors.AsType[*connect.Error](st.Err()); ok {
		check("Connect", ce.Message())
	}
	msgs := ann.Session.Do(http.MethodGet, "/api/chat/messages", nil).JSON(t)["messages"].([]any)
	for _, m := range msgs {
		if m.(map[string]any)["role"] == "assistant" {
			t.Errorf("a reply was kept: %v", m)
		}
	}
}

// GET /api/chat/status tells the dashboard what the model can do: with no
// transcription model voice is off with its reason; with none at all the
// chat too; with every model, nothing is off.
func TestAssistantStatus(t *testing.T) {
	t.Parallel()
	provider := llmtest.New(t)
	for _, c := range []struct {
		name                string
		opt                 servertest.Option
		chat, voice, images bool
		chatWhy, voiceWhy   string
	}{
		{"no model", nil, false, false, false, "language model", "transcription model"},
		{"chat only", servertest.WithLLMClient(llm.New(llm.Config{BaseURL: provider.URL, Model: "m"})), true, false, false, "", "--llm-transcription-model"},
		{"every model", servertest.WithLLM(provider.URL), true, true, true, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []servertest.Option
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			srv := servertest.New(t, opts...)
			ann := srv.SignUp("ann")
			res := ann.Session.Do(http.MethodGet, "/api/chat/status", nil)
			servertest.WantStatus(t, res, http.StatusOK)
			b := res.JSON(t)
			if b["chat"] != c.chat || b["voice"] != c.voice || b["images"] != c.images {
				t.Errorf("status: %v", b)
			}
			for field, why := range map[string]string{"chatUnavailable": c.chatWhy, "voiceUnavailable": c.voiceWhy} {
				got, present := b[field].(string)
				if why == "" && present || why != "" && !strings.Contains(got, why) {
					t.Errorf("%s = %q, want it to name %q", field, got, why)
				}
			}
			key := ann.NewKey("agent", "chat")
			servertest.WantStatus(t, srv.WithKey(key).Do(http.MethodGet, "/api/chat/status", nil), http.StatusForbidden)
		})
	}
}
