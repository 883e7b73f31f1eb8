package queue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/page"
)

// The list's page is scanned straight into protos (pageread.go); every item
// must be exactly toProto of ent's row: the same fields present, the same
// values, empty text absent and NULL absent, on both databases. The items
// vary every optional column between NULL, empty and set, and the pages
// cover a filter, an offset and the end of the rows.
func TestPageReadIsToProtoOfEntsRows(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	u, err := d.Client.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("Ann").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := d.Client.User.Create().SetUsername("bob").SetEmail("bob@example.com").SetName("Bob").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	texts := []*string{nil, proto.String(""), proto.String("set")}
	for i := range 12 {
		txt := func(k int) *string {
			v := texts[(i+k)%3]
			if v != nil && *v == "set" {
				return proto.String(fmt.Sprintf("v%d-%d", i, k))
			}
			return v
		}
		at := base.Add(time.Duration(i) * time.Second)
		c := d.Client.QueueItem.Create().SetUserID(u.ID).SetTitle(fmt.Sprintf("Item %d", i)).
			SetStatus([]queueitem.Status{queueitem.StatusReady, queueitem.StatusLater, queueitem.StatusBlocked}[i%3]).
			SetPriority(queueitem.PriorityHigh).SetNillableDescription(txt(0)).SetNillableSource(txt(1)).
			SetNillableProjectID(txt(2)).SetNillableTeamID(txt(3)).SetNillableCardID(txt(4)).SetNillableParentTaskID(txt(5)).
			SetNillableDependsOn(txt(6)).SetNillableRequesterEmail(txt(7)).SetNillableRequesterName(txt(8)).
			SetNillableExecutionID(txt(9)).SetNillableCallbackURL(txt(10)).SetNillableSourceInstanceName(txt(11)).
			SetNillableProjectRequestID(txt(12)).SetCreatedAt(at).SetUpdatedAt(at.Add(time.Minute))
		if i%2 == 0 {
			c.SetSubtaskOrder(int32(i))
		}
		if i%4 == 1 {
			c.SetMetadata(`{"k":1}`)
		}
		if _, err := c.Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Client.QueueItem.Create().SetUserID(other.ID).SetTitle("Not ann's").Save(ctx); err != nil {
		t.Fatal(err)
	}
	svc := &Service{DB: d, Now: time.Now}
	for _, c := range []struct {
		name  string
		where []predicate.QueueItem
		pg    page.Request
	}{
		{"first page", []predicate.QueueItem{queueitem.UserID(u.ID)}, page.Request{Limit: 5}},
		{"offset", []predicate.QueueItem{queueitem.UserID(u.ID)}, page.Request{Limit: 5, Offset: 5}},
		{"the end", []predicate.QueueItem{queueitem.UserID(u.ID)}, page.Request{Limit: 50, Offset: 10}},
		{"a status", []predicate.QueueItem{queueitem.UserID(u.ID), queueitem.StatusEQ(queueitem.StatusLater)}, page.Request{Limit: 50}},
	} {
		got, err := svc.readPage(ctx, c.where, c.pg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rows, err := d.Client.QueueItem.Query().Where(c.where...).
			Order(ent.Desc(queueitem.FieldCreatedAt), ent.Desc(queueitem.FieldID)).Offset(c.pg.Offset).Limit(c.pg.Limit).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) || len(rows) == 0 {
			t.Fatalf("%s: %d items read, ent reads %d", c.name, len(got), len(rows))
		}
		for i, r := range rows {
			if want := toProto(r); !proto.Equal(got[i], want) {
				t.Errorf("%s, item %d:\nread %v\nent  %v", c.name, i, got[i], want)
			}
		}
	}
}
