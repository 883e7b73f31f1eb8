package throughtest

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Idempotency": a retry with the same key and body answers the
// stored status and body with Idempotent-Replayed: true and makes nothing;
// the same key with another body is 422 and makes nothing. White space and
// key order are not a different body (docs/decisions.md, "Idempotency").
func TestRESTRetriesReplay(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	api := s.WithKey(acct.NewKey("agent"))
	for _, c := range creates {
		t.Run(c.name, func(t *testing.T) {
			key := "retry-" + c.name
			before := c.count(t, s, acct.ID)
			first := keyed(api, http.MethodPost, c.path, key, c.body("1"))
			servertest.WantStatus(t, first, http.StatusCreated)
			if first.Header.Get(replayedHeader) != "" {
				t.Fatalf("a first answer is marked replayed")
			}
			for _, body := range []string{c.body("1"), " " + c.body("1") + "\n"} {
				again := keyed(api, http.MethodPost, c.path, key, body)
				servertest.WantStatus(t, again, http.StatusCreated)
				if again.Header.Get(replayedHeader) != "true" || !bytes.Equal(again.Body, first.Body) ||
					again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
					t.Fatalf("retry not replayed: %v %s, first %s", again.Header, again.Body, first.Body)
				}
			}
			servertest.WantErrorContaining(t, keyed(api, http.MethodPost, c.path, key, c.body("2")), http.StatusUnprocessableEntity, "different request")
			if n := c.count(t, s, acct.ID) - before; n != 1 {
				t.Fatalf("%d rows made by retries, want 1", n)
			}
		})
	}
}

// The same over the Connect protocol, JSON and binary, with the generated
// clients: the replayed answer is the same message and header.
func TestConnectRetriesReplay(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	key := acct.NewKey("agent")
	for _, protocol := range []string{"connect+json", "connect+proto"} {
		t.Run(protocol, func(t *testing.T) {
			opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
			queue := switchboardv1connect.NewQueueServiceClient(s.HTTP, s.URL, opts...)
			kanban := switchboardv1connect.NewKanbanServiceClient(s.HTTP, s.URL, opts...)
			chat := switchboardv1connect.NewSharedChatServiceClient(s.HTTP, s.URL, opts...)
			calls := []struct {
				name  string
				call  func(key, text string) (proto.Message, connect.CallInfo, error)
				count func(t *testing.T, s *servertest.Server, userID string) int
			}{
				{"queue item", func(k, text string) (proto.Message, connect.CallInfo, error) {
					ctx, info := withKey(t.Context(), k)
					res, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: text})
					return res, info, err
				}, creates[0].count},
				{"card", func(k, text string) (proto.Message, connect.CallInfo, error) {
					ctx, info := withKey(t.Context(), k)
					res, err := kanban.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: &text}})
					return res, info, err
				}, creates[1].count},
				{"chat message", func(k, text string) (proto.Message, connect.CallInfo, error) {
					ctx, info := withKey(t.Context(), k)
					res, err := chat.SendMessage(ctx, &switchboardv1.SendMessageRequest{Content: text})
					return res, info, err
				}, creates[2].count},
			}
			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					before := c.count(t, s, acct.ID)
					k := protocol + " " + c.name
					first, info, err := c.call(k, "one")
					if err != nil || info.ResponseHeader().Get(replayedHeader) != "" {
						t.Fatalf("first: %v %v", err, info.ResponseHeader())
					}
					again, info, err := c.call(k, "one")
					if err != nil || info.ResponseHeader().Get(replayedHeader) != "true" || !proto.Equal(first, again) {
						t.Fatalf("retry: %v %v\n%v\n%v", err, info.ResponseHeader(), first, again)
					}
					_, _, err = c.call(k, "two")
					servertest.WantCode(t, err, connect.CodeFailedPrecondition)
					if n := c.count(t, s, acct.ID) - before; n != 1 {
						t.Fatalf("%d rows made, want 1", n)
					}
				})
			}
		})
	}
}

// A key belongs to one credential (RULINGS "Idempotency"): another key of
// the same account, or its session, with the same Idempotency-Key makes its
// own row; and a key is free again 24 hours after its first use (on the
// server's clock), not a moment before.
func TestKeysArePerCredentialAndLast24Hours(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	one, two := s.WithKey(acct.NewKey("one")), s.WithKey(acct.NewKey("two"))
	c := creates[0]
	for i, caller := range []*servertest.Caller{one, two, acct.Session} {
		res := keyed(caller, http.MethodPost, c.path, "shared", c.body("1"))
		servertest.WantStatus(t, res, http.StatusCreated)
		if res.Header.Get(replayedHeader) != "" || c.count(t, s, acct.ID) != i+1 {
			t.Fatalf("caller %d: replayed another credential's answer", i)
		}
	}
	s.Clock.Advance(24*time.Hour - time.Second)
	if res := keyed(one, http.MethodPost, c.path, "shared", c.body("1")); res.Header.Get(replayedHeader) != "true" {
		t.Fatalf("not replayed within 24 hours: %d %s", res.Status, res.Body)
	}
	s.Clock.Advance(time.Second)
	res := keyed(one, http.MethodPost, c.path, "shared", c.body("2"))
	servertest.WantStatus(t, res, http.StatusCreated)
	if res.Header.Get(replayedHeader) != "" || c.count(t, s, acct.ID) != 4 {
		t.Fatalf("key not free after 24 hours: %v", res.Header)
	}
}
