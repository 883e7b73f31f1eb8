package throughtest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 1, "Settings": GET answers the Settings object on every transport.
func TestGetSettingsEveryTransport(t *testing.T) {
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("agent")

	res := s.WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("REST: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	if body["mode"] != "cockpit" || body["queueAutoApprove"] != false {
		t.Fatalf("REST body = %s", res.Body)
	}
	if v, ok := body["assistantName"]; !ok || v != nil {
		t.Fatalf("REST form must write null for an absent assistantName, got %s", res.Body)
	}

	for name, opts := range servertest.Protocols() {
		t.Run(name, func(t *testing.T) {
			c := switchboardv1connect.NewSettingsServiceClient(s.Client(name), s.URL,
				append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))...)
			got, err := c.GetSettings(context.Background(), &switchboardv1.GetSettingsRequest{})
			if err != nil {
				t.Fatalf("GetSettings: %v", err)
			}
			if got.GetMode() != "cockpit" || got.GetQueueAutoApprove() || got.AssistantName != nil {
				t.Fatalf("GetSettings = %v", got)
			}
		})
	}
}

// Document 1, "Settings": PATCH's table, on REST.
func TestPatchSettingsTable(t *testing.T) {
	s := servertest.New(t)
	api := s.WithKey(s.SignUp("ann").NewKey("agent"))
	cases := []struct {
		name   string
		body   string
		status int
		want   string // exact REST body on success
	}{
		{"no field", `{}`, 400, ""},
		{"empty body", ``, 400, ""},
		{"unknown field only", `{"theme":"dark"}`, 400, ""},
		{"wrong type", `{"queueAutoApprove":"yes"}`, 400, ""},
		{"malformed", `{"queueAutoApprove":`, 400, ""},
		{"mode only", `{"mode":"chief_of_staff"}`, 200, `{"mode":"cockpit"}`},
		{"auto-approve only", `{"queueAutoApprove":true}`, 200, `{"queueAutoApprove":true}`},
		{"both", `{"queueAutoApprove":false,"mode":"cockpit"}`, 200, `{"queueAutoApprove":false,"mode":"cockpit"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := api.Do(http.MethodPatch, "/api/v2/settings", tc.body)
			if tc.status != 200 {
				servertest.WantError(t, res, tc.status)
				return
			}
			servertest.WantStatus(t, res, tc.status)
			if string(res.Body) != tc.want+"\n" { // each answer ends in a newline
				t.Fatalf("body = %s, want %s", res.Body, tc.want)
			}
		})
	}
}

func TestPatchSettingsApplies(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	bob := s.SignUp("bob")
	api := s.WithKey(ann.NewKey("agent"))
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":true}`); res.Status != 200 {
		t.Fatalf("PATCH: %d %s", res.Status, res.Body)
	}
	if got := api.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["queueAutoApprove"]; got != true {
		t.Fatalf("after PATCH queueAutoApprove = %v", got)
	}
	// Account isolation: bob's settings are untouched.
	if got := s.WithKey(bob.NewKey("agent")).Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["queueAutoApprove"]; got != false {
		t.Fatalf("bob's queueAutoApprove = %v, want false", got)
	}
	// Bad input writes nothing.
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":false,"bogus":1}`); res.Status != 400 {
		t.Fatalf("PATCH with unknown field: %d", res.Status)
	}
	if got := api.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["queueAutoApprove"]; got != true {
		t.Fatalf("a refused PATCH changed queueAutoApprove to %v", got)
	}
}

// Document 1, "Settings": PUT /api/settings with the dashboard session.
func TestPutSettingsWithSession(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	res := ann.Session.Do(http.MethodPut, "/api/settings", `{"queueAutoApprove":true}`)
	if res.Status != 200 || string(res.Body) != "{\"queueAutoApprove\":true}\n" {
		t.Fatalf("PUT /api/settings: %d %s", res.Status, res.Body)
	}
	// RULINGS "Accounts, keys, sessions": a session change needs a same-origin Origin.
	res = ann.Session.Do(http.MethodPut, "/api/settings", `{"queueAutoApprove":false}`, "Origin", "https://evil.example")
	if res.Status != http.StatusForbidden {
		t.Fatalf("cross-site PUT: %d %s", res.Status, res.Body)
	}
	if got := ann.Session.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["queueAutoApprove"]; got != true {
		t.Fatalf("refused cross-site PUT changed the setting: %v", got)
	}
}

// The PATCH table over Connect: the same refusals with Connect codes.
func TestUpdateSettingsConnect(t *testing.T) {
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("agent")
	c := switchboardv1connect.NewSettingsServiceClient(s.HTTP, s.URL, connect.WithProtoJSON(),
		connect.WithInterceptors(servertest.BearerInterceptor(key)))
	_, err := c.UpdateSettings(context.Background(), &switchboardv1.UpdateSettingsRequest{})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("empty update: %v, want invalid_argument", err)
	}
	mode := "anything"
	got, err := c.UpdateSettings(context.Background(), &switchboardv1.UpdateSettingsRequest{Mode: &mode})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetMode() != "cockpit" || got.QueueAutoApprove != nil {
		t.Fatalf("mode-only update = %v", got)
	}
}
