package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// board is a server with one account (ann) and an API key for her.
type board struct {
	s   *servertest.Server
	ann *servertest.Account
	key string
	api *servertest.Caller
}

func newBoard(t *testing.T) *board {
	t.Helper()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("agent-007", "kanban")
	// The every-field fixtures file their cards under this project.
	leadProject(t, s, ann.ID, "v-project_id")
	return &board{s: s, ann: ann, key: key, api: s.WithKey(key)}
}

// client is a Connect client with ann's key.
func (b *board) client(protocol string) switchboardv1connect.KanbanServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(b.key)))
	return switchboardv1connect.NewKanbanServiceClient(b.s.Client(protocol), b.s.URL, opts...)
}

// sessionClient is a Connect client with an account's session cookie.
func sessionClient(s *servertest.Server, a *servertest.Account, protocol string) switchboardv1connect.KanbanServiceClient {
	hc := &http.Client{Jar: a.Jar, Transport: s.Client(protocol).Transport, Timeout: s.HTTP.Timeout}
	return switchboardv1connect.NewKanbanServiceClient(hc, s.URL, servertest.Protocols()[protocol]...)
}

// rpc calls a Connect procedure with JSON over plain HTTP, to read the RPC
// rendering byte for byte.
func rpc(c *servertest.Caller, method string, body any) *servertest.Response {
	return c.Do(http.MethodPost, "/switchboard.v1.KanbanService/"+method, body)
}

// create makes a card over REST and answers its JSON.
func (b *board) create(t *testing.T, body any) map[string]any {
	t.Helper()
	res := b.api.Do(http.MethodPost, "/api/v2/kanban", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["card"].(map[string]any)
}

func (b *board) get(t *testing.T, id string) map[string]any {
	t.Helper()
	res := b.api.Do(http.MethodGet, "/api/v2/kanban/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, res.Status, res.Body)
	}
	return res.JSON(t)["card"].(map[string]any)
}

func (b *board) contact(t *testing.T, userID, name string, set func(*ent.ContactCreate)) *ent.Contact {
	t.Helper()
	c := b.s.DB.Contact.Create().SetUserID(userID).SetName(name)
	if set != nil {
		set(c)
	}
	return c.SaveX(context.Background())
}

// rows counts what a refused request must not have written.
type rows struct{ cards, items, links, entries int }

func (b *board) count(t *testing.T) rows {
	t.Helper()
	ctx := context.Background()
	return rows{
		cards:   b.s.DB.Card.Query().CountX(ctx),
		items:   b.s.DB.ChecklistItem.Query().CountX(ctx),
		links:   b.s.DB.CardContact.Query().CountX(ctx),
		entries: b.s.DB.ActivityEntry.Query().CountX(ctx),
	}
}

// actions lists the actions recorded for a card, oldest first, own entries only.
func (b *board) actions(t *testing.T, cardID string) []string {
	t.Helper()
	es := b.s.DB.ActivityEntry.Query().Where(activityentry.CardID(cardID), activityentry.IsCrossUser(false)).
		Order(ent.Asc(activityentry.FieldCreatedAt), ent.Asc(activityentry.FieldID)).AllX(context.Background())
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Action
	}
	return out
}
