package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Errors": malformed JSON, unknown enum strings, missing required
// fields and every other bad input are a 400 in the error form, and nothing
// is written: no listing, no change to the existing one.
func TestBadInputWritesNothingStore(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	existing := f.create(t, f.api, map[string]any{"name": "Keep", "slug": "keep", "pricingModel": "per_task", "pricePerTask": 1,
		"authMethod": "bearer", "authCredential": "tok_keep_me"})
	id := existing["id"].(string)
	before := f.counts(t)
	snapshot := f.get(t, f.api, id)

	post, put := "/api/marketplace", "/api/marketplace/"+id
	ep := `"endpointUrl":"` + publicURL + `"`
	cases := []struct{ name, method, path, body string }{
		{"create malformed", http.MethodPost, post, `{"name":`},
		{"create not an object", http.MethodPost, post, `["name"]`},
		{"create empty body", http.MethodPost, post, ``},
		{"create empty object", http.MethodPost, post, `{}`},
		{"create unknown field", http.MethodPost, post, `{"name":"X",` + ep + `,"nickname":"x"}`},
		{"create wrapped", http.MethodPost, post, `{"agent":{"name":"X",` + ep + `}}`},
		{"create missing name", http.MethodPost, post, `{` + ep + `}`},
		{"create blank name", http.MethodPost, post, `{"name":"  ",` + ep + `}`},
		{"create missing endpoint", http.MethodPost, post, `{"name":"X"}`},
		{"create name wrong type", http.MethodPost, post, `{"name":42,` + ep + `}`},
		{"create NUL name", http.MethodPost, post, `{"name":"X\u0000Y",` + ep + `}`},
		{"create long name", http.MethodPost, post, `{"name":"` + strings.Repeat("n", 501) + `",` + ep + `}`},
		{"create unusable derived slug", http.MethodPost, post, `{"name":"!!",` + ep + `}`},
		{"create bad slug", http.MethodPost, post, `{"name":"X","slug":"Not A Slug",` + ep + `}`},
		{"create slug with double dash", http.MethodPost, post, `{"name":"X","slug":"a--b",` + ep + `}`},
		{"create unknown category", http.MethodPost, post, `{"name":"X","category":"sports",` + ep + `}`},
		{"create unknown pricing model", http.MethodPost, post, `{"name":"X","pricingModel":"pay_what_you_want",` + ep + `}`},
		{"create upper-case enum", http.MethodPost, post, `{"name":"X","inputFormat":"JSON",` + ep + `}`},
		{"create unknown auth method", http.MethodPost, post, `{"name":"X","authMethod":"oauth",` + ep + `}`},
		{"create unknown availability", http.MethodPost, post, `{"name":"X","availability":"busy",` + ep + `}`},
		{"create unknown widget type", http.MethodPost, post, `{"name":"X","declaredWidgetTypes":["carousel"],` + ep + `}`},
		{"create blank task type", http.MethodPost, post, `{"name":"X","taskTypes":["a"," "],` + ep + `}`},
		{"create endpoint not a URL", http.MethodPost, post, `{"name":"X","endpointUrl":"agent.example.com"}`},
		{"create endpoint ftp", http.MethodPost, post, `{"name":"X","endpointUrl":"ftp://93.184.215.14/x"}`},
		{"create endpoint with credentials", http.MethodPost, post, `{"name":"X","endpointUrl":"https://u:p@93.184.215.14/x"}`},
		{"create loopback endpoint", http.MethodPost, post, `{"name":"X","endpointUrl":"http://127.0.0.1:8080/agent"}`},
		{"create private endpoint", http.MethodPost, post, `{"name":"X","endpointUrl":"http://10.0.0.7/agent"}`},
		{"create link-local health check", http.MethodPost, post, `{"name":"X",` + ep + `,"healthCheckUrl":"http://169.254.169.254/latest"}`},
		{"create localhost endpoint", http.MethodPost, post, `{"name":"X","endpointUrl":"http://localhost/agent"}`},
		{"create negative price", http.MethodPost, post, `{"name":"X","pricingModel":"per_task","pricePerTask":-1,` + ep + `}`},
		{"create subcent price", http.MethodPost, post, `{"name":"X","pricingModel":"per_task","pricePerTask":2.125,` + ep + `}`}, // money in cents (issue 11)
		{"create subcent tier price", http.MethodPost, post, `{"name":"X","pricingModel":"tiered","pricingConfig":{"tiers":[{"name":"a","pricePerTask":0.001}]},` + ep + `}`},
		{"create NaN price", http.MethodPost, post, `{"name":"X","pricingModel":"per_task","pricePerTask":"NaN",` + ep + `}`},
		{"create two price aliases", http.MethodPost, post, `{"name":"X","pricingModel":"per_task","pricePerTask":1,"price":1,` + ep + `}`},
		{"create per_task without price", http.MethodPost, post, `{"name":"X","pricingModel":"per_task",` + ep + `}`},
		{"create free with a price", http.MethodPost, post, `{"name":"X","pricePerTask":3,` + ep + `}`},
		{"create tiered without tiers", http.MethodPost, post, `{"name":"X","pricingModel":"tiered",` + ep + `}`},
		{"create dynamic without range", http.MethodPost, post, `{"name":"X","pricingModel":"dynamic",` + ep + `}`},
		{"create inverted range", http.MethodPost, post, `{"name":"X","pricingModel":"dynamic","pricingConfig":{"dynamicConfig":{"estimateRange":[5,1]}},` + ep + `}`},
		{"create config model mismatch", http.MethodPost, post, `{"name":"X","pricingModel":"per_task","pricePerTask":1,"pricingConfig":{"model":"free"},` + ep + `}`},
		{"create tier without name", http.MethodPost, post, `{"name":"X","pricingModel":"tiered","pricingConfig":{"tiers":[{"pricePerTask":1}]},` + ep + `}`},
		{"create lower-case currency", http.MethodPost, post, `{"name":"X","currency":"usd",` + ep + `}`},
		{"create bad version", http.MethodPost, post, `{"name":"X","version":"v1.2",` + ep + `}`},
		{"create short timeout", http.MethodPost, post, `{"name":"X","executionTimeout":5,` + ep + `}`},
		{"create schema not an object", http.MethodPost, post, `{"name":"X","requiredInputSchema":"[1,2]",` + ep + `}`},
		{"create schema not JSON", http.MethodPost, post, `{"name":"X","outputSchema":"{type: object}",` + ep + `}`},
		{"create bearer without credential", http.MethodPost, post, `{"name":"X","authMethod":"bearer",` + ep + `}`},
		{"create credential without method", http.MethodPost, post, `{"name":"X","authCredential":"tok_x",` + ep + `}`},
		{"create short hmac secret", http.MethodPost, post, `{"name":"X","authMethod":"hmac","authCredential":"short",` + ep + `}`},
		{"create credential with newline", http.MethodPost, post, `{"name":"X","authMethod":"bearer","authCredential":"tok\r\nX-Evil: 1",` + ep + `}`},
		{"create short access password", http.MethodPost, post, `{"name":"X","accessPassword":"short",` + ep + `}`},
		{"create duplicate command", http.MethodPost, post, `{"name":"X","commands":[{"name":"/a"},{"name":"/a"}],` + ep + `}`},
		{"create clearFields", http.MethodPost, post, `{"name":"X","clearFields":["description"],` + ep + `}`},
		{"create changelog", http.MethodPost, post, `{"name":"X","changelog":"first",` + ep + `}`},
		{"update malformed", http.MethodPut, put, `{"name":"Y"`},
		{"update unknown field", http.MethodPut, put, `{"name":"Y","nickname":"y"}`},
		{"update nothing", http.MethodPut, put, `{}`},
		{"update empty lists only", http.MethodPut, put, `{"taskTypes":[],"commands":[]}`},
		{"update changelog only", http.MethodPut, put, `{"changelog":"nothing really"}`},
		{"update blank name", http.MethodPut, put, `{"name":""}`},
		{"update blank endpoint", http.MethodPut, put, `{"endpointUrl":""}`},
		{"update unknown enum", http.MethodPut, put, `{"availability":"sometimes"}`},
		{"update clear required", http.MethodPut, put, `{"clearFields":["name"]}`},
		{"update clear unknown", http.MethodPut, put, `{"clearFields":["nickname"]}`},
		{"update set and clear", http.MethodPut, put, `{"description":"d","clearFields":["description"]}`},
		{"update lower version", http.MethodPut, put, `{"version":"0.9.0"}`},
		{"update same version", http.MethodPut, put, `{"version":"1.0.0"}`},
		{"update method without credential", http.MethodPut, put, `{"authMethod":"api_key"}`},
		{"update credential with method none", http.MethodPut, put, `{"authMethod":"none","authCredential":"tok_x"}`},
		{"update price on free", http.MethodPut, put, `{"pricingModel":"free","pricePerTask":4}`},
		{"update zero price on per_task", http.MethodPut, put, `{"pricePerTask":0}`},
		{"update loopback endpoint", http.MethodPut, put, `{"endpointUrl":"http://[::1]/agent"}`},
		{"list unknown sort", http.MethodGet, post + "?sort=random", ``},
		{"list unknown scope", http.MethodGet, post + "?scope=galaxy", ``},
		{"list unknown category", http.MethodGet, post + "?category=sports", ``},
		{"list unknown pricing", http.MethodGet, post + "?pricing=cheap", ``},
		{"list negative limit", http.MethodGet, post + "?limit=-1", ``},
		{"list unknown parameter", http.MethodGet, post + "?q=x", ``},
		{"list NUL search", http.MethodGet, post + "?search=a%00b", ``},
		{"rate missing fields", http.MethodPost, put + "/rate", `{}`},
		{"rate zero stars", http.MethodPost, put + "/rate", `{"executionId":"cx","rating":0}`},
		{"rate six stars", http.MethodPost, put + "/rate", `{"executionId":"cx","rating":6}`},
		{"rate no execution", http.MethodPost, put + "/rate", `{"rating":3}`},
		{"rate malformed", http.MethodPost, put + "/rate", `{"rating":`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			servertest.WantError(t, f.api.Do(tc.method, tc.path, body), http.StatusBadRequest)
		})
	}

	ctx := context.Background()
	c := f.client("connect+json", f.annKey)
	for name, in := range map[string]*switchboardv1.StoreAgentInput{
		"connect missing name":      {EndpointUrl: proto.String(publicURL)},
		"connect unknown enum":      {Name: proto.String("X"), EndpointUrl: proto.String(publicURL), InputFormat: proto.String("xml")},
		"connect loopback endpoint": {Name: proto.String("X"), EndpointUrl: proto.String("http://127.0.0.1/")},
		"connect nil input":         nil,
	} {
		_, err := c.CreateStoreAgent(ctx, &switchboardv1.CreateStoreAgentRequest{Agent: in})
		if connect.CodeOf(err) != connect.CodeInvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := c.UpdateStoreAgent(ctx, &switchboardv1.UpdateStoreAgentRequest{Id: id, Agent: &switchboardv1.StoreAgentInput{}})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = c.RateStoreExecution(ctx, &switchboardv1.RateStoreExecutionRequest{Id: id, ExecutionId: "x", Rating: 9})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)

	if after := f.counts(t); after != before {
		t.Fatalf("refused requests wrote rows: %+v → %+v", before, after)
	}
	if got := f.get(t, f.api, id); !equalJSON(got, snapshot) {
		t.Fatalf("refused updates changed the listing:\n%v\n%v", snapshot, got)
	}
}

// RULINGS "Store, federation, MCP, A2A": an instance that allows private
// endpoints accepts loopback agents (what tests of the engine will need).
func TestPrivateEndpointsWhenAllowed(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t, servertest.WithPrivateEndpoints())
	a := f.create(t, f.api, map[string]any{"name": "Local", "endpointUrl": "http://127.0.0.1:9/agent",
		"healthCheckUrl": "http://localhost:9/health"})
	if a["endpointUrl"] != "http://127.0.0.1:9/agent" {
		t.Fatalf("endpointUrl = %v", a["endpointUrl"])
	}
}

// A key without the store scope cannot use the store (RULINGS "Accounts,
// keys, sessions": out of scope is 403), and the dashboard's session can.
func TestStoreScopeAndSession(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	queueOnly := f.s.WithKey(f.ann.NewKey("queue-only", "queue"))
	servertest.WantError(t, queueOnly.Do(http.MethodGet, "/api/marketplace", nil), http.StatusForbidden)
	servertest.WantError(t, queueOnly.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "X", "endpointUrl": publicURL}), http.StatusForbidden)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/marketplace", nil), http.StatusUnauthorized)
	res := f.ann.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "From the dashboard", "endpointUrl": publicURL})
	if res.Status != http.StatusCreated {
		t.Fatalf("session create: %d %s", res.Status, res.Body)
	}
	if n := f.counts(t).agents; n != 1 {
		t.Fatalf("%d listings, want 1", n)
	}
}
