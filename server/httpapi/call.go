package httpapi

import (
	"context"
	"net/http"

	"github.com/switchboard-hq/switchboard/server/contract"
)

// Call is what a service may know of the request beyond its message: which
// transport carried it (the two differ where the documents say so, such as a
// chat message's unparsable metadataJson) and the request headers a procedure
// documents (X-Agent-Name). grpc-gateway forwards no headers as metadata, so
// both transports read them here.
type Call struct {
	// REST is true for the REST mirror, false for Connect, gRPC and gRPC-Web.
	REST   bool
	Header http.Header
}

type callKey struct{}

// WithCall records the request's transport and headers.
func WithCall(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, callKey{}, &Call{REST: contract.IsREST(r.URL.Path), Header: r.Header})
}

// CallFrom returns the request's Call; outside a request it is an RPC call
// without headers, so services stay callable from tests and jobs.
func CallFrom(ctx context.Context) *Call {
	if c, ok := ctx.Value(callKey{}).(*Call); ok {
		return c
	}
	return &Call{Header: http.Header{}}
}
