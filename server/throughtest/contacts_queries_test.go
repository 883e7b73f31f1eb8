package throughtest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contacts"
)

// The list loads card links in batches: the number of queries does not grow
// with the number of contacts or links on the page.
func TestListQueriesDoNotGrowWithThePage(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	var queries atomic.Int32
	counted := dialect.DebugWithContext(entsql.OpenDB(f.s.DB.Dialect, f.s.DB.SQL), func(context.Context, ...any) {
		queries.Add(1)
	})
	svc := &contacts.Service{
		DB:  &db.DB{Client: ent.NewClient(ent.Driver(counted)), Dialect: f.s.DB.Dialect, SQL: f.s.DB.SQL},
		Now: f.s.Clock.Now,
	}
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{UserID: f.ann.ID, Name: "Ann", Via: auth.ViaSession})
	list := func() (int, int32) {
		queries.Store(0)
		res, err := svc.ListContacts(ctx, &switchboardv1.ListContactsRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.GetContacts()), queries.Load()
	}
	seed := func(n int) {
		for i := range n {
			id := f.create(t, f.api, map[string]any{"name": fmt.Sprintf("c%03d", i)})["id"].(string)
			for j := range 2 {
				c := f.newCard(t, f.ann.ID, fmt.Sprintf("card %d/%d", i, j), nil)
				f.link(t, f.ann.ID, c.ID, id, f.s.Clock.Now(), nil)
			}
		}
	}
	seed(2)
	n, few := list()
	if n != 2 {
		t.Fatalf("listed %d", n)
	}
	seed(40)
	n, many := list()
	if n != 42 {
		t.Fatalf("listed %d", n)
	}
	// A count, the page, the links, their cards.
	if few != many || many > 4 {
		t.Fatalf("queries: %d for 2 contacts, %d for 42; want the same, at most 4", few, many)
	}
}
