package inbound

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/calendar"
)

// statusCancelled is the calendar delivery's status that deletes its event.
const statusCancelled = "cancelled"

// calendar upserts the delivered event by its externalId, or deletes it
// when its status is cancelled (RULINGS "What each kind does").
func (s *Service) calendar(ctx context.Context, tx *db.Tx, h *ent.InboundWebhook, doc map[string]any) error {
	actor := "webhook:" + h.Name
	ext := str(doc, "externalId")
	if ext == "" {
		return apperr.Invalid("a calendar delivery needs an externalId")
	}
	if strings.EqualFold(str(doc, "status"), statusCancelled) {
		return calendar.DeleteByExternalID(ctx, tx, h.UserID, ext, actor)
	}
	in := calendar.EventInput{Title: str(doc, "title"), ExternalID: &ext}
	for field, at := range map[string]*time.Time{"startsAt": &in.StartsAt, "endsAt": &in.EndsAt} {
		v := str(doc, field)
		if v == "" {
			continue // the calendar's check names what is missing
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return apperr.Invalid("%s must be an RFC 3339 time", field)
		}
		*at = t.UTC()
	}
	if loc := str(doc, "location"); loc != "" {
		in.Location = &loc
	}
	list, _ := doc["attendees"].([]any)
	for _, a := range list {
		m, _ := a.(map[string]any)
		email := str(m, "email")
		if email == "" {
			return apperr.Invalid("attendees: email is required")
		}
		at := calendar.Attendee{Email: email}
		if n := str(m, "name"); n != "" {
			at.Name = &n
		}
		in.Attendees = append(in.Attendees, at)
	}
	_, err := calendar.Upsert(ctx, tx, h.UserID, in, actor)
	return err
}
