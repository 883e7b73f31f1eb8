package throughtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The calendar where others read it (RULINGS "The proactive layer"):
// main-handoff's calendar lists events under way or starting within 24
// hours; briefing_get lists what awaits approval in the Now order with the
// boosts' reasons; entity_resolve's events include matching calendar events.
func TestCalendarInHandoffBriefingAndEntityResolve(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	now := s.Clock.Now()
	for _, ev := range []struct {
		title      string
		start, end time.Duration
	}{
		{"Standup", -30 * time.Minute, 30 * time.Minute},
		{"Budget review", 40 * time.Minute, 2 * time.Hour},
		{"Offsite", 23 * time.Hour, 25 * time.Hour},
		{"Next week", 25 * time.Hour, 26 * time.Hour},
		{"Yesterday", -25 * time.Hour, -24 * time.Hour},
	} {
		calendarEvent(t, ann.Session, map[string]any{"title": ev.title, "startsAt": stamp(now.Add(ev.start)), "endsAt": stamp(now.Add(ev.end))})
	}
	res := s.WithKey(ann.NewKey("a2a", "a2a")).Do(http.MethodGet, "/api/main-handoff", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	var titles []string
	for _, e := range res.JSON(t)["calendar"].([]any) {
		titles = append(titles, e.(map[string]any)["title"].(string))
	}
	if fmt.Sprint(titles) != "[Standup Budget review Offsite]" {
		t.Fatalf("main-handoff calendar: %v", titles)
	}

	api := s.WithKey(ann.NewKey("all"))
	for _, title := range []string{"Prepare the budget deck", "Water the plants"} {
		servertest.WantStatus(t, api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": title}), http.StatusCreated)
		s.Clock.Advance(time.Second)
	}
	call := func(name string, args map[string]any) json.RawMessage {
		t.Helper()
		res := api.Do(http.MethodPost, "/api/mcp", map[string]any{"method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args}})
		servertest.WantStatus(t, res, http.StatusOK)
		var body struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil || body.IsError {
			t.Fatalf("%s: %s", name, res.Body)
		}
		return body.StructuredContent
	}
	var b struct {
		AwaitingApproval []map[string]any `json:"awaitingApproval"`
		Boosts           []map[string]any `json:"boosts"`
	}
	if err := json.Unmarshal(call("briefing_get", map[string]any{}), &b); err != nil {
		t.Fatal(err)
	}
	if len(b.AwaitingApproval) != 2 || b.AwaitingApproval[0]["title"] != "Prepare the budget deck" ||
		len(b.Boosts) != 1 || b.Boosts[0]["itemId"] != b.AwaitingApproval[0]["id"] || b.Boosts[0]["points"] != float64(25) {
		t.Fatalf("briefing: %+v", b)
	}

	var r struct {
		Results map[string][]map[string]any `json:"results"`
	}
	if err := json.Unmarshal(call("entity_resolve", map[string]any{"query": "budget", "surfaces": []string{"events"}}), &r); err != nil {
		t.Fatal(err)
	}
	if ev := r.Results["events"]; len(ev) != 1 || ev[0]["label"] != "Budget review" ||
		ev[0]["row"].(map[string]any)["startsAt"] == nil {
		t.Fatalf("entity_resolve events: %v", r.Results["events"])
	}
}
