package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// ConnectPrefix begins the path of every procedure of the contract.
const ConnectPrefix = "/switchboard.v1."

// IsConnectPath reports whether path names a procedure of the contract (a
// known one or not).
func IsConnectPath(path string) bool { return strings.HasPrefix(path, ConnectPrefix) }

// UnknownProcedure answers a path under ConnectPrefix that names no
// procedure (an unknown service or method) as Connect does for an
// unimplemented one: HTTP 404 with {"code": "unimplemented", ...} (RULINGS
// "Onboarding, sprite, admin views", Connect), in the request's protocol
// (gRPC clients get grpc-status 12).
func UnknownProcedure(w http.ResponseWriter, r *http.Request) {
	msg := "no procedure " + r.URL.Path + ": the service or the method is not one of this server's"
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		// gRPC and gRPC-Web read the code from their trailers, status 200.
		WriteError(w, r, &apperr.Error{Kind: apperr.KindUnimplemented, Message: msg})
		return
	}
	// Connect's table says 501 for unimplemented; the ruling answers 404,
	// as connect-go itself does for a path it does not serve.
	writeConnectJSON(w, http.StatusNotFound, connect.CodeUnimplemented, msg)
}

// writeConnectJSON writes a Connect unary error body with a status of the
// caller's choosing (the stated exceptions to the error table).
func writeConnectJSON(w http.ResponseWriter, status int, code connect.Code, msg string) {
	body, _ := json.Marshal(map[string]string{"code": code.String(), "message": msg})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// ConnectAnswers gives connect-go's own refusals a Connect error body:
// connect-go answers a content type it cannot read (415) and a method it
// does not take (405) with a bare status. Both become Connect error JSON:
// 415 with code invalid_argument and 405 with code unimplemented (a stated
// exception to the error table: RULINGS reconciliation 10), naming what the
// procedure takes. Every other answer passes untouched.
//
// A unary answer in JSON also ends in a newline, as the REST answers do (a
// terminal's next prompt starts a line; JSON readers skip the space); a
// compressed one is left as it is (a byte after the gzip stream would break
// it; answers under a kilobyte are not compressed).
func ConnectAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &connectAnswer{ResponseWriter: w, r: r}
		next.ServeHTTP(c, r)
		h := c.Header()
		if c.last != 0 && c.last != '\n' && !c.ours && !c.flushed && h.Get("Content-Type") == "application/json" &&
			h.Get("Content-Encoding") == "" {
			_, _ = w.Write([]byte{'\n'})
		}
	})
}

// connectAnswer writes a body for the bare statuses connect-go writes
// before anything else, and drops what the handler writes after them.
type connectAnswer struct {
	http.ResponseWriter
	r       *http.Request
	started bool // a status went out
	ours    bool // the body is ours: the handler's writes are dropped
	flushed bool // a stream: nothing is added to it
	last    byte // the last byte the handler wrote
}

func (c *connectAnswer) WriteHeader(code int) {
	if c.started {
		return
	}
	c.started = true
	h := c.Header()
	switch code {
	case http.StatusUnsupportedMediaType:
		c.ours = true
		writeConnectJSON(c.ResponseWriter, code, connect.CodeInvalidArgument, unreadable(c.r))
	case http.StatusMethodNotAllowed:
		c.ours = true
		writeConnectJSON(c.ResponseWriter, code, connect.CodeUnimplemented, "method "+c.r.Method+
			" is not allowed here: call the procedure with "+strings.ReplaceAll(h.Get("Allow"), ", ", " or "))
	default:
		c.ResponseWriter.WriteHeader(code)
	}
}

func (c *connectAnswer) Write(b []byte) (int, error) {
	if c.ours {
		return len(b), nil
	}
	c.started = true
	if len(b) > 0 {
		c.last = b[len(b)-1]
	}
	return c.ResponseWriter.Write(b)
}

// Flush and Unwrap keep what the writer beneath offers (streams flush, and
// http.ResponseController reaches the connection through Unwrap).
func (c *connectAnswer) Flush() {
	c.started, c.flushed = true, true
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

func (c *connectAnswer) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// unreadable says why connect-go could not read a request (its 415).
func unreadable(r *http.Request) string {
	if r.Method == http.MethodGet {
		return "this GET is not a Connect GET: it names the message in the query " +
			"(?encoding=json&message=…) and has no body"
	}
	what := "a request without a content type"
	if ct := r.Header.Get("Content-Type"); ct != "" {
		what = "content type " + quote(ct)
	}
	return what + " is not one this procedure reads: send Content-Type application/json or application/proto " +
		"(Connect), or call it with gRPC or gRPC-Web; the REST routes are under /api/"
}

// quote shows a client's header value in a message: quoted, at most 100
// bytes.
func quote(v string) string {
	if len(v) > 100 {
		v = v[:100]
	}
	b, _ := json.Marshal(v)
	return string(b)
}
