package throughtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/apikey"
	"github.com/switchboard-hq/switchboard/ent/session"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// seen is what a client of either stream kind saw: each event's type (and
// the reason of an error event), then how the stream ended.
type seen struct {
	events chan seenEvent
	done   chan struct{}
	err    error // Connect: the error the stream ended with
}

type seenEvent struct{ typ, reason string }

// streamKinds open the chat stream with a credential (Authorization header
// pairs, or a cookie jar): SSE on HTTP/1.1 (the bus writes to the taken-over
// connection), SSE on HTTP/2 (the request's goroutine reads a channel), and
// Connect's StreamEvents.
var streamKinds = map[string]func(t *testing.T, s *servertest.Server, hdr []string, jar http.CookieJar) *seen{
	"sse-http1": func(t *testing.T, s *servertest.Server, hdr []string, jar http.CookieJar) *seen {
		return openSSE(t, s, &http.Client{Jar: jar}, hdr)
	},
	"sse-h2c": func(t *testing.T, s *servertest.Server, hdr []string, jar http.CookieJar) *seen {
		return openSSE(t, s, &http.Client{Jar: jar, Transport: s.H2C.Transport}, hdr)
	},
	"connect": func(t *testing.T, s *servertest.Server, hdr []string, jar http.CookieJar) *seen {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		c := switchboardv1connect.NewEventServiceClient(&http.Client{Jar: jar}, s.URL,
			connect.WithInterceptors(streamHeaders(hdr...)))
		st, err := c.StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		out := &seen{events: make(chan seenEvent, 1024), done: make(chan struct{})}
		go func() {
			defer close(out.done)
			for st.Receive() {
				out.events <- seenEvent{typ: st.Msg().GetEvent().GetType(), reason: st.Msg().GetEvent().GetReason()}
			}
			out.err = st.Err()
		}()
		return out
	},
}

func openSSE(t *testing.T, s *servertest.Server, client *http.Client, hdr []string) *seen {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+streamPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	out := &seen{events: make(chan seenEvent, 1024), done: make(chan struct{})}
	go func(body io.Reader) {
		defer close(out.done)
		servertest.ParseSSE(body, func(ev servertest.SSEEvent) {
			var data struct{ Type, Reason string }
			_ = json.Unmarshal([]byte(ev.Data), &data)
			if data.Type != ev.Event {
				data.Type = "mismatch:" + ev.Event + "/" + data.Type
			}
			out.events <- seenEvent{typ: data.Type, reason: data.Reason}
		})
	}(res.Body)
	return out
}

// next waits for the stream's next event; ok is false once it has ended.
func (s *seen) next(t *testing.T) (seenEvent, bool) {
	t.Helper()
	select {
	case ev := <-s.events:
		return ev, true
	case <-s.done:
		select {
		case ev := <-s.events:
			return ev, true
		default:
			return seenEvent{}, false
		}
	case <-time.After(servertest.StreamTimeout):
		t.Fatalf("the stream neither sent an event nor ended within %s", servertest.StreamTimeout)
	}
	return seenEvent{}, false
}

// until reads events up to one of type typ.
func (s *seen) until(t *testing.T, typ string) {
	t.Helper()
	for {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("the stream ended before a %s event (%v)", typ, s.err)
		}
		if ev.typ == typ {
			return
		}
	}
}

// rest reads the stream to its end and answers its last event; more than
// maxBeats heartbeats before the end fail the test.
func (s *seen) rest(t *testing.T, maxBeats int) (last seenEvent) {
	t.Helper()
	beats := 0
	for {
		ev, ok := s.next(t)
		if !ok {
			return last
		}
		if ev.typ == events.TypeHeartbeat {
			if beats++; beats > maxBeats {
				t.Fatalf("still open after %d heartbeats since its credential ended", beats)
			}
		}
		last = ev
	}
}

// credential is one way to open a stream and to end what opened it.
type credential struct {
	name   string
	reason string       // of the SSE error event
	code   connect.Code // of the Connect stream's end
	// open answers the request headers and cookie jar of a new credential
	// of acct, and end ends that credential.
	open func(t *testing.T, s *servertest.Server, acct *servertest.Account) (hdr []string, jar http.CookieJar, end func())
}

// keyCredential makes a key; end runs ending on its id.
func keyCredential(ending func(t *testing.T, s *servertest.Server, acct *servertest.Account, keyID string)) func(*testing.T, *servertest.Server, *servertest.Account) ([]string, http.CookieJar, func()) {
	return func(t *testing.T, s *servertest.Server, acct *servertest.Account) ([]string, http.CookieJar, func()) {
		key := acct.NewKey("streamer", "chat")
		id := s.DB.APIKey.Query().Where(apikey.LabelEQ("streamer"), apikey.UserID(acct.ID)).OnlyIDX(context.Background())
		return []string{"Authorization", "Bearer " + key}, nil, func() { ending(t, s, acct, id) }
	}
}

// sessionCredential uses the account's session (its cookie jar).
func sessionCredential(ending func(t *testing.T, s *servertest.Server, acct *servertest.Account)) func(*testing.T, *servertest.Server, *servertest.Account) ([]string, http.CookieJar, func()) {
	return func(t *testing.T, s *servertest.Server, acct *servertest.Account) ([]string, http.CookieJar, func()) {
		// A jar of the stream's own, so that logout clearing the account's
		// cookie does not change what the stream presented.
		jar, _ := cookiejar.New(nil)
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/", nil)
		jar.SetCookies(req.URL, acct.Jar.Cookies(req.URL))
		return nil, jar, func() { ending(t, s, acct) }
	}
}

// RULINGS "Streams and credentials": deleting (deactivating) the key or
// logging out ends the streams it opened at once, on this replica, with a
// final error event on SSE and the refusal a new request would get on
// Connect. The heartbeat is an hour: the stream ending at all, with no
// heartbeat, shows it ended at once. The account's other streams go on.
func TestStreamsEndAtOnceWithTheirCredential(t *testing.T) {
	s := servertest.New(t, servertest.WithHeartbeat(time.Hour))
	creds := []credential{
		{name: "key deleted", reason: events.ReasonKeyInactive, code: connect.CodePermissionDenied,
			open: keyCredential(func(t *testing.T, s *servertest.Server, acct *servertest.Account, id string) {
				if res := acct.Session.Do(http.MethodDelete, "/api/v2/keys/"+id, nil); res.Status != http.StatusOK {
					t.Fatalf("delete key: %d %s", res.Status, res.Body)
				}
			})},
		{name: "logged out", reason: events.ReasonSessionEnded, code: connect.CodeUnauthenticated,
			open: sessionCredential(func(t *testing.T, s *servertest.Server, acct *servertest.Account) {
				if res := acct.Session.Do(http.MethodPost, "/api/auth/logout", `{}`); res.Status != http.StatusOK {
					t.Fatalf("logout: %d %s", res.Status, res.Body)
				}
			})},
	}
	n := 0
	for _, c := range creds {
		for kind, open := range streamKinds {
			n++
			acct := s.SignUp("user" + string(rune('a'+n)))
			other := acct.NewKey("other", "chat")
			hdr, jar, end := c.open(t, s, acct)
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				stays := open(t, s, []string{"Authorization", "Bearer " + other}, nil)
				st := open(t, s, hdr, jar)
				st.until(t, events.TypeConnected)
				stays.until(t, events.TypeConnected)
				end()
				checkEnd(t, kind, c, st, st.rest(t, 0))
				// Another credential's stream of the same account goes on.
				if res := s.WithKey(other).Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "still here"}); res.Status != http.StatusCreated {
					t.Fatalf("send: %d %s", res.Status, res.Body)
				}
				stays.until(t, events.TypeNewMessage)
			})
		}
	}
}

// checkEnd: the stream ended, SSE with the error event naming why, Connect
// with the refusal's code.
func checkEnd(t *testing.T, kind string, c credential, st *seen, last seenEvent) {
	t.Helper()
	if kind == "connect" {
		if code := connect.CodeOf(st.err); code != c.code || last.typ == events.TypeError {
			t.Errorf("connect stream ended with %v after %+v, want %v", st.err, last, c.code)
		}
		return
	}
	if last.typ != events.TypeError || last.reason != c.reason {
		t.Errorf("last SSE event %+v, want error with reason %s", last, c.reason)
	}
}

// RULINGS "Streams and credentials": a key deactivated or expired, or a
// session ended or expired, where this replica is not told (another replica,
// the clock) ends its streams at the next heartbeat, which asks the database
// (not the key cache). After a heartbeat the credential ends; at most the
// heartbeat in flight and one more arrive before the stream's end.
func TestStreamsEndWithinAHeartbeatOfTheirCredential(t *testing.T) {
	s := servertest.New(t, servertest.WithHeartbeat(300*time.Millisecond))
	past := func() time.Time { return s.Clock.Now().Add(-time.Minute) }
	creds := []credential{
		{name: "key deactivated elsewhere", reason: events.ReasonKeyInactive, code: connect.CodePermissionDenied,
			open: keyCredential(func(t *testing.T, s *servertest.Server, _ *servertest.Account, id string) {
				s.DB.APIKey.UpdateOneID(id).SetActive(false).ExecX(context.Background())
			})},
		{name: "key expired", reason: events.ReasonKeyInactive, code: connect.CodePermissionDenied,
			open: keyCredential(func(t *testing.T, s *servertest.Server, _ *servertest.Account, id string) {
				s.DB.APIKey.UpdateOneID(id).SetExpiresAt(past()).ExecX(context.Background())
			})},
		{name: "session ended elsewhere", reason: events.ReasonSessionEnded, code: connect.CodeUnauthenticated,
			open: sessionCredential(func(t *testing.T, s *servertest.Server, acct *servertest.Account) {
				s.DB.Session.Delete().Where(session.UserID(acct.ID)).ExecX(context.Background())
			})},
		{name: "session expired", reason: events.ReasonSessionEnded, code: connect.CodeUnauthenticated,
			open: sessionCredential(func(t *testing.T, s *servertest.Server, acct *servertest.Account) {
				s.DB.Session.Update().Where(session.UserID(acct.ID)).SetExpiresAt(past()).ExecX(context.Background())
			})},
	}
	n := 0
	for _, c := range creds {
		for kind, open := range streamKinds {
			n++
			acct := s.SignUp("user" + string(rune('a'+n)))
			hdr, jar, end := c.open(t, s, acct)
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				st := open(t, s, hdr, jar)
				st.until(t, events.TypeConnected)
				st.until(t, events.TypeHeartbeat) // just after a heartbeat's check
				end()
				checkEnd(t, kind, c, st, st.rest(t, 2))
			})
		}
	}
}
