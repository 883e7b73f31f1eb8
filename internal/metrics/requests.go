package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
)

// The transports a handler says it serves a request on (Route); the
// protocol label follows from it and the request's content type.
const (
	// Connect is the Connect handlers: the protocol label is connect,
	// grpc or grpcweb.
	Connect = "connect"
	// REST is the REST mirror (the gateway's routes).
	REST = "rest"
	// HTTP is every other route: the Server-Sent Events twins, MCP, A2A,
	// documents' uploads, the dashboard, health.
	HTTP = "http"
)

// other is the procedure label of a request no procedure admitted (the
// dashboard's files, health, a path that matches nothing): never the raw
// path, which would make a series per URL.
const other = "other"

type routeKey struct{}

// route is what the handlers tell the middleware of one request.
type route struct {
	mu        sync.Mutex
	procedure string
	transport string
	code      string
}

func routeFrom(ctx context.Context) *route {
	r, _ := ctx.Value(routeKey{}).(*route)
	return r
}

// Route names the procedure (the Connect path, or an endpoint's rule name)
// and the transport that admitted the request in ctx; without the
// middleware it does nothing.
func Route(ctx context.Context, procedure, transport string) {
	if r := routeFrom(ctx); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.procedure, r.transport = procedure, transport
	}
}

// Code records the Connect code a request on a Connect procedure answered
// (its name, "ok" for none), for the code label: a gRPC or Connect stream
// answers HTTP 200 whatever its end.
func Code(ctx context.Context, code string) {
	if r := routeFrom(ctx); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.code = code
	}
}

// Requests is middleware that counts every request and its duration by the
// labels the handlers gave it (Route, Code). Put it outermost, so that it
// sees every answer, a recovered panic's 500 included.
func (m *Metrics) Requests(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := &route{}
		rec := &recorder{ResponseWriter: w}
		// Latency is real time, not the injected business clock.
		start := time.Now()
		defer func() {
			protocol, code, procedure := rt.labels(r, rec)
			m.requests.WithLabelValues(procedure, protocol, code).Inc()
			m.duration.WithLabelValues(procedure, protocol).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, rt)))
	})
}

// labels are the request's protocol, code and procedure once answered.
func (rt *route) labels(r *http.Request, rec *recorder) (protocol, code, procedure string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	procedure = rt.procedure
	if procedure == "" {
		procedure = other
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case rt.transport == REST:
		return REST, strconv.Itoa(status), procedure
	case strings.HasPrefix(ct, "application/grpc-web"):
		protocol = "grpcweb"
	case strings.HasPrefix(ct, "application/grpc"):
		protocol = "grpc"
	case rt.transport == Connect:
		protocol = Connect
	default:
		return HTTP, strconv.Itoa(status), procedure
	}
	return protocol, rt.connectCode(rec, status), procedure
}

// connectCode is the code a Connect-family answer carried: what the
// handler or the error writer recorded, else gRPC's status header (a
// trailers-only refusal), else the code a Connect error body names (one
// connect-go writes itself, such as a body it cannot decode), else the code
// the HTTP status most often stands for.
func (rt *route) connectCode(rec *recorder, status int) string {
	if rt.code != "" {
		return rt.code
	}
	if s := rec.Header().Get("Grpc-Status"); s != "" {
		if n, err := strconv.ParseUint(s, 10, 32); err == nil {
			return codeName(connect.Code(n))
		}
	}
	if status == http.StatusOK {
		return "ok"
	}
	var body struct{ Code string }
	if json.Unmarshal(rec.errBody, &body) == nil && body.Code != "" {
		return body.Code
	}
	if c, ok := byStatus[status]; ok {
		return c.String()
	}
	return connect.CodeUnknown.String()
}

// byStatus is the code an error of the Connect protocol most often carries
// with each HTTP status (Connect's table read backwards), for an answer
// whose body did not name it.
var byStatus = map[int]connect.Code{
	http.StatusBadRequest: connect.CodeInvalidArgument, http.StatusUnauthorized: connect.CodeUnauthenticated,
	http.StatusForbidden: connect.CodePermissionDenied, http.StatusNotFound: connect.CodeNotFound,
	http.StatusConflict: connect.CodeAlreadyExists, http.StatusTooManyRequests: connect.CodeResourceExhausted,
	499: connect.CodeCanceled, http.StatusInternalServerError: connect.CodeInternal,
	http.StatusNotImplemented: connect.CodeUnimplemented, http.StatusServiceUnavailable: connect.CodeUnavailable,
	http.StatusGatewayTimeout: connect.CodeDeadlineExceeded,
}

// codeName is a code's name, "ok" for zero (connect.Code names none).
func codeName(c connect.Code) string {
	if c == 0 {
		return "ok"
	}
	return c.String()
}

// CodeOf is the code name an RPC's error answers ("ok" for nil).
func CodeOf(err error) string {
	if err == nil {
		return "ok"
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return codeName(ce.Code())
	}
	return connect.CodeUnknown.String()
}

// Interceptor records the code each Connect procedure answered with. Put
// it outside the interceptor that maps domain errors to codes.
func Interceptor() connect.Interceptor { return interceptor{} }

type interceptor struct{}

func (interceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		Code(ctx, CodeOf(err))
		return res, err
	}
}

func (interceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (interceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		Code(ctx, CodeOf(err))
		return err
	}
}

// errBodyMax bounds what the recorder keeps of an error's body: a Connect
// error's code comes first, well within it.
const errBodyMax = 1024

// recorder keeps the status a handler wrote and the start of an error's
// body (where a Connect error names its code).
type recorder struct {
	http.ResponseWriter
	status  int
	errBody []byte
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.status != http.StatusOK && len(r.errBody) < errBodyMax {
		r.errBody = append(r.errBody, b[:min(len(b), errBodyMax-len(r.errBody))]...)
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach flushes, deadlines and full
// duplex (streams need them).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush keeps streams streaming for handlers that assert http.Flusher.
func (r *recorder) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }
