package dashboard

import (
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/events"
)

// Each activity entry the dashboard shows becomes its kind with the
// record's id from the entry; the others become nothing. Every kind made
// here is the dashboard's only (events.DashboardOnly).
func TestFromActivity(t *testing.T) {
	conn := map[string]any{"connectionId": "conn1"}
	cases := []struct {
		action, typ, id, change, state string
		meta                           map[string]any
		card                           string
	}{
		{action: "card_created", typ: "card_changed", id: "card1", change: "created", card: "card1"},
		{action: "card_moved", typ: "card_changed", id: "card1", change: "updated", card: "card1"},
		{action: "card_deleted", typ: "card_changed", id: "card1", change: "deleted", card: "card1"},
		{action: "cortex_scan", typ: "card_changed", change: "updated"},
		{action: "contact_added", typ: "contact_changed", id: "c1", change: "created", meta: map[string]any{"contactId": "c1"}},
		{action: "contact_deleted", typ: "contact_changed", id: "c1", change: "deleted", meta: map[string]any{"contactId": "c1"}},
		{action: "connection_created", typ: "connection_requested", id: "conn1", change: "created", state: "pending", meta: conn},
		{action: "connection_accepted", typ: "connection_accepted", id: "conn1", change: "updated", state: "active", meta: conn},
		{action: "connection_removed", typ: "connection_removed", id: "conn1", change: "deleted", meta: conn},
		{action: "contract_offered", typ: "economy_changed", id: "k1", change: "created", meta: map[string]any{"contractId": "k1"}},
		{action: "review_submitted", typ: "economy_changed", id: "k1", change: "updated", meta: map[string]any{"contractId": "k1"}},
		{action: "google_connected"},
		{action: "queue_added"},
		{action: "relay_responded", meta: conn},
		{action: "event_created"},
	}
	for _, c := range cases {
		cat, ok := activity.CategoryOf(c.action)
		if !ok {
			t.Fatalf("%s is no activity action", c.action)
		}
		ev := FromActivity(activity.Entry{Action: c.action, CardID: c.card, Metadata: c.meta, Summary: "what happened"}, cat)
		if c.typ == "" {
			if ev != nil {
				t.Errorf("%s: %v, want nothing", c.action, ev)
			}
			continue
		}
		if ev == nil || !vocab.Get("stream_event").Has(ev.GetType()) || !events.DashboardOnly(ev.GetType()) {
			t.Fatalf("%s: %v, want a dashboard kind", c.action, ev)
		}
		rc := ev.GetRecord()
		if ev.GetType() != c.typ || rc.GetId() != c.id || rc.GetChange() != c.change || rc.GetState() != c.state || rc.GetBrief() != "what happened" {
			t.Errorf("%s: %v, want %s %s %s %s", c.action, ev, c.typ, c.id, c.change, c.state)
		}
	}
}
