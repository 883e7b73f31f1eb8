package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// contactsFixture is a server with two accounts, ann and bob, each with a key.
type contactsFixture struct {
	s        *servertest.Server
	ann, bob *servertest.Account
	annKey   string
	bobKey   string
	api      *servertest.Caller // ann's key on REST
	bobAPI   *servertest.Caller
}

// newContactsFixture starts the server; call it before t.Parallel(), since ent's
// migration is not safe to run concurrently.
func newContactsFixture(t *testing.T) *contactsFixture {
	t.Helper()
	s := servertest.New(t)
	f := &contactsFixture{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob")}
	f.annKey, f.bobKey = f.ann.NewKey("agent"), f.bob.NewKey("bob-agent")
	f.api, f.bobAPI = s.WithKey(f.annKey), s.WithKey(f.bobKey)
	return f
}

// client is a Connect client over protocol (a key of servertest.Protocols).
func (f *contactsFixture) client(protocol, key string) switchboardv1connect.ContactServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewContactServiceClient(f.s.Client(protocol), f.s.URL, opts...)
}

// create makes a contact over REST and answers it.
func (f *contactsFixture) create(t *testing.T, api *servertest.Caller, body any) map[string]any {
	t.Helper()
	res := api.Do(http.MethodPost, "/api/v2/contacts", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["contact"].(map[string]any)
}

// list answers GET /api/v2/contacts with the query q.
func (f *contactsFixture) list(t *testing.T, api *servertest.Caller, q url.Values) map[string]any {
	t.Helper()
	res := api.Do(http.MethodGet, "/api/v2/contacts?"+q.Encode(), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list ?%s: %d %s", q.Encode(), res.Status, res.Body)
	}
	return res.JSON(t)
}

func contactNames(list map[string]any) []string {
	var out []string
	for _, c := range list["contacts"].([]any) {
		out = append(out, c.(map[string]any)["name"].(string))
	}
	return out
}

// newCard makes a card for userID directly in the database (the kanban
// service is not what is under test here).
func (f *contactsFixture) newCard(t *testing.T, userID, title string, edit func(*ent.CardCreate)) *ent.Card {
	t.Helper()
	c := f.s.DB.Card.Create().SetUserID(userID).SetTitle(title)
	if edit != nil {
		edit(c)
	}
	row, err := c.Save(context.Background())
	if err != nil {
		t.Fatalf("create card: %v", err)
	}
	return row
}

// link puts a contact on a card directly in the database.
func (f *contactsFixture) link(t *testing.T, userID, cardID, contactID string, at time.Time, edit func(*ent.CardContactCreate)) *ent.CardContact {
	t.Helper()
	c := f.s.DB.CardContact.Create().SetUserID(userID).SetCardID(cardID).SetContactID(contactID).SetCreatedAt(at)
	if edit != nil {
		edit(c)
	}
	row, err := c.Save(context.Background())
	if err != nil {
		t.Fatalf("link card: %v", err)
	}
	return row
}

// contactRowCounts are the rows a contact write may touch.
type contactRowCounts struct{ contacts, cardContacts, activity int }

func (f *contactsFixture) counts(t *testing.T) contactRowCounts {
	t.Helper()
	ctx := context.Background()
	var rc contactRowCounts
	var err error
	if rc.contacts, err = f.s.DB.Contact.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	if rc.cardContacts, err = f.s.DB.CardContact.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	if rc.activity, err = f.s.DB.ActivityEntry.Query().Count(ctx); err != nil {
		t.Fatal(err)
	}
	return rc
}

// activity answers the account's contact activity, oldest first.
func (f *contactsFixture) activity(t *testing.T, userID string) []*ent.ActivityEntry {
	t.Helper()
	rows, err := f.s.DB.ActivityEntry.Query().
		Where(activityentry.UserID(userID), activityentry.Category("crm")).
		Order(ent.Asc(activityentry.FieldCreatedAt), ent.Asc(activityentry.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func metadata(t *testing.T, e *ent.ActivityEntry) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.Metadata), &m); err != nil {
		t.Fatalf("activity metadata %q: %v", e.Metadata, err)
	}
	return m
}
