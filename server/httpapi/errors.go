package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"connectrpc.com/connect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/render"
)

// WriteREST writes err as {"success": false, "error": …} with its status,
// and the error's detail flattened beside "error" (restErrorBody).
func WriteREST(w http.ResponseWriter, r *http.Request, err error) {
	e := apperr.Report(r.Context(), err)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(apperr.RetryAfterSeconds(e.RetryAfter)))
	}
	w.WriteHeader(e.HTTPStatus())
	_, _ = w.Write(restErrorBody(e))
}

// restErrorBody is the REST error body (errors.proto): success and error,
// then each set field of the error's ErrorInfo detail under its JSON name, in
// field order (code, requiredIntegration, price, inviteId, planPrice), so a
// new extra is one field in the contract.
func restErrorBody(e *apperr.Error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"success":false,"error":`)
	b.Write(jsonValue(e.Message))
	if e.Detail != nil {
		m := e.Detail.ProtoReflect()
		fields := m.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if !m.Has(fd) {
				continue
			}
			b.WriteByte(',')
			b.Write(jsonValue(fd.JSONName()))
			b.WriteByte(':')
			if fd.Message() != nil {
				// An object of scalars (a plan's price), as REST renders it.
				out, err := render.AppendREST(nil, m.Get(fd).Message().Interface())
				if err != nil {
					out = []byte("null")
				}
				b.Write(bytes.TrimSpace(out))
				continue
			}
			b.Write(jsonValue(m.Get(fd).Interface())) // the other extras are scalars
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// jsonValue encodes a scalar as writeJSON does (no HTML escaping).
func jsonValue(v any) []byte {
	var b bytes.Buffer
	_ = writeJSON(&b, v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var connectErrors = connect.NewErrorWriter()

// WriteError writes err in the shape the request's transport expects: Connect's
// error form (for the Connect, gRPC and gRPC-Web protocols) or the REST body.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	// A procedure's path answers Connect's form whatever the request's
	// content type (RULINGS "Onboarding, sprite, admin views", Connect): a
	// request in no known protocol gets Connect's JSON.
	if !contract.IsREST(r.URL.Path) && (IsConnectPath(r.URL.Path) || connectErrors.IsSupported(r)) {
		ce := apperr.ToConnect(apperr.Report(r.Context(), err))
		metrics.Code(r.Context(), metrics.CodeOf(ce))
		_ = connectErrors.Write(w, r, ce)
		return
	}
	WriteREST(w, r, err)
}

// GatewayError is grpc-gateway's error handler: every REST error leaves here.
func GatewayError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	WriteREST(w, r, err)
}

// GatewayRoutingError answers REST paths and methods that match no route.
func GatewayRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, code int) {
	switch code {
	case http.StatusMethodNotAllowed:
		WriteREST(w, r, &apperr.Error{Kind: apperr.KindMethodNotAllowed, Message: "method " + r.Method + " is not allowed on " + r.URL.Path})
	case http.StatusBadRequest:
		WriteREST(w, r, apperr.Invalid("malformed request path"))
	default:
		WriteREST(w, r, apperr.NotFound("no endpoint %s %s", r.Method, r.URL.Path))
	}
}

// ConnectErrors is the Connect interceptor that maps every handler error once.
func ConnectErrors() connect.Interceptor { return errorMapper{} }

type errorMapper struct{}

func (errorMapper) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		if err != nil {
			return nil, apperr.ToConnect(apperr.Report(ctx, err))
		}
		return res, nil
	}
}

func (errorMapper) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler maps the error a stream ends with, as for unary calls.
func (errorMapper) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		if err := next(ctx, conn); err != nil {
			return apperr.ToConnect(apperr.Report(ctx, err))
		}
		return nil
	}
}

// writeJSON writes v without HTML escaping: bodies are application/json, never
// inlined into a page, and "<API key>" should read as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
