package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// serveBare answers the documented bare body {method, params}: it is the
// JSON-RPC request with the envelope left off, so it is served by the SDK as
// a one-off (stateless) request and the envelope is taken off the answer: the
// result alone, or the refusal the transport writes as the REST error body
// (400, or 404 for an unknown method, tool or resource).
func (s *Server) serveBare(w http.ResponseWriter, r *http.Request, bare probed) error {
	if bare.method == "" {
		return apperr.Invalid(`body must be {"method": "...", "params": {...}} or a JSON-RPC 2.0 request`)
	}
	p, _ := auth.PrincipalFrom(r.Context())
	if err := s.bareTarget(r.Context(), p, bare); err != nil {
		return err
	}
	envelope := map[string]any{"jsonrpc": "2.0", "id": 1, "method": bare.method}
	if len(bare.params) > 0 && !bytes.Equal(bytes.TrimSpace(bare.params), []byte("null")) {
		envelope["params"] = bare.params
	}
	wrapped, err := json.Marshal(envelope)
	if err != nil {
		return apperr.Internal(err)
	}
	inner, err := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewReader(wrapped))
	if err != nil {
		return apperr.Internal(err)
	}
	inner.Host, inner.RemoteAddr = r.Host, r.RemoteAddr
	inner.Header = r.Header.Clone()
	inner.Header.Set("Content-Type", "application/json")
	inner.Header.Set("Accept", "application/json, text/event-stream")
	// The bare form is ours, not a version of MCP: the SDK's default version
	// serves it, so the only refusal left before JSON-RPC is an unknown method.
	inner.Header.Del("Mcp-Protocol-Version")
	rec := &recorder{header: http.Header{}}
	withCaller(p, auth.ClientFrom(r.Context()), s.bare).ServeHTTP(rec, inner)

	if result, ok := bareResult(rec.status, rec.body.Bytes()); ok {
		writeLine(w, result)
		return nil
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	// The SDK may give a JSON-RPC error a 4xx status too: read the body first.
	if json.Unmarshal(rec.body.Bytes(), &answer) != nil || (answer.Error == nil && rec.status >= 300) {
		if rec.status >= 400 && rec.status < 500 {
			// A well-formed call of a method that is no notification, sent
			// without a version header, is refused by the SDK before
			// JSON-RPC only when it serves no such method (checkRequest).
			return apperr.NotFound("unknown method %q", bare.method)
		}
		return apperr.Internal(fmt.Errorf("mcp bare %s: %d %s", bare.method, rec.status, rec.body.String()))
	}
	if answer.Error != nil {
		return bareError(answer.Error)
	}
	writeLine(w, answer.Result)
	return nil
}

// writeLine writes a bare answer: JSON ending in a newline, as the API's
// other answers do.
func writeLine(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if !bytes.HasSuffix(body, []byte("\n")) {
		body = append(body[:len(body):len(body)], '\n')
	}
	_, _ = w.Write(body)
}

// resultEnvelope is how the SDK's JSON-RPC encoder begins the answer to the
// bare call's request (id 1) when it carries a result: its members are
// written in the order jsonrpc, id, result, error, and an answer holds a
// result or an error, never both.
var resultEnvelope = []byte(`{"jsonrpc":"2.0","id":1,"result":`)

// bareResult takes the result out of a successful answer without decoding
// it: the answer of a list is tens of kilobytes the SDK has just encoded and
// compacted, and scanning it again cost a tenth of a bare call's CPU. Any
// other answer (an error, a status, another shape) is left to the decoder.
func bareResult(status int, body []byte) ([]byte, bool) {
	body = bytes.TrimRight(body, " \t\r\n")
	if status != http.StatusOK || !bytes.HasPrefix(body, resultEnvelope) || !bytes.HasSuffix(body, []byte("}")) {
		return nil, false
	}
	result := body[len(resultEnvelope) : len(body)-1]
	if len(result) == 0 || result[0] != '{' {
		return nil, false
	}
	return result, true
}

// bareError is a JSON-RPC error as the REST error body: by its code alone,
// never its words (an unknown tool or resource is told apart before the call:
// bareTarget).
func bareError(e *jsonrpc.Error) *apperr.Error {
	if e.Code == jsonrpc.CodeMethodNotFound {
		return apperr.NotFound("%s", e.Message)
	}
	return apperr.Invalid("%s", e.Message)
}

// notificationPrefix starts the name of every MCP notification, which has
// no answer to give back.
const notificationPrefix = "notifications/"

// bareTarget refuses, before the SDK is asked, what the bare form cannot
// serve: a notification (400), and a tool or resource the caller's server
// does not hold (404), named from this server's own tables.
func (s *Server) bareTarget(ctx context.Context, p *auth.Principal, bare probed) error {
	if strings.HasPrefix(bare.method, notificationPrefix) {
		return apperr.Invalid("%s is a notification, which has no answer: send it as a JSON-RPC 2.0 message", bare.method)
	}
	var params struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(bare.params, &params) != nil {
		return nil // the SDK words the bad params
	}
	switch {
	case bare.method == "tools/call" && params.Name != "" && p != nil && !s.holdsTool(ctx, p.UserID, params.Name):
		return apperr.NotFound("unknown tool %q", params.Name)
	case bare.method == "resources/read" && params.URI != "" && !slices.ContainsFunc(resources, func(r resourceDef) bool { return r.uri == params.URI }):
		return apperr.NotFound("Resource not found")
	}
	return nil
}

// holdsTool reports whether the account's server lists the tool: one of
// every account's, or a store agent it has installed.
func (s *Server) holdsTool(ctx context.Context, userID, name string) bool {
	if _, ok := s.byName[name]; ok {
		return true
	}
	a, err := s.account(ctx, userID)
	if err != nil {
		return true // the SDK answers for an account it could not load
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.store[name]
	return ok
}

// recorder keeps the inner answer of a bare call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
