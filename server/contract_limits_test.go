package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary": the contract's limits are the only ones.
// A value at a field's contract limit is taken where a handler used to
// refuse it with a tighter limit of its own, and one character more is 400
// naming the field (the contract's refusal). The store's execute inputs are
// TestExecuteTakesInputsAtTheContractLimit.
func TestContractLimitsAreTheOnlyLimits(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := s.WithKey(ann.NewKey("all", "chat", "store"))
	query := func(path, field string, n int) string {
		return path + url.Values{field: {strings.Repeat("a", n)}}.Encode()
	}
	for _, tc := range []struct {
		name, method, field string
		limit               int
		caller              *servertest.Caller
		call                func(c *servertest.Caller, n int) *servertest.Response
	}{
		{"mention search", http.MethodGet, "q", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/chat/mentions?type=people&", "q", n), nil)
		}},
		{"store browse", http.MethodGet, "search", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace?", "search", n), nil)
		}},
		{"pack browse", http.MethodGet, "search", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace-capabilities?", "search", n), nil)
		}},
		{"pack browse category", http.MethodGet, "category", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace-capabilities?", "category", n), nil)
		}},
		{"API key label", http.MethodPost, "label", 500, ann.Session, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": strings.Repeat("l", n)})
		}},
		{"developer key label", http.MethodPost, "label", 500, ann.Session, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": strings.Repeat("l", n)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := tc.call(tc.caller, tc.limit); res.Status != http.StatusOK && res.Status != http.StatusCreated {
				t.Errorf("%s at the contract's limit (%d): %d %s", tc.field, tc.limit, res.Status, res.Body)
			}
			servertest.WantErrorContaining(t, tc.call(tc.caller, tc.limit+1), http.StatusBadRequest, tc.field)
		})
	}
}

// The handlers' own limits that used to be tighter than the contract's are
// gone (RULINGS "Input at the boundary"): a store listing's fields, a
// capability pack's, an account's name, and an admin's reason. Each is taken
// at the contract's limit, and one more is the contract's 400 naming the
// field, on REST and (where a key may call) Connect.
func TestHandlerLimitsGiveWayToTheContract(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	owner := s.SignUp("owner")
	key := owner.NewKey("store", "store")
	const endpoint = "https://93.184.215.14/agent"
	long := func(n int) string { return strings.Repeat("x", n) }
	commands := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"name": fmt.Sprint("c", i)}
		}
		return out
	}
	listing := func(field string, v any) map[string]any {
		body := map[string]any{"name": "Agent " + ids.New(), "endpointUrl": endpoint, field: v}
		if field == "authCredential" {
			body["authMethod"] = "bearer"
		}
		return body
	}
	pack := func(field string, v any) map[string]any {
		body := map[string]any{"action": "create", "name": "Pack " + ids.New(), "prompt": "Do it.", field: v}
		return body
	}
	for _, tc := range []struct {
		name, path, field string
		at, over          any
		body              func(field string, v any) map[string]any
	}{
		{"listing name", "/api/marketplace", "name", long(500), long(501), listing},
		{"listing description", "/api/marketplace", "description", long(100_000), long(100_001), listing},
		{"listing developerName", "/api/marketplace", "developerName", long(500), long(501), listing},
		{"listing outputFormat", "/api/marketplace", "outputFormat", long(1000), long(1001), listing},
		{"listing installGuide", "/api/marketplace", "installGuide", long(100_000), long(100_001), listing},
		{"listing usageExamples", "/api/marketplace", "usageExamples", long(100_000), long(100_001), listing},
		{"listing taskTypes", "/api/marketplace", "taskTypes", []string{long(1000)}, []string{long(1001)}, listing},
		{"listing commands", "/api/marketplace", "commands", commands(100), commands(101), listing},
		{"listing command name", "/api/marketplace", "commands", []map[string]any{{"name": long(500), "usage": long(100_000)}},
			[]map[string]any{{"name": long(501)}}, listing},
		{"listing authCredential", "/api/marketplace", "authCredential", long(1000), long(1001), listing},
		{"pack name", "/api/marketplace-capabilities", "name", long(500), long(501), pack},
		{"pack category", "/api/marketplace-capabilities", "category", long(1000), long(1001), pack},
		{"pack description", "/api/marketplace-capabilities", "description", long(100_000), long(100_001), pack},
		{"pack prompt", "/api/marketplace-capabilities", "prompt", long(100_000), long(100_001), pack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := owner.Session.Do(http.MethodPost, tc.path, tc.body(tc.field, tc.at)); res.Status != http.StatusCreated && res.Status != http.StatusOK {
				t.Errorf("%s at the contract's limit: %d %.300s", tc.field, res.Status, res.Body)
			}
			servertest.WantErrorContaining(t, owner.Session.Do(http.MethodPost, tc.path, tc.body(tc.field, tc.over)), http.StatusBadRequest, tc.field)
		})
	}

	t.Run("account name", func(t *testing.T) {
		signup := func(name string) *servertest.Response {
			u := "u" + strings.ToLower(ids.New()[:8])
			return s.Anonymous().Do(http.MethodPost, "/api/signup", map[string]any{"username": u, "email": u + "@example.com",
				"password": servertest.Password, "name": name})
		}
		if res := signup(long(500)); res.Status != http.StatusCreated {
			t.Errorf("name at the contract's limit: %d %.300s", res.Status, res.Body)
		}
		servertest.WantErrorContaining(t, signup(long(501)), http.StatusBadRequest, "name")
		c := switchboardv1connect.NewAccountServiceClient(s.HTTP, s.URL)
		u := "c" + strings.ToLower(ids.New()[:8])
		if _, err := c.Signup(t.Context(), &switchboardv1.SignupRequest{Username: u, Email: u + "@example.com",
			Password: servertest.Password, Name: long(500)}); err != nil {
			t.Errorf("Connect: name at the contract's limit: %v", err)
		}
		_, err := c.Signup(t.Context(), &switchboardv1.SignupRequest{Username: u + "x", Email: u + "x@example.com",
			Password: servertest.Password, Name: long(501)})
		wantInvalid(t, err, "name")
	})

	t.Run("admin reason", func(t *testing.T) {
		res := owner.Session.Do(http.MethodPost, "/api/marketplace", listing("description", "x"))
		id, _ := res.JSON(t)["agent"].(map[string]any)["id"].(string)
		if id == "" {
			t.Fatalf("create listing: %d %s", res.Status, res.Body)
		}
		servertest.WantErrorContaining(t, owner.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/disable",
			map[string]any{"reason": long(100_001)}), http.StatusBadRequest, "reason")
		if res := owner.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/disable",
			map[string]any{"reason": long(100_000)}); res.Status != http.StatusOK {
			t.Errorf("reason at the contract's limit: %d %.300s", res.Status, res.Body)
		}
	})

	t.Run("Connect", func(t *testing.T) {
		auth := connect.WithInterceptors(servertest.BearerInterceptor(key))
		store := switchboardv1connect.NewStoreServiceClient(s.HTTP, s.URL, auth)
		in := func(name string) *switchboardv1.CreateStoreAgentRequest {
			return &switchboardv1.CreateStoreAgentRequest{Agent: &switchboardv1.StoreAgentInput{Name: &name,
				EndpointUrl: proto.String(endpoint), Description: proto.String(long(100_000))}}
		}
		// A name of its own: the slug is derived from it.
		unique := "c" + ids.New() + " "
		if _, err := store.CreateStoreAgent(t.Context(), in(unique+long(500-len(unique)))); err != nil {
			t.Errorf("listing name at the contract's limit: %v", err)
		}
		_, err := store.CreateStoreAgent(t.Context(), in(long(501)))
		wantInvalid(t, err, "name")
		caps := switchboardv1connect.NewCapabilityServiceClient(s.HTTP, s.URL, auth)
		if _, err := caps.InstallOrCreateCapability(t.Context(), &switchboardv1.InstallOrCreateCapabilityRequest{Action: "create",
			Name: long(500), Category: proto.String(long(1000)), Prompt: "Do it."}); err != nil {
			t.Errorf("pack at the contract's limits: %v", err)
		}
		_, err = caps.InstallOrCreateCapability(t.Context(), &switchboardv1.InstallOrCreateCapabilityRequest{Action: "create",
			Name: "Pack", Category: proto.String(long(1001)), Prompt: "Do it."})
		wantInvalid(t, err, "category")
	})
}

// wantInvalid wants a Connect invalid_argument naming the field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), field) {
		t.Errorf("want invalid_argument naming %s, got %v", field, err)
	}
}
