package audit

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation/guard"
)

// Inbound reports whether a request path is an inbound federation route of
// paths: an entry ending in "/" is a prefix, any other an exact path; an
// entry "METHOD /path" holds only for that method, and "PEER /path" only for
// a call presenting a peer's federation token (peer: a path the operator
// reads too). The path is cleaned first, so "/api/v2//federation/x" cannot
// pass unguarded.
func Inbound(paths []string, method, p string, peer bool) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	for _, want := range paths {
		if m, rest, ok := strings.Cut(want, " "); ok {
			if m != method && (m != "PEER" || !peer) {
				continue
			}
			want = rest
		}
		if strings.HasSuffix(want, "/") && strings.HasPrefix(c, want) || c == want {
			return true
		}
	}
	return false
}

// Middleware guards and audits the inbound federation routes of paths and
// passes every other request to next untouched. A guarded request's body is
// read (at most guard.MaxBody+1 bytes) and inspected before next runs; a
// blocked one is answered 403 with the reason and never reaches next. Every
// guarded request writes one audit row. refuse writes the middleware's own
// refusals in the transport's error shape (the guard knows no transport).
func (r *Recorder) Middleware(paths []string, refuse func(http.ResponseWriter, *http.Request, error), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !Inbound(paths, req.Method, req.URL.Path, req.Header.Get(auth.FederationTokenHeader) != "") {
			next.ServeHTTP(w, req)
			return
		}
		start := time.Now() //nolint:forbidigo // call latency is real time, not business time
		e := Entry{Direction: "inbound", Endpoint: req.URL.Path, Target: r.Self, CallerIP: peerIP(req)}
		raw, err := io.ReadAll(io.LimitReader(req.Body, guard.MaxBody+1))
		if err != nil {
			e.Status, e.StatusCode, e.Duration = string(vocab.FederationAuditStatusFailed), http.StatusBadRequest, time.Since(start) //nolint:forbidigo // latency
			r.Record(req.Context(), e)
			refuse(w, req, apperr.Invalid("the request body could not be read"))
			return
		}
		v := guard.InspectRequest(raw, req.Header.Get("Content-Type"), req.URL.Query())
		e.Verdict, e.Status, e.Payload = v, v.Outcome(), preview(req.URL.Path, req.Header, raw, true, v)
		if v.Blocked {
			if a := req.Header.Get("Authorization"); a != "" && r.Caller != nil {
				e.Source = r.Caller(req.Context(), a)
			}
			err := apperr.Forbidden("federation moderation blocked this request: %s", v.BlockReason)
			rec := &capture{ResponseWriter: w}
			refuse(rec, req, err)
			e.StatusCode, e.Response = rec.code(), guard.Preview(rec.buf.Bytes(), guard.Verdict{})
			e.Duration = time.Since(start) //nolint:forbidigo // latency
			r.Record(req.Context(), e)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(raw))
		rec := &capture{ResponseWriter: w}
		next.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), sourceKey{}, &e.Source)))
		e.StatusCode, e.Response = rec.code(), preview(req.URL.Path, rec.Header(), rec.buf.Bytes(), false, guard.Verdict{})
		e.Duration = time.Since(start) //nolint:forbidigo // latency
		r.Record(req.Context(), e)
	})
}

// peerIP is the connection's address, like the gate's: forwarding headers
// are not trusted.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// capture passes an answer through and keeps its status and first
// captureLimit bytes.
type capture struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if room := int(captureFor(c.Header().Get("Content-Type"))) - c.buf.Len(); room > 0 {
		c.buf.Write(b[:min(room, len(b))])
	}
	return c.ResponseWriter.Write(b)
}

// Flush keeps streaming answers streaming.
func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *capture) code() int {
	if c.status == 0 {
		return http.StatusOK
	}
	return c.status
}
