package calendar

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/calendarevent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

var (
	_ switchboardv1connect.CalendarServiceHandler = (*Service)(nil)
	_ switchboardv1.CalendarServiceServer         = (*Service)(nil)
)

// Service implements CalendarService: the operator's events by the API.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

// CreateCalendarEvent adds an event, or updates the account's event of the
// same externalId (the webhook's upsert, so both paths agree).
func (s *Service) CreateCalendarEvent(ctx context.Context, req *switchboardv1.CreateCalendarEventRequest) (*switchboardv1.CreateCalendarEventResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(req.GetTitle()) == "":
		return nil, apperr.Invalid("title is required")
	case req.StartsAt == nil:
		return nil, apperr.Invalid("startsAt is required")
	case req.EndsAt == nil:
		return nil, apperr.Invalid("endsAt is required")
	}
	atts, err := attendeesIn(req.GetAttendees())
	if err != nil {
		return nil, err
	}
	in := EventInput{Title: strings.TrimSpace(req.GetTitle()), StartsAt: req.GetStartsAt().AsTime(),
		EndsAt: req.GetEndsAt().AsTime(), Location: req.Location, Attendees: atts, ExternalID: req.ExternalId}
	if err := in.check(); err != nil {
		return nil, err
	}
	ev, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.CalendarEvent, error) {
		return Upsert(ctx, tx, p.UserID, in, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateCalendarEventResponse{Event: ToProto(ev)}, nil
}

// ListCalendarEvents lists the caller's events by start, optionally those
// overlapping [from, to).
func (s *Service) ListCalendarEvents(ctx context.Context, req *switchboardv1.ListCalendarEventsRequest) (*switchboardv1.ListCalendarEventsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	where := []predicate.CalendarEvent{calendarevent.UserID(p.UserID)}
	if req.From != nil {
		where = append(where, calendarevent.EndsAtGTE(req.GetFrom().AsTime()))
	}
	if req.To != nil {
		where = append(where, calendarevent.StartsAtLT(req.GetTo().AsTime()))
	}
	if req.From != nil && req.To != nil && !req.GetTo().AsTime().After(req.GetFrom().AsTime()) {
		return nil, apperr.Invalid("to must be after from")
	}
	q := s.DB.CalendarEvent.Query().Where(where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Asc(calendarevent.FieldStartsAt), ent.Asc(calendarevent.FieldID)).
		Offset(pg.Offset).Limit(pg.Limit).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListCalendarEventsResponse{Events: make([]*switchboardv1.CalendarEvent, 0, len(rows)),
		Pagination: pg.Of(total, len(rows))}
	for _, ev := range rows {
		out.Events = append(out.Events, ToProto(ev))
	}
	return out, nil
}

// UpdateCalendarEvent changes the supplied fields of the caller's event.
func (s *Service) UpdateCalendarEvent(ctx context.Context, req *switchboardv1.UpdateCalendarEventRequest) (*switchboardv1.UpdateCalendarEventResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.Title != nil && strings.TrimSpace(req.GetTitle()) == "" {
		return nil, apperr.Invalid("title must not be empty")
	}
	atts, err := attendeesIn(req.GetAttendees())
	if err != nil {
		return nil, err
	}
	ev, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.CalendarEvent, error) {
		cur, err := own(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		in := inputOf(cur)
		if req.Title != nil {
			in.Title = strings.TrimSpace(req.GetTitle())
		}
		if req.StartsAt != nil {
			in.StartsAt = req.GetStartsAt().AsTime()
		}
		if req.EndsAt != nil {
			in.EndsAt = req.GetEndsAt().AsTime()
		}
		if req.Location != nil {
			in.Location = req.Location
			if req.GetLocation() == "" {
				in.Location = nil
			}
		}
		if len(atts) > 0 {
			in.Attendees = atts
		} else if req.GetClearAttendees() {
			in.Attendees = nil
		}
		if req.ExternalId != nil {
			in.ExternalID = req.ExternalId
		}
		return Update(ctx, tx, cur, in, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateCalendarEventResponse{Event: ToProto(ev)}, nil
}

// DeleteCalendarEvent removes the caller's event and answers it as it was.
func (s *Service) DeleteCalendarEvent(ctx context.Context, req *switchboardv1.DeleteCalendarEventRequest) (*switchboardv1.DeleteCalendarEventResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	ev, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.CalendarEvent, error) {
		cur, err := own(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		return cur, Delete(ctx, tx, cur, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteCalendarEventResponse{Event: ToProto(ev)}, nil
}

// own reads the account's event; another account's id is not found.
func own(ctx context.Context, c *ent.Client, userID, id string) (*ent.CalendarEvent, error) {
	ev, err := c.CalendarEvent.Query().Where(calendarevent.ID(id), calendarevent.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("calendar event not found")
	}
	return ev, err
}

func attendeesIn(in []*switchboardv1.CalendarAttendee) ([]Attendee, error) {
	out := make([]Attendee, 0, len(in))
	for _, a := range in {
		email := strings.TrimSpace(a.GetEmail())
		if email == "" {
			return nil, apperr.Invalid("attendees: email is required")
		}
		out = append(out, Attendee{Email: email, Name: a.Name})
	}
	return out, nil
}

func inputOf(ev *ent.CalendarEvent) EventInput {
	in := EventInput{Title: ev.Title, StartsAt: ev.StartsAt, EndsAt: ev.EndsAt, Location: ev.Location, ExternalID: ev.ExternalID}
	for _, a := range ev.Attendees {
		in.Attendees = append(in.Attendees, Attendee{Email: a.Email, Name: a.Name})
	}
	return in
}

// ToProto renders an event for both transports.
func ToProto(ev *ent.CalendarEvent) *switchboardv1.CalendarEvent {
	out := &switchboardv1.CalendarEvent{Id: ev.ID, Title: ev.Title,
		StartsAt: timestamppb.New(ev.StartsAt), EndsAt: timestamppb.New(ev.EndsAt),
		Location: ev.Location, ExternalId: ev.ExternalID,
		Attendees: make([]*switchboardv1.CalendarAttendee, 0, len(ev.Attendees)),
		CreatedAt: timestamppb.New(ev.CreatedAt), UpdatedAt: timestamppb.New(ev.UpdatedAt)}
	for _, a := range ev.Attendees {
		out.Attendees = append(out.Attendees, &switchboardv1.CalendarAttendee{Email: a.Email, Name: a.Name})
	}
	return out
}
