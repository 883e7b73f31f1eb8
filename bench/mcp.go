package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MCP variants (issue 13): the same page as (d), 50 items, through the MCP
// door's queue_list tool, which calls the same ListQueueItems method.
const (
	mcpPath     = "/api/mcp"
	mcpProtocol = "2025-06-18"
)

// mcpTargets are (m) tools/call queue_list in a Streamable HTTP session (the
// SDK answers each POST as a one-event stream, as real clients get it) and
// (m) the documented bare body {method, params}, stateless, answered as JSON.
// Each session request carries its own JSON-RPC id.
func mcpTargets(p *proc, key, session string) []*target {
	call := func(n int64) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"queue_list","arguments":{"limit":50}}}`, n)
	}
	return []*target{
		{key: "m", label: "(m) MCP tools/call queue_list (session)", proc: p, method: http.MethodPost, path: mcpPath,
			want: http.StatusOK, bodyFn: call,
			header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json",
				"Accept", "application/json, text/event-stream", "Mcp-Session-Id", session,
				"Mcp-Protocol-Version", mcpProtocol)},
		{key: "m-bare", label: "(m) MCP bare {method, params}", proc: p, method: http.MethodPost, path: mcpPath,
			want:   http.StatusOK,
			body:   []byte(`{"method":"tools/call","params":{"name":"queue_list","arguments":{"limit":50}}}`),
			header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json")},
	}
}

// mcpSession opens a session as a client does: initialize, then the
// initialized notification; it returns the session id.
func mcpSession(ctx context.Context, base, key string) (string, error) {
	// post answers the status, the session id header and the body.
	post := func(body, session string) (int, string, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+mcpPath, strings.NewReader(body))
		if err != nil {
			return 0, "", nil, err
		}
		req.Header = headers("Authorization", "Bearer "+key, "Content-Type", "application/json",
			"Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", mcpProtocol)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Mcp-Session-Id"), b, err
	}
	status, session, body, err := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+mcpProtocol+
		`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, "")
	if err != nil {
		return "", err
	}
	if status != http.StatusOK || session == "" {
		return "", fmt.Errorf("mcp initialize: %d, session %q: %s", status, session, body)
	}
	if status, _, body, err = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); err != nil {
		return "", err
	}
	if status != http.StatusAccepted {
		return "", fmt.Errorf("mcp notifications/initialized: %d %s", status, body)
	}
	return session, nil
}

// mcpPage is the page a tools/call answer carries in structuredContent: the
// JSON-RPC result (one server-sent event in a session, the bare result
// otherwise).
func mcpPage(body []byte) (map[string]any, error) {
	if bytes.HasPrefix(body, []byte("event:")) || bytes.HasPrefix(body, []byte("data:")) || bytes.HasPrefix(body, []byte("id:")) {
		var data []byte
		for line := range strings.SplitSeq(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = []byte(strings.TrimSpace(d))
			}
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(data, &msg); err != nil || msg.Result == nil {
			return nil, fmt.Errorf("mcp answer is no JSON-RPC result: %.300s", body)
		}
		body = msg.Result
	}
	var result struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(body, &result); err != nil || result.IsError || result.StructuredContent == nil {
		return nil, fmt.Errorf("mcp queue_list answered no page: %.300s", body)
	}
	return result.StructuredContent, nil
}
