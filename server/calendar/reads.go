package calendar

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/calendarevent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// maxRead bounds the events the other packages' reads answer.
const maxRead = 100

// Upcoming are userID's events under way at now or starting within the
// next `within`, soonest first (A2A main-handoff's calendar: 24 hours).
func Upcoming(ctx context.Context, c *ent.Client, userID string, now time.Time, within time.Duration) ([]*ent.CalendarEvent, error) {
	return c.CalendarEvent.Query().Where(calendarevent.UserID(userID),
		calendarevent.EndsAtGTE(now), calendarevent.StartsAtLTE(now.Add(within))).
		Order(ent.Asc(calendarevent.FieldStartsAt), ent.Asc(calendarevent.FieldID)).Limit(maxRead).All(ctx)
}

// Matching are userID's events whose title, location or attendees contain
// query (ASCII case folded), soonest first (MCP entity_resolve's events).
func (s *Service) Matching(ctx context.Context, userID, query string) ([]*switchboardv1.CalendarEvent, error) {
	d := s.DB
	query = db.FoldASCII(query)
	rows, err := d.CalendarEvent.Query().Where(calendarevent.UserID(userID),
		calendarevent.Or(
			predicate.CalendarEvent(db.ContainsFolded(d.Dialect, query, calendarevent.FieldTitle, calendarevent.FieldLocation)),
			predicate.CalendarEvent(db.JSONContainsFolded(d.Dialect, query, calendarevent.FieldAttendees)),
		)).
		Order(ent.Asc(calendarevent.FieldStartsAt), ent.Asc(calendarevent.FieldID)).Limit(maxRead).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.CalendarEvent, 0, len(rows))
	for _, ev := range rows {
		out = append(out, ToProto(ev))
	}
	return out, nil
}
