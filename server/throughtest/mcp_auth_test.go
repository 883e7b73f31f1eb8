package throughtest

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The challenges of the MCP door (RFC 9110 §11.6.1, RFC 6750 §3).
const (
	realmChallenge        = `Bearer realm="switchboard"`
	invalidTokenChallenge = `Bearer realm="switchboard", error="invalid_token"`
	scopeChallenge        = `Bearer realm="switchboard", error="insufficient_scope", scope="mcp"`
)

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// mcpPost posts a JSON-RPC body to the MCP door as a Streamable HTTP client does.
func mcpPost(c *servertest.Caller, body string, hdr ...string) *servertest.Response {
	return c.Do(http.MethodPost, "/api/mcp", body, append([]string{"Accept", "application/json, text/event-stream"}, hdr...)...)
}

// wantRefusal checks a refusal of the MCP door: its status, its challenge,
// and the REST error body exactly as the gate writes it everywhere else.
func wantRefusal(t *testing.T, res *servertest.Response, status int, challenge, body string) {
	t.Helper()
	servertest.WantError(t, res, status)
	if got := res.Header.Values("WWW-Authenticate"); !slices.Equal(got, []string{challenge}) {
		t.Errorf("WWW-Authenticate %q, want %q", got, challenge)
	}
	if string(res.Body) != body {
		t.Errorf("body %s, want %s", res.Body, body)
	}
}

// RULINGS "A2A" details: every 401 of the MCP door carries `WWW-Authenticate:
// Bearer realm="switchboard"`, which MCP clients read to choose between a
// key and OAuth (it names no resource metadata, so none starts an OAuth
// flow); a key without the mcp scope gets its 403 with
// error="insufficient_scope", scope="mcp". A presented key that admits no one
// adds error="invalid_token" (RFC 6750), on its 401 (unknown) and its 403
// (expired or deactivated, RULINGS "Accounts, keys, sessions"). The bodies
// are the REST error bodies, unchanged; REST routes send no challenge.
func TestMCPChallenges(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	missing := `{"success":false,"error":"missing API key: send \"Authorization: Bearer <API key>\""}` + "\n"

	wantRefusal(t, mcpPost(srv.Anonymous(), mcpInitialize), http.StatusUnauthorized, realmChallenge, missing)
	wantRefusal(t, srv.Anonymous().Do(http.MethodGet, "/api/mcp", nil, "Accept", "text/event-stream"),
		http.StatusUnauthorized, realmChallenge, missing)
	wantRefusal(t, srv.Anonymous().Do(http.MethodPost, "/api/mcp", map[string]any{"method": "tools/list"}),
		http.StatusUnauthorized, realmChallenge, missing)
	wantRefusal(t, mcpPost(srv.Anonymous(), mcpInitialize, "Authorization", "Basic YW5uOnB3"), http.StatusUnauthorized, realmChallenge,
		`{"success":false,"error":"malformed Authorization header; expected \"Bearer <API key>\""}`+"\n")
	wantRefusal(t, mcpPost(srv.WithKey("sb_not_a_key"), mcpInitialize), http.StatusUnauthorized, invalidTokenChallenge,
		`{"success":false,"error":"invalid API key"}`+"\n")
	wantRefusal(t, mcpPost(srv.WithKey(ann.NewKey("no mcp", "queue")), mcpInitialize), http.StatusForbidden, scopeChallenge,
		`{"success":false,"error":"API key lacks the \"mcp\" scope"}`+"\n")

	// A REST route's refusal is as it was: no challenge.
	rest := srv.Anonymous().Do(http.MethodGet, "/api/v2/queue", nil)
	servertest.WantError(t, rest, http.StatusUnauthorized)
	if got := rest.Header.Get("WWW-Authenticate"); got != "" {
		t.Errorf("GET /api/v2/queue: WWW-Authenticate %q", got)
	}
}

// A key that lapses during a session is refused at the session's next
// request with invalid_token, on the 403 of a lapsed key (deleted keys are
// deactivated, expired ones known too).
func TestMCPChallengesMidSession(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	session := func(key string) string {
		t.Helper()
		res := mcpPost(srv.WithKey(key), mcpInitialize)
		servertest.WantStatus(t, res, http.StatusOK)
		id := res.Header.Get("Mcp-Session-Id")
		if id == "" {
			t.Fatal("initialize gave no session id")
		}
		return id
	}
	next := func(key, id string) *servertest.Response {
		return mcpPost(srv.WithKey(key), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
	}

	deleted := ann.NewKey("deleted", "mcp")
	id := session(deleted)
	servertest.WantStatus(t, ann.Session.Do(http.MethodDelete, "/api/v2/keys/"+keyID(t, ann, "deleted"), nil), http.StatusOK)
	wantRefusal(t, next(deleted, id), http.StatusForbidden, invalidTokenChallenge, `{"success":false,"error":"API key has been deactivated"}`+"\n")

	made := ann.Session.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": "expiring", "scopes": []string{"mcp"},
		"expiresAt": srv.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	servertest.WantStatus(t, made, http.StatusCreated)
	expiring := made.JSON(t)["apiKey"].(string)
	id = session(expiring)
	srv.Clock.Advance(2 * time.Hour)
	wantRefusal(t, next(expiring, id), http.StatusForbidden, invalidTokenChallenge, `{"success":false,"error":"API key expired"}`+"\n")
}

// RULINGS "A2A" details and "MCP": the official TypeScript SDK client with
// no key (no Authorization header, no authProvider) is refused with the 401
// and its realm challenge, and asks for nothing but /api/mcp: no OAuth
// discovery (/.well-known/oauth-*), which a challenge naming resource
// metadata would start.
func TestTypeScriptSDKClientWithoutKey(t *testing.T) {
	srv := servertest.New(t)
	steps, order := runTS(t, "ts-sdk-nokey.mjs", srv.URL)
	if !slices.Equal(order, []string{"connect"}) {
		t.Fatalf("steps %v", order)
	}
	c := steps["connect"]
	if c.Connected || !c.StreamableHTTPError || c.Code == nil || *c.Code != http.StatusUnauthorized {
		t.Fatalf("connect without a key: connected=%v %s code=%v: %s", c.Connected, c.ErrorName, c.Code, c.Message)
	}
	t.Logf("the client's requests: %+v", c.Requests)
	if len(c.Requests) == 0 {
		t.Fatal("the client made no request")
	}
	for _, r := range c.Requests {
		u, err := url.Parse(r.URL)
		if err != nil || u.Scheme+"://"+u.Host != srv.URL || u.Path != "/api/mcp" {
			t.Errorf("the client requested %s %s", r.Method, r.URL)
		}
		if r.Status != http.StatusUnauthorized || r.WWWAuthenticate != realmChallenge {
			t.Errorf("%s %s: %d, WWW-Authenticate %q", r.Method, r.URL, r.Status, r.WWWAuthenticate)
		}
	}
}
