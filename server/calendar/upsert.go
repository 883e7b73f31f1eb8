// Package calendar owns the operator's calendar events (calendar.proto;
// RULINGS "The proactive layer", Calendar): the writes, each with its
// activity in the caller's unit of work (Upsert and DeleteByExternalID, which
// the calendar inbound webhook calls too), the API service, and the reads
// other packages make of upcoming events (the Now order's correlation, the
// A2A main-handoff, MCP entity_resolve). The correlation's rules are pure, in
// server/calendar/rules.
package calendar

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/calendarevent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Attendee is one person invited to an event.
type Attendee struct {
	Email string
	Name  *string
}

// EventInput is an event as a writer gives it, whole: an update replaces
// every field (a nil Location or Attendees clears it). ExternalID, when
// given, names the event in the sender's calendar: Upsert updates the event
// with that id if the account has one.
type EventInput struct {
	Title            string
	StartsAt, EndsAt time.Time
	Location         *string
	Attendees        []Attendee
	ExternalID       *string
}

// check refuses an input no event may hold; the API's contract checks the
// same first, so this guards the webhook's path.
func (in EventInput) check() error {
	switch {
	case strings.TrimSpace(in.Title) == "":
		return apperr.Invalid("title is required")
	case in.StartsAt.IsZero():
		return apperr.Invalid("startsAt is required")
	case in.EndsAt.IsZero():
		return apperr.Invalid("endsAt is required")
	case in.EndsAt.Before(in.StartsAt):
		return apperr.Invalid("endsAt must not be before startsAt")
	case in.ExternalID != nil && *in.ExternalID == "":
		return apperr.Invalid("externalId must not be empty")
	}
	for _, a := range in.Attendees {
		if strings.TrimSpace(a.Email) == "" {
			return apperr.Invalid("attendees: email is required")
		}
	}
	return nil
}

func (in EventInput) attendees() []schema.Attendee {
	out := make([]schema.Attendee, 0, len(in.Attendees))
	for _, a := range in.Attendees {
		out = append(out, schema.Attendee{Email: a.Email, Name: a.Name})
	}
	return out
}

// Upsert writes in as userID's event in the caller's unit of work: with an
// external id it updates the account's event of that id when there is one,
// else it creates one; activity event_created or event_updated by actor.
func Upsert(ctx context.Context, tx *db.Tx, userID string, in EventInput, actor string) (*ent.CalendarEvent, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if in.ExternalID != nil {
		// Two deliveries of one external id race to create it: serialize them
		// per account and id so the second finds the first's row.
		if err := tx.Serialize(ctx, "calendar:"+userID+":"+*in.ExternalID); err != nil {
			return nil, err
		}
		cur, err := tx.CalendarEvent.Query().
			Where(calendarevent.UserID(userID), calendarevent.ExternalID(*in.ExternalID)).Only(ctx)
		switch {
		case err == nil:
			return Update(ctx, tx, cur, in, actor)
		case !ent.IsNotFound(err):
			return nil, err
		}
	}
	return create(ctx, tx, userID, in, actor)
}

func create(ctx context.Context, tx *db.Tx, userID string, in EventInput, actor string) (*ent.CalendarEvent, error) {
	m := tx.CalendarEvent.Create().SetUserID(userID).SetTitle(in.Title).
		SetStartsAt(in.StartsAt.UTC()).SetEndsAt(in.EndsAt.UTC()).
		SetNillableLocation(in.Location).SetAttendees(in.attendees()).SetNillableExternalID(in.ExternalID)
	provenance.SetCreated(m.Mutation(), provenance.Of(ctx))
	ev, err := m.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err)
	}
	return ev, record(ctx, tx, ev, "event_created", actor, ev.CreatedAt)
}

// Update replaces cur's fields with in (its external id kept unless in
// names one), in the caller's unit of work, with activity event_updated.
func Update(ctx context.Context, tx *db.Tx, cur *ent.CalendarEvent, in EventInput, actor string) (*ent.CalendarEvent, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	m := tx.CalendarEvent.UpdateOne(cur).SetTitle(in.Title).
		SetStartsAt(in.StartsAt.UTC()).SetEndsAt(in.EndsAt.UTC()).SetAttendees(in.attendees())
	if in.Location != nil {
		m.SetLocation(*in.Location)
	} else {
		m.ClearLocation()
	}
	if in.ExternalID != nil {
		m.SetExternalID(*in.ExternalID)
	}
	by := provenance.Written(provenance.Read(string(cur.TextBy), cur.TextByRef), provenance.Of(ctx),
		provenance.Field{Before: cur.Title, After: in.Title, Set: true},
		provenance.Field{Before: deref(cur.Location), After: deref(in.Location), Set: true})
	provenance.SetText(m.Mutation(), by)
	ev, err := m.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err)
	}
	return ev, record(ctx, tx, ev, "event_updated", actor, ev.UpdatedAt)
}

// Delete removes ev in the caller's unit of work, with activity event_deleted.
func Delete(ctx context.Context, tx *db.Tx, ev *ent.CalendarEvent, actor string) error {
	if err := tx.CalendarEvent.DeleteOne(ev).Exec(ctx); err != nil {
		return apperr.Wrap(err)
	}
	return record(ctx, tx, ev, "event_deleted", actor, tx.Now())
}

// DeleteByExternalID deletes userID's event of that external id in the
// caller's unit of work (activity event_deleted); an id the account has no
// event for is no change (a cancellation may arrive for an event never seen).
func DeleteByExternalID(ctx context.Context, tx *db.Tx, userID, externalID, actor string) error {
	ev, err := tx.CalendarEvent.Query().
		Where(calendarevent.UserID(userID), calendarevent.ExternalID(externalID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	return Delete(ctx, tx, ev, actor)
}

func record(ctx context.Context, tx *db.Tx, ev *ent.CalendarEvent, action, actor string, at time.Time) error {
	verb := map[string]string{"event_created": "Created", "event_updated": "Updated", "event_deleted": "Deleted"}[action]
	meta := map[string]any{"eventId": ev.ID, "startsAt": ev.StartsAt.UTC().Format(time.RFC3339)}
	if ev.ExternalID != nil {
		meta["externalId"] = *ev.ExternalID
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: ev.UserID, Action: action, Actor: actor, At: at,
		Summary:  fmt.Sprintf("%s event: %s", verb, ev.Title),
		Metadata: meta,
	}); err != nil {
		return err
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
