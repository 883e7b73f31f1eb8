package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, calendarFixtures) }

var (
	tsEventStarts = timestamppb.New(time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC))
	tsEventEnds   = timestamppb.New(time.Date(2025, 3, 4, 11, 30, 0, 0, time.UTC))
)

// fullCalendarEvent has every field set, one attendee with a name and one without.
func fullCalendarEvent() *switchboardv1.CalendarEvent {
	return &switchboardv1.CalendarEvent{
		Id: "ckx2e0a1b0000qzrmcalevnt1", Title: "Budget review", StartsAt: tsEventStarts, EndsAt: tsEventEnds,
		Location: proto.String("Room 4"), ExternalId: proto.String("gcal-8f3a"),
		Attendees: []*switchboardv1.CalendarAttendee{
			{Email: "carol@example.com", Name: proto.String("Carol")}, {Email: "dan@example.com"},
		},
		CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseCalendarEvent has only the always-present fields.
func sparseCalendarEvent() *switchboardv1.CalendarEvent {
	return &switchboardv1.CalendarEvent{
		Id: "ckx2e0a2c0001qzrmcalevnt2", Title: "Focus", StartsAt: tsEventStarts, EndsAt: tsEventStarts,
		Attendees: []*switchboardv1.CalendarAttendee{}, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func calendarFixtures() []fixture {
	return []fixture{
		single("CreateCalendarEventResponse", "full", &switchboardv1.CreateCalendarEventResponse{Event: fullCalendarEvent()}),
		single("CreateCalendarEventResponse", "sparse", &switchboardv1.CreateCalendarEventResponse{Event: sparseCalendarEvent()}),
		single("ListCalendarEventsResponse", "full", &switchboardv1.ListCalendarEventsResponse{
			Events:     []*switchboardv1.CalendarEvent{fullCalendarEvent(), sparseCalendarEvent()},
			Pagination: &switchboardv1.Pagination{Total: 5, Limit: 2, Offset: 2, HasMore: true},
		}),
		single("ListCalendarEventsResponse", "sparse", &switchboardv1.ListCalendarEventsResponse{
			Events: []*switchboardv1.CalendarEvent{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
		single("UpdateCalendarEventResponse", "full", &switchboardv1.UpdateCalendarEventResponse{Event: fullCalendarEvent()}),
		single("UpdateCalendarEventResponse", "sparse", &switchboardv1.UpdateCalendarEventResponse{Event: sparseCalendarEvent()}),
		single("DeleteCalendarEventResponse", "full", &switchboardv1.DeleteCalendarEventResponse{Event: fullCalendarEvent()}),
		single("DeleteCalendarEventResponse", "sparse", &switchboardv1.DeleteCalendarEventResponse{Event: sparseCalendarEvent()}),
		single("GetNowResponse", "full", &switchboardv1.GetNowResponse{
			Items: []*switchboardv1.NowEntry{{
				Item: fullQueueItem(), Score: 50,
				Boosts: []*switchboardv1.NowBoost{{
					Points: 25, Reason: `+25: "Budget review" starts in 59 minutes (budget)`,
					EventId: "ckx2e0a1b0000qzrmcalevnt1", EventTitle: "Budget review", StartsAt: tsEventStarts,
					Words: []string{"budget"},
				}},
			}, {Item: sparseQueueItem(), Score: 25, Boosts: []*switchboardv1.NowBoost{}}},
			Pagination: &switchboardv1.Pagination{Total: 2, Limit: 50},
		}),
		single("GetNowResponse", "sparse", &switchboardv1.GetNowResponse{
			Items: []*switchboardv1.NowEntry{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
	}
}
