package httpapi

import "net/http"

// Serve adapts a plain handler (MCP, A2A, uploads, the assistant's stream)
// that returns its refusal instead of writing it: the transport writes the
// REST error body, so the handler's package knows no error shape. A handler
// returns an error only before it has written its answer.
func Serve(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteREST(w, r, err)
		}
	})
}
