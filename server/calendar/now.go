package calendar

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/calendarevent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/calendar/rules"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/queue"
)

var (
	_ switchboardv1connect.NowServiceHandler = (*Now)(nil)
	_ switchboardv1.NowServiceServer         = (*Now)(nil)
)

// Now implements NowService: the one Now order, which the dashboard's Now
// view and the MCP briefing read.
type Now struct {
	DB  *db.DB
	Now func() time.Time
}

// GetNow pages the caller's items awaiting approval in the Now order.
func (n *Now) GetNow(ctx context.Context, req *switchboardv1.GetNowRequest) (*switchboardv1.GetNowResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	ranked, err := Order(ctx, n.DB.Client, p.UserID, n.Now().UTC())
	if err != nil {
		return nil, err
	}
	total := len(ranked)
	end := min(pg.Offset+pg.Limit, total)
	ranked = ranked[min(pg.Offset, total):end]
	items, err := Entries(ctx, n.DB.Client, p.UserID, ranked, n.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetNowResponse{Items: items, Pagination: pg.Of(total, len(items))}, nil
}

// Order is userID's items awaiting approval in the Now order at now: all of
// them (the order needs every title), read lightly; Entries renders a page.
func Order(ctx context.Context, c *ent.Client, userID string, now time.Time) ([]rules.Ranked, error) {
	rows, err := c.QueueItem.Query().
		Where(queueitem.UserID(userID), queueitem.StatusEQ(queueitem.Status(vocab.QueueStatusPendingConfirmation))).
		Select(queueitem.FieldID, queueitem.FieldTitle, queueitem.FieldPriority, queueitem.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	events, err := Soon(ctx, c, userID, now)
	if err != nil {
		return nil, err
	}
	items := make([]rules.Item, 0, len(rows))
	for _, r := range rows {
		items = append(items, rules.Item{ID: r.ID, Title: r.Title, Priority: string(r.Priority), CreatedAt: r.CreatedAt})
	}
	return rules.Order(items, events, now), nil
}

// Soon are userID's events that correlate at now (starting within the window).
func Soon(ctx context.Context, c *ent.Client, userID string, now time.Time) ([]rules.Event, error) {
	rows, err := c.CalendarEvent.Query().Where(calendarevent.UserID(userID),
		calendarevent.StartsAtGT(now), calendarevent.StartsAtLTE(now.Add(rules.Window))).
		Select(calendarevent.FieldID, calendarevent.FieldTitle, calendarevent.FieldStartsAt).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]rules.Event, 0, len(rows))
	for _, r := range rows {
		out = append(out, rules.Event{ID: r.ID, Title: r.Title, StartsAt: r.StartsAt})
	}
	return out, nil
}

// Entries renders ranked items whole, in their order, with their boosts.
func Entries(ctx context.Context, c *ent.Client, userID string, ranked []rules.Ranked, now time.Time) ([]*switchboardv1.NowEntry, error) {
	ids := make([]string, 0, len(ranked))
	for _, r := range ranked {
		ids = append(ids, r.ID)
	}
	rows, err := c.QueueItem.Query().Where(queueitem.UserID(userID), queueitem.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*ent.QueueItem, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]*switchboardv1.NowEntry, 0, len(ranked))
	for _, r := range ranked {
		it, ok := byID[r.ID]
		if !ok {
			continue // removed between the two reads
		}
		e := &switchboardv1.NowEntry{Item: queue.ToProto(it), Score: int32(r.Score), Boosts: []*switchboardv1.NowBoost{}}
		for _, why := range r.Reasons {
			e.Boosts = append(e.Boosts, &switchboardv1.NowBoost{Points: int32(why.Points), Reason: Reason(why, now),
				EventId: why.EventID, EventTitle: why.Event, StartsAt: timestamppb.New(why.StartsAt), Words: why.Words})
		}
		out = append(out, e)
	}
	return out, nil
}

// Reason words a boost for a person: the event, how soon, the shared words.
func Reason(r rules.Reason, now time.Time) string {
	mins := int(math.Ceil(r.StartsAt.Sub(now).Minutes()))
	unit := "minutes"
	if mins == 1 {
		unit = "minute"
	}
	return fmt.Sprintf("+%d: %q starts in %d %s (%s)", r.Points, r.Event, mins, unit, strings.Join(r.Words, ", "))
}
