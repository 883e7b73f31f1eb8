package throughtest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// calendarEvent creates an event over REST and answers its JSON.
func calendarEvent(t *testing.T, c *servertest.Caller, body map[string]any) map[string]any {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/calendar/events", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create event %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["event"].(map[string]any)
}

// Events over REST: create, list by window, patch, delete, each with its
// activity; endsAt before startsAt is 400 and writes nothing; another
// account's id is 404; an externalId already held updates its event.
func TestCalendarEventsREST(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	now := s.Clock.Now()
	ev := calendarEvent(t, ann.Session, map[string]any{"title": "Budget review", "startsAt": stamp(now.Add(time.Hour)),
		"endsAt": stamp(now.Add(2 * time.Hour)), "location": "Room 4",
		"attendees": []map[string]any{{"email": "carol@example.com", "name": "Carol"}, {"email": "dan@example.com"}}})
	id := ev["id"].(string)
	if ev["title"] != "Budget review" || ev["location"] != "Room 4" || ev["externalId"] != nil ||
		fmt.Sprint(ev["attendees"]) != "[map[email:carol@example.com name:Carol] map[email:dan@example.com name:<nil>]]" {
		t.Fatalf("created %v", ev)
	}
	for _, bad := range []map[string]any{
		{"title": "Backwards", "startsAt": stamp(now.Add(time.Hour)), "endsAt": stamp(now)},
		{"startsAt": stamp(now), "endsAt": stamp(now)},
		{"title": "No end", "startsAt": stamp(now)},
		{"title": "No mail", "startsAt": stamp(now), "endsAt": stamp(now), "attendees": []map[string]any{{"name": "X"}}},
	} {
		servertest.WantError(t, ann.Session.Do(http.MethodPost, "/api/calendar/events", bad), http.StatusBadRequest)
	}
	// A zero-length event is allowed (endsAt equal to startsAt is not before it).
	calendarEvent(t, ann.Session, map[string]any{"title": "Reminder", "startsAt": stamp(now.Add(30 * time.Hour)), "endsAt": stamp(now.Add(30 * time.Hour))})

	list := func(q string) []any {
		res := ann.Session.Do(http.MethodGet, "/api/calendar/events"+q, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("list %s: %d %s", q, res.Status, res.Body)
		}
		return res.JSON(t)["events"].([]any)
	}
	if n := len(list("")); n != 2 {
		t.Fatalf("list: %d events, want 2", n)
	}
	window := fmt.Sprintf("?from=%s&to=%s", stamp(now), stamp(now.Add(24*time.Hour)))
	if got := list(window); len(got) != 1 || got[0].(map[string]any)["id"] != id {
		t.Fatalf("list in the next day: %v", got)
	}
	servertest.WantError(t, ann.Session.Do(http.MethodGet, fmt.Sprintf("/api/calendar/events?from=%s&to=%s", stamp(now), stamp(now)), nil), http.StatusBadRequest)

	// PATCH changes what is given; an empty location clears it.
	s.Clock.Advance(time.Minute)
	res := ann.Session.Do(http.MethodPatch, "/api/calendar/events/"+id, map[string]any{"title": "Budget review v2", "location": ""})
	if res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	u := res.JSON(t)["event"].(map[string]any)
	if u["title"] != "Budget review v2" || u["location"] != nil || u["startsAt"] != ev["startsAt"] || len(u["attendees"].([]any)) != 2 {
		t.Fatalf("patched %v", u)
	}
	servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/calendar/events/"+id,
		map[string]any{"endsAt": stamp(now)}), http.StatusBadRequest)

	// Bob cannot see, change or delete ann's event.
	servertest.WantError(t, bob.Session.Do(http.MethodPatch, "/api/calendar/events/"+id, map[string]any{"title": "Mine"}), http.StatusNotFound)
	servertest.WantError(t, bob.Session.Do(http.MethodDelete, "/api/calendar/events/"+id, nil), http.StatusNotFound)
	if res := bob.Session.Do(http.MethodGet, "/api/calendar/events", nil); len(res.JSON(t)["events"].([]any)) != 0 {
		t.Fatalf("bob lists %s", res.Body)
	}
	// A key is refused: the calendar is the session's.
	key := s.WithKey(ann.NewKey("all"))
	servertest.WantStatus(t, key.Do(http.MethodGet, "/api/calendar/events", nil), http.StatusForbidden)

	// POST with an externalId already held updates that event.
	a := calendarEvent(t, ann.Session, map[string]any{"title": "Standup", "externalId": "gcal-1",
		"startsAt": stamp(now.Add(3 * time.Hour)), "endsAt": stamp(now.Add(4 * time.Hour))})
	b := calendarEvent(t, ann.Session, map[string]any{"title": "Standup (moved)", "externalId": "gcal-1",
		"startsAt": stamp(now.Add(5 * time.Hour)), "endsAt": stamp(now.Add(6 * time.Hour))})
	if a["id"] != b["id"] || b["title"] != "Standup (moved)" {
		t.Fatalf("upsert by externalId: %v then %v", a, b)
	}

	res = ann.Session.Do(http.MethodDelete, "/api/calendar/events/"+id, nil)
	if res.Status != http.StatusOK || res.JSON(t)["event"].(map[string]any)["id"] != id {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	servertest.WantError(t, ann.Session.Do(http.MethodDelete, "/api/calendar/events/"+id, nil), http.StatusNotFound)

	acts := ann.Session.Do(http.MethodGet, "/api/activity?category=calendar", nil).JSON(t)
	counts := map[string]int{}
	for _, e := range acts["data"].([]any) {
		counts[e.(map[string]any)["action"].(string)]++
	}
	if counts["event_created"] != 3 || counts["event_updated"] != 2 || counts["event_deleted"] != 1 {
		t.Fatalf("calendar activity %v (%v)", counts, acts)
	}
}

// The same over Connect with the session.
func TestCalendarEventsConnect(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	client := func(a *servertest.Account) switchboardv1connect.CalendarServiceClient {
		hc := &http.Client{Jar: a.Jar, Transport: s.HTTP.Transport, Timeout: s.HTTP.Timeout}
		return switchboardv1connect.NewCalendarServiceClient(hc, s.URL)
	}
	now := s.Clock.Now()
	created, err := client(ann).CreateCalendarEvent(t.Context(), &switchboardv1.CreateCalendarEventRequest{
		Title: "Design sync", StartsAt: timestamppb.New(now.Add(time.Hour)), EndsAt: timestamppb.New(now.Add(2 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetEvent().GetId()
	_, err = client(ann).CreateCalendarEvent(t.Context(), &switchboardv1.CreateCalendarEventRequest{
		Title: "Backwards", StartsAt: timestamppb.New(now.Add(time.Hour)), EndsAt: timestamppb.New(now)})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = client(bob).UpdateCalendarEvent(t.Context(), &switchboardv1.UpdateCalendarEventRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	list, err := client(ann).ListCalendarEvents(t.Context(), &switchboardv1.ListCalendarEventsRequest{})
	if err != nil || len(list.GetEvents()) != 1 || list.GetEvents()[0].GetId() != id {
		t.Fatalf("list: %v %v", list, err)
	}
	if _, err := client(ann).DeleteCalendarEvent(t.Context(), &switchboardv1.DeleteCalendarEventRequest{Id: id}); err != nil {
		t.Fatal(err)
	}
}

// The acceptance rule (RULINGS "The proactive layer"): in the Now order an
// item matching an event starting in 59 minutes ranks 25 points up, with
// its reason; at 61 minutes it does not. Both transports, a key with queue.
func TestNowCalendarCorrelation(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("queue", "queue")
	api := s.WithKey(key)
	for _, it := range []map[string]any{
		{"title": "Prepare the budget deck", "priority": "medium"},
		{"title": "Call the plumber", "priority": "high"},
		{"title": "Water the plants", "priority": "medium"},
	} {
		servertest.WantStatus(t, api.Do(http.MethodPost, "/api/v2/queue", it), http.StatusCreated)
		s.Clock.Advance(time.Second)
	}
	order := func() (titles []string, scores []float64, boosts [][]any) {
		res := api.Do(http.MethodGet, "/api/now", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("now: %d %s", res.Status, res.Body)
		}
		for _, e := range res.JSON(t)["items"].([]any) {
			m := e.(map[string]any)
			titles = append(titles, m["item"].(map[string]any)["title"].(string))
			scores = append(scores, m["score"].(float64))
			boosts = append(boosts, m["boosts"].([]any))
		}
		return titles, scores, boosts
	}
	if titles, scores, _ := order(); fmt.Sprint(titles) != "[Call the plumber Water the plants Prepare the budget deck]" ||
		fmt.Sprint(scores) != "[50 25 25]" {
		t.Fatalf("without events: %v %v", titles, scores)
	}

	now := s.Clock.Now()
	ev := calendarEvent(t, ann.Session, map[string]any{"title": "Q3 budget review", "startsAt": stamp(now.Add(59 * time.Minute)), "endsAt": stamp(now.Add(2 * time.Hour))})
	titles, scores, boosts := order()
	// Level with the high item now, and newer than it is not: the tie goes by age.
	if fmt.Sprint(titles) != "[Call the plumber Prepare the budget deck Water the plants]" || fmt.Sprint(scores) != "[50 50 25]" {
		t.Fatalf("event in 59 minutes: %v %v", titles, scores)
	}
	b := boosts[1][0].(map[string]any)
	if b["points"] != float64(25) || b["eventId"] != ev["id"] || fmt.Sprint(b["words"]) != "[budget]" ||
		b["reason"] != `+25: "Q3 budget review" starts in 59 minutes (budget)` || len(boosts[0]) != 0 || len(boosts[2]) != 0 {
		t.Fatalf("boost: %v", boosts)
	}

	// Connect answers the same order.
	rpc := switchboardv1connect.NewNowServiceClient(s.HTTP, s.URL, connect.WithInterceptors(servertest.BearerInterceptor(key)))
	got, err := rpc.GetNow(t.Context(), &switchboardv1.GetNowRequest{Limit: 1, Offset: 1})
	if err != nil || len(got.GetItems()) != 1 || got.GetItems()[0].GetScore() != 50 ||
		len(got.GetItems()[0].GetBoosts()) != 1 || got.GetPagination().GetTotal() != 3 {
		t.Fatalf("GetNow over Connect: %v %v", got, err)
	}

	// The same event 61 minutes out boosts nothing.
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/calendar/events/"+ev["id"].(string),
		map[string]any{"startsAt": stamp(now.Add(61 * time.Minute))}), http.StatusOK)
	if titles, scores, _ := order(); fmt.Sprint(titles) != "[Call the plumber Water the plants Prepare the budget deck]" ||
		fmt.Sprint(scores) != "[50 25 25]" {
		t.Fatalf("event in 61 minutes: %v %v", titles, scores)
	}
	// Two minutes on it is 59 minutes out again; once it has begun it no longer boosts.
	s.Clock.Advance(2 * time.Minute)
	if _, scores, _ := order(); fmt.Sprint(scores) != "[50 50 25]" {
		t.Fatalf("two minutes on: %v", scores)
	}
	s.Clock.Advance(61 * time.Minute)
	if _, scores, _ := order(); fmt.Sprint(scores) != "[50 25 25]" {
		t.Fatalf("under way: %v", scores)
	}
}
