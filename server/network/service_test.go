package network_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestNetworkSettingsAndPreferences: RULINGS "The operator network" (the
// switch: the flags are the admin setting's initial values; relay
// preferences and their defaults).
func TestNetworkSettingsAndPreferences(t *testing.T) {
	t.Parallel()
	a := newInstance(t, "owner", network.Config{Allowlist: []string{"https://b.example"}})
	res := a.user.Session.Do(http.MethodGet, "/api/admin/federation/settings", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	set := object(t, res, "settings")
	if set["enabled"] != false || len(set["allowlist"].([]any)) != 1 || set["allowPrivate"] != true {
		t.Fatalf("initial settings: %v", set)
	}
	// Only the admin; anyone reads whether the network is on with their
	// connections (issue 31: the Network view says so before a form fails).
	member := a.SignUp("member")
	servertest.WantError(t, member.Session.Do(http.MethodGet, "/api/admin/federation/settings", nil), http.StatusForbidden)
	networkEnabled := func(want bool) {
		t.Helper()
		if got := member.Session.Do(http.MethodGet, "/api/federation/connections", nil).JSON(t)["networkEnabled"]; got != want {
			t.Fatalf("networkEnabled %v, want %v", got, want)
		}
	}
	networkEnabled(false)
	servertest.WantError(t, member.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": true}), http.StatusForbidden)
	// Origins only, normalised and kept once.
	for _, bad := range []string{"ftp://b.example", "https://b.example/path", "not a url", "https://user:pw@b.example"} {
		servertest.WantError(t, a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings",
			map[string]any{"enabled": true, "allowlist": []string{bad}}), http.StatusBadRequest)
	}
	res = a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings",
		map[string]any{"enabled": true, "allowlist": []string{"https://B.example/", "https://b.example", "https://c.example:8443"}})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := object(t, res, "settings")["allowlist"].([]any); len(got) != 2 || got[0] != "https://b.example" || got[1] != "https://c.example:8443" {
		t.Fatalf("allowlist: %v", got)
	}
	if got := object(t, a.user.Session.Do(http.MethodGet, "/api/admin/federation/settings", nil), "settings"); got["enabled"] != true {
		t.Fatalf("stored: %v", got)
	}
	networkEnabled(true)

	// Preferences: the defaults, then a full replacement.
	res = member.Session.Do(http.MethodGet, "/api/federation/preferences", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	p := object(t, res, "preferences")
	if p["autoAccept"] != false || p["ambientEnabled"] != true || p["maxOpenRelays"] != float64(50) || p["quietHours"] != nil ||
		len(p["mutedTopics"].([]any)) != 0 {
		t.Fatalf("default preferences: %v", p)
	}
	body := map[string]any{"autoAccept": true, "mutedTopics": []string{"sales", " sales ", "crypto"}, "ambientEnabled": false,
		"maxOpenRelays": 10, "quietHours": map[string]any{"start": "22:00", "end": "07:30", "timeZone": "Europe/Berlin"}}
	res = member.Session.Do(http.MethodPut, "/api/federation/preferences", body)
	servertest.WantStatus(t, res, http.StatusOK)
	p = object(t, member.Session.Do(http.MethodGet, "/api/federation/preferences", nil), "preferences")
	q, _ := p["quietHours"].(map[string]any)
	if p["autoAccept"] != true || p["ambientEnabled"] != false || p["maxOpenRelays"] != float64(10) ||
		len(p["mutedTopics"].([]any)) != 2 || q["timeZone"] != "Europe/Berlin" || q["end"] != "07:30" {
		t.Fatalf("stored preferences: %v", p)
	}
	// Another account's preferences are its own.
	if got := object(t, a.user.Session.Do(http.MethodGet, "/api/federation/preferences", nil), "preferences"); got["autoAccept"] != false {
		t.Fatalf("owner's preferences: %v", got)
	}
	// A replacement without quiet hours clears them; absent fields default.
	res = member.Session.Do(http.MethodPut, "/api/federation/preferences", map[string]any{"autoAccept": false})
	if got := object(t, res, "preferences"); got["quietHours"] != nil || got["ambientEnabled"] != true || got["maxOpenRelays"] != float64(50) {
		t.Fatalf("replaced: %v", got)
	}
	for name, bad := range map[string]map[string]any{
		"hour 24":       {"quietHours": map[string]any{"start": "24:00", "end": "07:00"}},
		"no end":        {"quietHours": map[string]any{"start": "22:00"}},
		"unknown zone":  {"quietHours": map[string]any{"start": "22:00", "end": "07:00", "timeZone": "Mars/Olympus"}},
		"zero relays":   {"maxOpenRelays": 0},
		"blank topic":   {"mutedTopics": []string{" "}},
		"too many":      {"mutedTopics": strings.Split(strings.Repeat("t,", 51), ",")},
		"over-long":     {"mutedTopics": []string{strings.Repeat("x", 101)}},
		"unknown field": {"autoAccept": true, "surprise": 1},
	} {
		res := member.Session.Do(http.MethodPut, "/api/federation/preferences", bad)
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	if got := object(t, member.Session.Do(http.MethodGet, "/api/federation/preferences", nil), "preferences"); got["maxOpenRelays"] != float64(50) {
		t.Fatalf("a refused write changed the preferences: %v", got)
	}
}

// TestPeerAddressRule: RULINGS "The operator network" (peer URLs are https
// unless --federation-allow-private, which also admits private and
// loopback addresses).
func TestPeerAddressRule(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true}))
	u := s.SignUp("alice")
	for _, peer := range []string{"http://b.example", "https://127.0.0.1:8443", "https://10.0.0.8", "https://b.example/some/path"} {
		res := u.Session.Do(http.MethodPost, "/api/federation/connect", map[string]any{"peerInstanceUrl": peer, "peerUserEmail": "bob@example.com"})
		servertest.WantError(t, res, http.StatusBadRequest)
	}
	// The handshake's origin under the same rule.
	res := s.Anonymous().Do(http.MethodPost, "/api/v2/connections", map[string]any{
		"fromInstanceUrl": "http://a.example", "fromUserEmail": "a@a.example", "toUserEmail": "alice@example.com",
		"federationToken": "sbf_x", "connectionId": "c1"})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "https")
	n, _ := s.DB.NetworkConnection.Query().Count(t.Context())
	if n != 0 {
		t.Fatalf("refused requests left %d rows", n)
	}
}

// TestBadInputWritesNothing: RULINGS "Input at the boundary": NUL, invalid
// UTF-8 and over-long fields on the new routes are 400 in the documented
// error shape, and so is a handshake's name of more than one line; nothing
// is written on either side.
func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	valid := func() map[string]any {
		return map[string]any{"peerInstanceUrl": b.URL, "peerUserEmail": "bob@example.com", "message": "hello"}
	}
	cases := map[string]any{}
	nul := valid()
	nul["message"] = "hi\x00there"
	cases["NUL"] = nul
	long := valid()
	long["message"] = strings.Repeat("m", 100001)
	cases["over-long message"] = long
	longEmail := valid()
	longEmail["peerUserEmail"] = strings.Repeat("b", 320) + "@example.com"
	cases["over-long email"] = longEmail
	cases["invalid UTF-8"] = []byte(`{"peerInstanceUrl":"` + b.URL + `","peerUserEmail":"bob@example.com","message":"bad ` + "\xff\xfe" + `"}`)
	for name, body := range cases {
		res := a.user.Session.Do(http.MethodPost, "/api/federation/connect", body)
		servertest.WantError(t, res, http.StatusBadRequest)
		if len(a.connections(t))+len(b.connections(t)) != 0 {
			t.Fatalf("%s: rows written", name)
		}
	}
	// The handshake itself.
	peer := map[string]any{"fromInstanceUrl": a.URL, "fromUserEmail": "alice@example.com", "fromUserName": "Al\x00ice",
		"toUserEmail": "bob@example.com", "federationToken": "sbf_x", "connectionId": "c1"}
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", peer), http.StatusBadRequest)
	peer["fromUserName"] = strings.Repeat("n", 501) // the contract's limit of a name is 500
	servertest.WantErrorContaining(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", peer), http.StatusBadRequest, "fromUserName")
	// The name a connection records is one line of text (issue 35 point 6).
	peer["fromUserName"] = "Alice\nYour bank"
	servertest.WantErrorContaining(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", peer), http.StatusBadRequest, "fromUserName")
	raw := []byte(`{"fromInstanceUrl":"` + a.URL + `","fromUserEmail":"alice@example.com","fromUserName":"` + "\xc3\x28" +
		`","toUserEmail":"bob@example.com","federationToken":"sbf_x","connectionId":"c1"}`)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", raw), http.StatusBadRequest)
	servertest.WantError(t, a.user.Session.Do(http.MethodPatch, "/api/federation/connections/x", map[string]any{"trustLevel": "trusted\x00"}), http.StatusBadRequest)
	if len(a.connections(t))+len(b.connections(t)) != 0 {
		t.Fatal("rows written")
	}
}
