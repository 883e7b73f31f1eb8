package network_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestRelayWidgetResponseURLSharesOrigin: RULINGS "Details for the house
// issue": a relay's payload.widgetResponseUrl must share the connection's
// verified origin (scheme, host, port), else 400 naming the field and
// nothing is queued.
func TestRelayWidgetResponseURLSharesOrigin(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	a, err := url.Parse(p.a.URL)
	if err != nil {
		t.Fatal(err)
	}
	for i, bad := range []any{
		"https://elsewhere.example.com/widgets",
		"https://" + a.Host + "/widgets",                  // another scheme
		"http://" + a.Hostname() + ":1/widgets",           // another port
		"http://localhost.example.com:" + a.Port() + "/w", // another host
		42,
	} {
		res := p.direct("/api/v2/relay", map[string]any{"relayId": "bad-" + string(rune('a'+i)), "subject": "Answer here",
			"intent": "assign_task", "payload": map[string]any{"widgetResponseUrl": bad}})
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, "payload.widgetResponseUrl")
	}
	if n := len(items(t, p.b)); n != 0 {
		t.Fatalf("refused relays queued %d items", n)
	}
	good := p.a.URL + "/api/relays/widget-response"
	res := p.direct("/api/v2/relay", map[string]any{"relayId": "good", "subject": "Answer here",
		"intent": "assign_task", "payload": map[string]any{"widgetResponseUrl": good}})
	servertest.WantStatus(t, res, http.StatusOK)
	list := items(t, p.b)
	if len(list) != 1 {
		t.Fatalf("B's queue: %d items", len(list))
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(list[0].Metadata), &meta); err != nil || meta["widgetResponseUrl"] != good {
		t.Fatalf("item metadata: %v %v", meta, err)
	}
}
