package throughtest

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const (
	keyHeader      = "Idempotency-Key"
	replayedHeader = "Idempotent-Replayed"
)

// create is one creating POST of the acceptance list and how to count what it made.
type create struct {
	name, path string
	body       func(n string) string
	count      func(t *testing.T, s *servertest.Server, userID string) int
}

// creates are the creations RULINGS "Idempotency" names: a queue item, a
// card and a chat message (an execution has its own tests).
var creates = []create{
	{"queue item", "/api/v2/queue", func(n string) string { return `{"title":"Task ` + n + `"}` },
		func(t *testing.T, s *servertest.Server, u string) int {
			return must(t)(s.DB.QueueItem.Query().Where(queueitem.UserIDEQ(u)).Count(t.Context()))
		}},
	{"card", "/api/v2/kanban", func(n string) string { return `{"title":"Card ` + n + `"}` },
		func(t *testing.T, s *servertest.Server, u string) int {
			return must(t)(s.DB.Card.Query().Where(card.UserIDEQ(u)).Count(t.Context()))
		}},
	{"chat message", "/api/v2/shared-chat/send", func(n string) string { return `{"content":"Hello ` + n + `"}` },
		func(t *testing.T, s *servertest.Server, u string) int {
			return must(t)(s.DB.ChatMessage.Query().Where(chatmessage.UserIDEQ(u)).Count(t.Context()))
		}},
}

func must(t *testing.T) func(int, error) int {
	return func(n int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

func executions(t *testing.T, s *servertest.Server, userID string) int {
	return must(t)(s.DB.Execution.Query().Where(execution.UserIDEQ(userID)).Count(t.Context()))
}

// keyed calls with an Idempotency-Key.
func keyed(c *servertest.Caller, method, path, key, body string) *servertest.Response {
	return c.Do(method, path, body, keyHeader, key)
}

// withKey is a Connect call context carrying an Idempotency-Key; info reads
// the answer's headers afterwards.
func withKey(ctx context.Context, key string) (context.Context, connect.CallInfo) {
	ctx, info := connect.NewClientContext(ctx)
	info.RequestHeader().Set(keyHeader, key)
	return ctx, info
}
