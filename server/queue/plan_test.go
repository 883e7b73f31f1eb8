package queue

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/auth"
	pagepkg "github.com/switchboard-hq/switchboard/server/page"
)

// Issue 34 point 2 (and issue 32 point 5): the queue's page on PostgreSQL
// walks the (user_id, created_at) index whatever the statistics. Its LIMIT
// and OFFSET are parameters (pageQuery), so the statement the driver
// prepares gets the generic plan, which is what this test explains, on a
// table of 3,000 of one account's rows that no ANALYZE has seen since they
// were written. With the page size written into the statement the planner
// took the account's rows for a handful and read and sorted all of them.
func TestQueuePageWalksTheIndexWithoutStatistics(t *testing.T) {
	d := dbtest.Open(t)
	if d.Dialect != dialect.Postgres {
		t.Logf("a PostgreSQL plan: absent on the SQLite leg (%s)", dbtest.TestPostgresEnv)
		return
	}
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	u, err := d.Client.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("Ann").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC().Add(-time.Hour)
	for lo := 0; lo < 3000; lo += 500 {
		rows := make([]*ent.QueueItemCreate, 0, 500)
		for i := lo; i < lo+500; i++ {
			at := base.Add(time.Duration(i) * time.Millisecond)
			rows = append(rows, d.Client.QueueItem.Create().SetUserID(u.ID).SetTitle(fmt.Sprint("item ", i)).SetCreatedAt(at).SetUpdatedAt(at))
		}
		if err := d.Client.QueueItem.CreateBulk(rows...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}

	svc := &Service{DB: d, Now: time.Now}
	page, err := svc.ListQueueItems(auth.WithPrincipal(ctx, &auth.Principal{UserID: u.ID}), &switchboardv1.ListQueueItemsRequest{Limit: 50, Offset: 100})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(page.GetData().GetItems()); n != 50 || page.GetData().GetItems()[0].GetTitle() != "item 2899" {
		t.Fatalf("page at offset 100: %d items, first %q, want 50 from item 2899", n, page.GetData().GetItems()[0].GetTitle())
	}
	// The statement the list sends for that page.
	stmt, args := pageQuery(d.Dialect, []predicate.QueueItem{queueitem.UserID(u.ID)}, pagepkg.Request{Limit: 50, Offset: 100})
	if strings.Contains(stmt, "LIMIT 50") || !strings.Contains(stmt, "LIMIT $") || !strings.Contains(stmt, "OFFSET $") {
		t.Fatalf("the page's statement does not take its limit and offset as parameters: %q", stmt)
	}

	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "PREPARE queue_page AS "+stmt); err != nil {
		t.Fatal(err)
	}
	lits := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		default:
			lits[i] = fmt.Sprint(v)
		}
	}
	p := dbtest.Plan(t, conn, "EXPLAIN EXECUTE queue_page("+strings.Join(lits, ", ")+")")
	if !strings.Contains(p, "Index Scan Backward using queueitem_user_id_created_at") || strings.Contains(p, "Bitmap Heap Scan") || strings.Contains(p, "Seq Scan") {
		t.Fatalf("the page's generic plan does not walk the (user_id, created_at) index:\n%s", p)
	}
}
