package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// Response lets a service shape the HTTP answer (cookies, cache headers) without
// knowing which transport carries it: both write these headers before the body.
type Response struct {
	Header http.Header
	// TLS is true when the request came over TLS (cookies then get Secure).
	TLS bool
}

type responseKey struct{}

// WithResponse stores the response controls for the request.
func WithResponse(ctx context.Context, w http.ResponseWriter, r *http.Request) context.Context {
	return context.WithValue(ctx, responseKey{}, &Response{Header: w.Header(), TLS: r.TLS != nil})
}

// ResponseFrom returns the response controls; outside a request it returns a
// detached one so services stay callable from tests and jobs.
func ResponseFrom(ctx context.Context) *Response {
	if r, ok := ctx.Value(responseKey{}).(*Response); ok {
		return r
	}
	return &Response{Header: http.Header{}}
}

// writeJSON writes v without HTML escaping: bodies are application/json, never
// inlined into a page, and "<API key>" should read as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
