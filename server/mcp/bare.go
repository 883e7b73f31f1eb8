package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	envelope := map[string]any{"jsonrpc": "2.0", "id": 1, "method": bare.method}
	if len(bare.params) > 0 && !bytes.Equal(bytes.TrimSpace(bare.params), []byte("null")) {
		envelope["params"] = bare.params
	}
	wrapped, err := json.Marshal(envelope)
	if err != nil {
		return apperr.Internal(err)
	}
	p, _ := auth.PrincipalFrom(r.Context())
	inner, err := http.NewRequestWithContext(r.Context(), http.MethodPost, r.URL.String(), bytes.NewReader(wrapped))
	if err != nil {
		return apperr.Internal(err)
	}
	inner.Host, inner.RemoteAddr = r.Host, r.RemoteAddr
	inner.Header = r.Header.Clone()
	inner.Header.Set("Content-Type", "application/json")
	inner.Header.Set("Accept", "application/json, text/event-stream")
	rec := &recorder{header: http.Header{}}
	withCaller(p, auth.ClientFrom(r.Context()), s.bare).ServeHTTP(rec, inner)

	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	// The SDK may give a JSON-RPC error a 4xx status too: read the body first.
	if json.Unmarshal(rec.body.Bytes(), &answer) != nil || (answer.Error == nil && rec.status >= 300) {
		msg := strings.TrimSpace(rec.body.String())
		if strings.HasSuffix(msg, "unsupported") {
			// The SDK refuses a method it does not know before JSON-RPC
			// (TestBareBodies pins the wording this relies on).
			return apperr.NotFound("unknown method %q", bare.method)
		}
		if msg == "" {
			msg = http.StatusText(rec.status)
		}
		return apperr.Invalid("%s", msg)
	}
	if answer.Error != nil {
		return bareError(answer.Error)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer.Result)
	return nil
}

// bareError is a JSON-RPC error as the REST error body.
func bareError(e *jsonrpc.Error) *apperr.Error {
	switch {
	case e.Code == jsonrpc.CodeMethodNotFound,
		e.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(e.Message, "unknown tool"),
		e.Code == sdk.CodeResourceNotFound && e.Message == "Resource not found": //nolint:staticcheck // the SDK's not-found code, whichever one its MCPGODEBUG setting picks
		return apperr.NotFound("%s", e.Message)
	}
	return apperr.Invalid("%s", e.Message)
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
