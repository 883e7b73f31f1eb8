package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The bare door tells its refusals apart by the SDK's codes and its own
// tables, never by the SDK's words: an unknown method, tool or resource is
// 404 whatever the SDK says about it, a notification or a known tool's bad
// call naming no tool 400, and a tool or method whose name reads like the SDK's refusal
// text ("…unsupported", "unknown tool …") is still answered for what it is.
// An MCP version header does not change what a bare body means.
func TestBareRefusalsByCode(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	mcp := srv.WithKey(ann.NewKey("bare", "mcp", "queue"))
	call := func(body any, header ...string) *servertest.Response {
		return mcp.Do(http.MethodPost, "/api/mcp", body, header...)
	}
	for name, tc := range map[string]struct {
		body   any
		header []string
		status int
		says   string
	}{
		"unknown method":               {map[string]any{"method": "no/such"}, nil, 404, `unknown method "no/such"`},
		"unknown method, no such word": {map[string]any{"method": "tools/missing"}, nil, 404, `unknown method "tools/missing"`},
		"unknown method, old version":  {map[string]any{"method": "no/such"}, []string{"Mcp-Protocol-Version", "2025-06-18"}, 404, "unknown method"},
		"unknown method, bad version":  {map[string]any{"method": "no/such"}, []string{"Mcp-Protocol-Version", "1999-01-01"}, 404, "unknown method"},
		"unknown tool": {map[string]any{"method": "tools/call", "params": map[string]any{"name": "unsupported", "arguments": map[string]any{}}},
			nil, 404, `unknown tool "unsupported"`},
		"unknown resource": {map[string]any{"method": "resources/read", "params": map[string]any{"uri": "switchboard://nothing"}}, nil, 404, "not found"},
		"notification":     {map[string]any{"method": "notifications/initialized"}, nil, 400, "notification"},
		// The SDK words this invalid-params refusal "unknown tool": a call
		// that names no tool is a bad request, not a missing tool.
		"tool call naming no tool": {map[string]any{"method": "tools/call", "params": map[string]any{"arguments": map[string]any{}}}, nil, 400, ""},
	} {
		t.Run(name, func(t *testing.T) {
			res := call(tc.body, tc.header...)
			servertest.WantErrorContaining(t, res, tc.status, tc.says)
		})
	}
	// A version header, good or bad, leaves a good bare call as it is.
	for _, v := range []string{"2025-06-18", "1999-01-01"} {
		res := call(map[string]any{"method": "tools/list"}, "Mcp-Protocol-Version", v)
		if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "queue_add") {
			t.Errorf("tools/list with version %s: %d %s", v, res.Status, res.Body)
		}
	}
}
