package throughtest

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// paidEmailPack needs the email integration and costs 4.99 (or the password).
func paidEmailPack() map[string]any {
	p := samplePack()
	p["name"], p["integrationType"], p["pricingModel"], p["price"] = "Inbox Triage", "email", "one_time", 4.99
	p["accessPassword"] = "letmein-please"
	return p
}

// connectEmail adds the email integration to the account's settings
// (serviceKeys, the settings' webhooks and service keys).
func connectEmail(t *testing.T, api *servertest.Caller) {
	t.Helper()
	res := api.Do(http.MethodPatch, "/api/v2/settings",
		`{"serviceKeys":[{"service":"email","url":"https://93.184.215.14/mail","secret":"mail-token-0123456789"}]}`)
	if res.Status != http.StatusOK {
		t.Fatalf("connect email: %d %s", res.Status, res.Body)
	}
}

// Document 2, "Errors": installing a pack whose integration is not
// connected is 422 {error, code, requiredIntegration}; a paid pack without
// payment or the right password is 402 {error, code, price} (RULINGS
// "Errors": the REST body also has success false). Neither writes anything.
// The integration is checked first; the right password installs.
func TestInstallRefusalsExactBodies(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	id := f.create(t, f.api, paidEmailPack())["capabilityId"].(string)
	before := f.counts(t)

	res := f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id, "accessPassword": "letmein-please"})
	want := map[string]any{
		"success": false, "code": "INTEGRATION_REQUIRED", "requiredIntegration": "email",
		"error": `capability "Inbox Triage" needs the email integration connected first`,
	}
	if res.Status != http.StatusUnprocessableEntity || !reflect.DeepEqual(res.JSON(t), want) {
		t.Fatalf("422: %d %s", res.Status, res.Body)
	}
	connectEmail(t, f.bob.Session)

	res = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id})
	want = map[string]any{
		"success": false, "code": "PAYMENT_REQUIRED", "price": 4.99,
		"error": `capability "Inbox Triage" is a paid pack: payment or its access password is required`,
	}
	if res.Status != http.StatusPaymentRequired || !reflect.DeepEqual(res.JSON(t), want) {
		t.Fatalf("402: %d %s", res.Status, res.Body)
	}
	res = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id, "accessPassword": "wrong-password"})
	if res.Status != http.StatusPaymentRequired || res.JSON(t)["code"] != "PAYMENT_REQUIRED" || res.JSON(t)["price"] != 4.99 {
		t.Fatalf("402 wrong password: %d %s", res.Status, res.Body)
	}
	if got := f.counts(t); got != before {
		t.Fatalf("a refusal wrote rows: %v → %v", before, got)
	}
	res = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id, "accessPassword": "letmein-please"})
	if res.Status != http.StatusCreated {
		t.Fatalf("install with the password: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["capability"].(map[string]any)
	if got["integrationConnected"] != true || got["installed"] != true || got["accessPassword"] != nil {
		t.Fatalf("installed: %v", got)
	}
}

// RULINGS "Errors": on Connect, 422 and 402 are failed_precondition with the
// documented code (and requiredIntegration, price) in an ErrorInfo detail,
// and the same message text.
func TestInstallRefusalsOverConnect(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	id := f.create(t, f.api, paidEmailPack())["capabilityId"].(string)
	for name := range servertest.Protocols() {
		c := f.client(name, f.bobKey)
		_, err := c.InstallOrCreateCapability(context.Background(), &switchboardv1.InstallOrCreateCapabilityRequest{CapabilityId: id})
		info := errorInfo(t, err)
		if connect.CodeOf(err) != connect.CodeFailedPrecondition || info.GetCode() != "INTEGRATION_REQUIRED" ||
			info.GetRequiredIntegration() != "email" || !strings.Contains(err.Error(), "needs the email integration") {
			t.Fatalf("%s 422: %v %v", name, err, info)
		}
	}
	connectEmail(t, f.bob.Session)
	for name := range servertest.Protocols() {
		c := f.client(name, f.bobKey)
		_, err := c.InstallOrCreateCapability(context.Background(), &switchboardv1.InstallOrCreateCapabilityRequest{
			CapabilityId: id, AccessPassword: proto.String("nope-nope-nope")})
		info := errorInfo(t, err)
		if connect.CodeOf(err) != connect.CodeFailedPrecondition || info.GetCode() != "PAYMENT_REQUIRED" || info.GetPrice() != 4.99 {
			t.Fatalf("%s 402: %v %v", name, err, info)
		}
	}
}

func errorInfo(t *testing.T, err error) *switchboardv1.ErrorInfo {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("not a Connect error: %v", err)
	}
	for _, d := range ce.Details() {
		v, derr := d.Value()
		if info, ok := v.(*switchboardv1.ErrorInfo); derr == nil && ok {
			return info
		}
	}
	t.Fatalf("no ErrorInfo detail: %v", err)
	return nil
}

// Bad input is a clear 400 that writes nothing (RULINGS "Errors"); document
// 2, "Capability pack": subscription is refused.
func TestCreateRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	with := func(k string, v any) map[string]any {
		p := samplePack()
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
		return p
	}
	cases := []struct {
		name string
		body any
		want string
	}{
		{"subscription", with("pricingModel", "subscription"), `pricingModel "subscription" is not one of free, one_time`},
		{"unknown pricing", with("pricingModel", "per_task"), "pricingModel"},
		{"no name", with("name", nil), "name is required"},
		{"blank name", with("name", "   "), "name is required"},
		{"no prompt", with("prompt", nil), "prompt is required"},
		{"variable without field", with("prompt", "Hi {{who}}"), `editableFields has no field "who"`},
		{"fields not JSON", with("editableFields", "[{"), "editableFields must be a JSON array"},
		{"fields an object", with("editableFields", `{"name":"a"}`), "editableFields must be a JSON array"},
		{"field unknown key", with("editableFields", `[{"name":"a","colour":"red"}]`), "unknown field"},
		{"field bad name", with("editableFields", `[{"name":"1a"}]`), "name must be"},
		{"field twice", with("editableFields", `[{"name":"a"},{"name":"a"}]`), "listed twice"},
		{"field bad type", with("editableFields", `[{"name":"a","type":"colour"}]`), "type"},
		{"number default", with("editableFields", `[{"name":"a","type":"number","default":"many"}]`), "must be a number"},
		{"unknown integration", with("integrationType", "fax"), "integrationType"},
		{"password on free", with("accessPassword", "letmein-please"), "only for one_time"},
		{"one_time without price", with("pricingModel", "one_time"), "price above 0"},
		{"free with price", with("price", 3), "free pack has no price"},
		{"negative price", with("price", -1), "price must be"},
		{"subcent price", with("price", 4.999), "at most two decimals"}, // money in cents (issue 11)
		{"NUL in name", with("name", "a\x00b"), "NUL"},
		{"capabilityId on create", with("capabilityId", "x"), "capabilityId is for installs"},
		{"unknown action", with("action", "remove"), "action"},
		{"unknown body field", with("colour", "red"), "colour"},
		{"install without id", map[string]any{}, "capabilityId is required"},
		{"install with create fields", map[string]any{"capabilityId": "x", "name": "n"}, "needs action"},
		{"malformed JSON", "{", "body is not valid JSON: it ends early"},
	}
	before := f.counts(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantErrorContaining(t, f.api.Do(http.MethodPost, capsPath, tc.body), http.StatusBadRequest, tc.want)
		})
	}
	if got := f.counts(t); got != before {
		t.Fatalf("refusals wrote rows: %v → %v", before, got)
	}
}

// PATCH refuses fields the pack does not have, values that do not suit
// their field, and a variable left without a value; nothing is written.
func TestCustomizeRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	p := samplePack()
	p["prompt"] = "Write to {{recipient}} {{count}} times in a {{tone}} tone"
	p["editableFields"] = `[{"name":"recipient"},{"name":"tone","default":"warm"},{"name":"count","type":"number","default":2}]`
	id := f.create(t, f.api, p)["capabilityId"].(string)
	ok := f.api.Do(http.MethodPatch, capsPath+"/"+id, map[string]any{"customizations": map[string]any{"recipient": "Ada"}})
	if ok.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", ok.Status, ok.Body)
	}
	if got := ok.JSON(t)["capability"].(map[string]any)["resolvedPrompt"]; got != "Write to Ada 2 times in a warm tone" {
		t.Fatalf("number default: %v", got)
	}
	cases := []struct {
		name string
		body any
		want string
	}{
		{"unknown field", map[string]any{"customizations": map[string]any{"recipient": "A", "colour": "red"}}, `"colour" is not an editable field`},
		{"not a number", map[string]any{"customizations": map[string]any{"recipient": "A", "count": "lots"}}, "must be a number"},
		{"missing value", map[string]any{"customizations": map[string]any{"tone": "dry"}}, `no value for "recipient"`},
		{"NUL value", map[string]any{"customizations": map[string]any{"recipient": "a\x00"}}, "NUL"},
		{"value not a string", `{"customizations":{"recipient":5}}`, "customizations.recipient must be a string"},
		{"unknown body field", map[string]any{"customisations": map[string]any{}}, "customisations"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantErrorContaining(t, f.api.Do(http.MethodPatch, capsPath+"/"+id, tc.body), http.StatusBadRequest, tc.want)
		})
	}
	got := f.api.Do(http.MethodGet, capsPath+"/"+id, nil).JSON(t)["capability"].(map[string]any)
	if got["resolvedPrompt"] != "Write to Ada 2 times in a warm tone" || !reflect.DeepEqual(got["customizations"], map[string]any{"recipient": "Ada"}) {
		t.Fatalf("a refusal changed the installation: %v", got)
	}
}

// RULINGS "Accounts, keys, sessions": another account's installation is
// private: changing or removing a pack one has not installed is 404, as is
// an unknown pack; another account never sees the password value.
func TestIsolation(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	id := f.create(t, f.api, paidEmailPack())["capabilityId"].(string)
	for _, c := range []struct{ method, path string }{
		{http.MethodPatch, capsPath + "/" + id},
		{http.MethodDelete, capsPath + "/" + id},
		{http.MethodGet, capsPath + "/nosuchpack"},
		{http.MethodPatch, capsPath + "/nosuchpack"},
		{http.MethodDelete, capsPath + "/nosuchpack"},
	} {
		if res := f.bobAPI.Do(c.method, c.path, map[string]any{}); res.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s", c.method, c.path, res.Status, res.Body)
		}
	}
	if res := f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": "nosuchpack"}); res.Status != http.StatusNotFound {
		t.Fatalf("install unknown: %d %s", res.Status, res.Body)
	}
	res := f.bobAPI.Do(http.MethodGet, capsPath+"/"+id, nil)
	if res.Status != http.StatusOK || strings.Contains(string(res.Body), "letmein-please") {
		t.Fatalf("bob's view shows the password: %s", res.Body)
	}
	for _, body := range []string{string(f.bobAPI.Do(http.MethodGet, capsPath, nil).Body)} {
		if strings.Contains(body, "letmein-please") {
			t.Fatalf("bob's list shows the password: %s", body)
		}
	}
}

// Session routes (document 2) that also take a key of the store scope, like
// the store: another scope is 403, no credential 401.
func TestAccessCapabilities(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	queueKey := f.s.WithKey(f.ann.NewKey("queue-only", "queue"))
	for _, path := range []string{capsPath, "/api/smart-tasks/available"} {
		if res := f.ann.Session.Do(http.MethodGet, path, nil); res.Status != http.StatusOK {
			t.Errorf("session %s: %d", path, res.Status)
		}
		if res := f.api.Do(http.MethodGet, path, nil); res.Status != http.StatusOK {
			t.Errorf("store key %s: %d", path, res.Status)
		}
		if res := queueKey.Do(http.MethodGet, path, nil); res.Status != http.StatusForbidden {
			t.Errorf("queue key %s: %d", path, res.Status)
		}
		if res := f.s.Anonymous().Do(http.MethodGet, path, nil); res.Status != http.StatusUnauthorized {
			t.Errorf("anonymous %s: %d", path, res.Status)
		}
	}
}
