package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Attendee is one person invited to a calendar event.
type Attendee struct {
	Email string  `json:"email"`
	Name  *string `json:"name,omitempty"`
}

// CalendarEvent is an event on the operator's calendar, made through the API or
// upserted by a calendar inbound webhook by its external id (RULINGS "The
// proactive layer", Calendar).
type CalendarEvent struct{ ent.Schema }

// Mixin of the CalendarEvent.
func (CalendarEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}}
}

// Fields of the CalendarEvent.
func (CalendarEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("title").NotEmpty(),
		field.Time("starts_at"),
		field.Time("ends_at"),
		field.String("location").Optional().Nillable(),
		field.JSON("attendees", []Attendee{}).Default([]Attendee{}),
		// The sender's id for the event (a calendar webhook's), unique per
		// account so that a repeated delivery updates rather than duplicates.
		field.String("external_id").Optional().Nillable(),
	}
}

// Edges of the CalendarEvent.
func (CalendarEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("calendar_events").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the CalendarEvent.
func (CalendarEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "external_id").Unique(),
		index.Fields("user_id", "starts_at"),
	}
}
