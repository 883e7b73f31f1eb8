package audit

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/switchboard-hq/switchboard/server/federation/guard"
)

// Transport wraps base (http.DefaultTransport when nil) so that every call
// writes one outbound audit row: the path, the target's address, the status
// code or failed, the duration and redacted previews. Headers are never
// recorded, so the Authorization and X-Federation-Token credentials stay out
// of the log.
func (r *Recorder) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{rec: r, base: base}
}

type transport struct {
	rec  *Recorder
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now() //nolint:forbidigo // call latency is real time, not business time
	e := Entry{Direction: "outbound", Endpoint: req.URL.Path, Source: t.rec.Self,
		Target: req.URL.Scheme + "://" + req.URL.Host}
	if req.Body != nil && req.Body != http.NoBody {
		// Our own request: read a preview's worth and hand the rest on.
		head, err := io.ReadAll(io.LimitReader(req.Body, captureLimit))
		if err != nil {
			_ = req.Body.Close()
			return nil, err
		}
		e.Payload = guard.Preview(head, guard.Verdict{})
		req.Body = readCloser{io.MultiReader(bytes.NewReader(head), req.Body), req.Body}
	}
	res, err := t.base.RoundTrip(req)
	e.Duration = time.Since(start) //nolint:forbidigo // latency
	if err != nil {
		e.Status, e.Response = "failed", guard.Preview([]byte(err.Error()), guard.Verdict{})
		t.rec.Record(req.Context(), e)
		return nil, err
	}
	head, rerr := io.ReadAll(io.LimitReader(res.Body, captureLimit))
	res.Body = readCloser{io.MultiReader(bytes.NewReader(head), errReader{rerr}, res.Body), res.Body}
	e.StatusCode, e.Response, e.Status = res.StatusCode, guard.Preview(head, guard.Verdict{}), "ok"
	if res.StatusCode >= http.StatusBadRequest {
		e.Status = "failed"
	}
	t.rec.Record(req.Context(), e)
	return res, nil
}

// readCloser reads from one reader and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}

// errReader hands on a read error met while capturing the preview (nil: EOF,
// so the rest of the body follows).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
