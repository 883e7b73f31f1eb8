package throughtest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const (
	hookA   = "https://93.184.215.14/hooks/a" // public literals: no DNS in tests
	hookB   = "https://93.184.215.15:8443/b?team=7"
	secretA = "first-secret-0123456789"
	secretB = "second-secret-abcdefghij"
)

func storedKeys(t *testing.T, s *servertest.Server, userID string) []schema.ServiceKey {
	t.Helper()
	row, err := s.DB.Setting.Query().Where(setting.UserID(userID)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return row.ServiceKeys
}

// RULINGS "Shared chat and events": push targets are settings, editable on
// both transports; the secret is write-only.
func TestServiceKeysOverREST(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("agent"))

	res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[`+
		`{"service":"webhook_push","url":"`+hookA+`","secret":"`+secretA+`"},`+
		`{"service":"webhook_push","url":"`+hookB+`","secret":"`+secretB+`"}]}`)
	want := `{"serviceKeys":[{"service":"webhook_push","url":"` + hookA + `","secretSet":true},` +
		`{"service":"webhook_push","url":"` + hookB + `","secretSet":true}]}`
	if res.Status != 200 || string(res.Body) != want+"\n" {
		t.Fatalf("PATCH: %d %s\nwant %s", res.Status, res.Body, want)
	}
	get := api.Do(http.MethodGet, "/api/v2/settings", nil)
	if !strings.Contains(string(get.Body), `"serviceKeys":[{"service":"webhook_push","url":"`+hookA+`","secretSet":true}`) {
		t.Fatalf("GET: %s", get.Body)
	}
	for _, body := range [][]byte{res.Body, get.Body} {
		if strings.Contains(string(body), secretA) || strings.Contains(string(body), secretB) || strings.Contains(string(body), `"secret"`) {
			t.Fatalf("a secret was answered: %s", body)
		}
	}
	if got := storedKeys(t, s, ann.ID); len(got) != 2 || got[0].Secret != secretA || got[1].Secret != secretB {
		t.Fatalf("stored = %v", got)
	}

	// An entry for a configured url may leave the secret out to keep it; the
	// list is replaced (hookB goes), and the session's PUT takes the same body.
	res = ann.Session.Do(http.MethodPut, "/api/settings", `{"serviceKeys":[{"service":"webhook_push","url":"`+hookA+`"}]}`)
	if res.Status != 200 {
		t.Fatalf("PUT keeping the secret: %d %s", res.Status, res.Body)
	}
	if got := storedKeys(t, s, ann.ID); len(got) != 1 || got[0].URL != hookA || got[0].Secret != secretA {
		t.Fatalf("stored after keep = %v", got)
	}

	// clearFields empties the list and answers what it cleared.
	res = api.Do(http.MethodPatch, "/api/v2/settings", `{"clearFields":["serviceKeys"],"mode":"cockpit"}`)
	if res.Status != 200 || string(res.Body) != `{"mode":"cockpit","clearFields":["serviceKeys"]}`+"\n" {
		t.Fatalf("clear: %d %s", res.Status, res.Body)
	}
	if got := storedKeys(t, s, ann.ID); len(got) != 0 {
		t.Fatalf("stored after clear = %v", got)
	}
	if got := api.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["serviceKeys"]; got == nil || len(got.([]any)) != 0 {
		t.Fatalf("GET after clear: serviceKeys = %v, want []", got)
	}
	// Once cleared, the url is new again: its secret is required.
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[{"service":"webhook_push","url":"`+hookA+`"}]}`); res.Status != 400 {
		t.Fatalf("a new url without a secret: %d %s", res.Status, res.Body)
	}
	// Account isolation: bob sees none of it.
	bob := s.WithKey(s.SignUp("bob").NewKey("agent"))
	if got := bob.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["serviceKeys"]; len(got.([]any)) != 0 {
		t.Fatalf("bob's serviceKeys = %v", got)
	}
	// The activity entry names counts, never URLs or secrets.
	summaries, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(ann.ID)).Select(activityentry.FieldSummary).Strings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range summaries {
		if strings.Contains(sum, "93.184") || strings.Contains(sum, "secret") {
			t.Fatalf("activity summary %q shows a target", sum)
		}
	}
	if !slices.Contains(summaries, "Updated settings: serviceKeys cleared, mode=cockpit") {
		t.Fatalf("summaries = %q", summaries)
	}
}

// Bad input: a clear 400 and nothing written (house rules; document 1
// "Errors"). The previous list stays, and no activity is written.
func TestServiceKeysRefusals(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("agent"))
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[{"service":"webhook_push","url":"`+hookA+`","secret":"`+secretA+`"}]}`); res.Status != 200 {
		t.Fatalf("setup: %d %s", res.Status, res.Body)
	}
	entry := func(service, url, secret string) string {
		e := `{"service":"` + service + `","url":"` + url + `"`
		if secret != "-" {
			e += `,"secret":"` + secret + `"`
		}
		return e + `}`
	}
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = entry("webhook_push", hookA+"/"+strings.Repeat("x", i), secretA)
	}
	cases := []struct{ name, body, want string }{
		{"unknown service", `{"serviceKeys":[` + entry("telegram", hookB, secretB) + `]}`, "not one of webhook_push, email"},
		{"empty service", `{"serviceKeys":[` + entry("", hookB, secretB) + `]}`, "service"},
		{"relative url", `{"serviceKeys":[` + entry("webhook_push", "/hooks", secretB) + `]}`, "absolute http or https"},
		{"ftp url", `{"serviceKeys":[` + entry("webhook_push", "ftp://93.184.215.14/x", secretB) + `]}`, "absolute http or https"},
		{"no host", `{"serviceKeys":[` + entry("webhook_push", "https:///x", secretB) + `]}`, "absolute http or https"},
		{"credentials", `{"serviceKeys":[` + entry("webhook_push", "https://user:pw@93.184.215.14/x", secretB) + `]}`, "credentials"},
		{"fragment", `{"serviceKeys":[` + entry("webhook_push", hookB+"#frag", secretB) + `]}`, "fragment"},
		{"missing url", `{"serviceKeys":[{"service":"webhook_push","secret":"` + secretB + `"}]}`, "url is required"},
		{"url twice", `{"serviceKeys":[` + entry("webhook_push", hookB, secretB) + `,` + entry("webhook_push", hookB, secretA) + `]}`, "listed twice"},
		{"too many", `{"serviceKeys":[` + strings.Join(eleven, ",") + `]}`, "at most 10"},
		{"new url without secret", `{"serviceKeys":[` + entry("webhook_push", hookB, "-") + `]}`, "secret is required"},
		{"short secret", `{"serviceKeys":[` + entry("webhook_push", hookB, "short") + `]}`, "16 to 512"},
		{"empty secret", `{"serviceKeys":[` + entry("webhook_push", hookA, "") + `]}`, "16 to 512"},
		{"long secret", `{"serviceKeys":[` + entry("webhook_push", hookB, strings.Repeat("k", 513)) + `]}`, "16 to 512"},
		{"empty list alone", `{"serviceKeys":[]}`, "clearFields"},
		{"unknown clear field", `{"clearFields":["mode"]}`, "cannot be cleared"},
		{"snake_case clear field", `{"clearFields":["service_keys"]}`, "cannot be cleared"},
		{"set and cleared", `{"serviceKeys":[` + entry("webhook_push", hookB, secretB) + `],"clearFields":["serviceKeys"]}`, "both set and cleared"},
		{"unknown entry field", `{"serviceKeys":[{"service":"webhook_push","url":"` + hookB + `","secret":"` + secretB + `","token":"x"}]}`, ""},
		{"bad with good field", `{"queueAutoApprove":true,"serviceKeys":[` + entry("webhook_push", "nope", secretB) + `]}`, "absolute"},
	}
	before := storedKeys(t, s, ann.ID)
	entries := func() int {
		n, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(ann.ID)).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	activity := entries()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := api.Do(http.MethodPatch, "/api/v2/settings", tc.body)
			servertest.WantErrorContaining(t, res, http.StatusBadRequest, tc.want)
			msg, _ := res.JSON(t)["error"].(string)
			if strings.Contains(msg, secretA) || strings.Contains(msg, secretB) {
				t.Fatalf("the error repeats a secret: %s", msg)
			}
		})
	}
	if got := storedKeys(t, s, ann.ID); !slices.Equal(got, before) {
		t.Fatalf("refused PATCHes changed the list: %v", got)
	}
	if got := api.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t)["queueAutoApprove"]; got != false {
		t.Fatal("a refused PATCH applied its other field")
	}
	if n := entries(); n != activity {
		t.Fatalf("refused PATCHes wrote %d activity entries", n-activity)
	}
}

// RULINGS "Store, federation, MCP, A2A": without the allowance, targets on
// private, loopback and link-local addresses are refused when saved.
func TestServiceKeysRefusePrivateTargets(t *testing.T) {
	s := servertest.New(t) // no WithPrivateEndpoints
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("agent"))
	for _, url := range []string{
		"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://api.localhost/hook", "http://[::1]/hook",
		"http://10.1.2.3/hook", "http://192.168.0.10/hook", "http://172.16.5.4/hook", "http://169.254.169.254/latest",
		"http://[fe80::1]/hook", "http://[::ffff:127.0.0.1]/hook", "http://0.0.0.0/hook", "http://100.64.0.1/hook",
	} {
		t.Run(url, func(t *testing.T) {
			res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[{"service":"webhook_push","url":"`+url+`","secret":"`+secretA+`"}]}`)
			// The refusal names the flag that would admit the address (issue 31).
			if res.Status != 400 || !strings.Contains(string(res.Body), "private, loopback and link-local addresses are not allowed (--allow-private-endpoints admits them)") {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
	}
	if got := storedKeys(t, s, ann.ID); len(got) != 0 {
		t.Fatalf("stored = %v", got)
	}
	// A public address is fine.
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[{"service":"webhook_push","url":"`+hookA+`","secret":"`+secretA+`"}]}`); res.Status != 200 {
		t.Fatalf("public target: %d %s", res.Status, res.Body)
	}

	// With the allowance (tests on loopback), loopback is accepted.
	open := servertest.New(t, servertest.WithPrivateEndpoints())
	api = open.WithKey(open.SignUp("ann").NewKey("agent"))
	if res := api.Do(http.MethodPatch, "/api/v2/settings", `{"serviceKeys":[{"service":"webhook_push","url":"http://127.0.0.1:9/hook","secret":"`+secretA+`"}]}`); res.Status != 200 {
		t.Fatalf("loopback with the allowance: %d %s", res.Status, res.Body)
	}
}

// The same over Connect: typed entries, the secret never answered, refusals
// as invalid_argument, and the answer holds only what was applied.
func TestServiceKeysOverConnect(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("agent")
	for name, opts := range servertest.Protocols() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := switchboardv1connect.NewSettingsServiceClient(s.Client(name), s.URL,
				append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))...)
			res, err := c.UpdateSettings(ctx, &switchboardv1.UpdateSettingsRequest{ServiceKeys: []*switchboardv1.ServiceKeyInput{
				{Service: "webhook_push", Url: hookA, Secret: proto.String(secretA)},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res.QueueAutoApprove != nil || res.Mode != nil || len(res.ClearFields) != 0 ||
				len(res.ServiceKeys) != 1 || res.ServiceKeys[0].GetUrl() != hookA || !res.ServiceKeys[0].GetSecretSet() {
				t.Fatalf("UpdateSettings = %v", res)
			}
			got, err := c.GetSettings(ctx, &switchboardv1.GetSettingsRequest{})
			if err != nil || len(got.GetServiceKeys()) != 1 || got.GetServiceKeys()[0].GetService() != "webhook_push" {
				t.Fatalf("GetSettings = %v, %v", got, err)
			}
			if strings.Contains(got.String(), secretA) || strings.Contains(res.String(), secretA) {
				t.Fatal("a secret was answered")
			}
			cleared, err := c.UpdateSettings(ctx, &switchboardv1.UpdateSettingsRequest{ClearFields: []string{"serviceKeys", "serviceKeys"}})
			if err != nil || !slices.Equal(cleared.GetClearFields(), []string{"serviceKeys"}) || len(cleared.GetServiceKeys()) != 0 {
				t.Fatalf("clear = %v, %v", cleared, err)
			}
			_, err = c.UpdateSettings(ctx, &switchboardv1.UpdateSettingsRequest{ServiceKeys: []*switchboardv1.ServiceKeyInput{
				{Service: "webhook_push", Url: "http://127.0.0.1/x", Secret: proto.String(secretA)},
			}})
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
				t.Fatalf("private target: %v, want invalid_argument", err)
			}
		})
	}
}

// Over Connect JSON the answer to a mode-only PATCH stays {"mode":"cockpit"}:
// the empty lists are not applied fields (RULINGS "Exceptions from the
// documents").
func TestUpdateSettingsConnectJSONOmitsEmptyLists(t *testing.T) {
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("agent")
	res := s.WithKey(key).Do(http.MethodPost, "/switchboard.v1.SettingsService/UpdateSettings", `{"mode":"x"}`)
	if res.Status != 200 || string(res.Body) != `{"mode":"cockpit"}`+"\n" {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}
