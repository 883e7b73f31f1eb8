package audit

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/federation/guard"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Transport wraps base (http.DefaultTransport when nil) so that every call
// writes one outbound audit row: the path, the target's address, the status
// code or failed, the duration and redacted previews; an outbox delivery's
// attempt (WithAttempt) has its retry state and count. Headers are never
// recorded, so the Authorization and X-Federation-Token credentials stay out
// of the log.
func (r *Recorder) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{rec: r, base: base}
}

// status is the row's status for a call that answered code (0: no answer).
// A delivery's attempt succeeds only with a 2xx answer, as the outbox
// counts it: a failure is retry_pending, or retry_exhausted on the last
// attempt; a success after a failure is retry_success.
func status(ctx context.Context, code int) string {
	a, delivery := webhooks.AttemptOf(ctx)
	switch {
	case !delivery && code > 0 && code < http.StatusBadRequest:
		return string(vocab.FederationAuditStatusOK)
	case !delivery:
		return string(vocab.FederationAuditStatusFailed)
	case code >= 200 && code <= 299 && a.Retry > 0:
		return string(vocab.FederationAuditStatusRetrySuccess)
	case code >= 200 && code <= 299:
		return string(vocab.FederationAuditStatusOK)
	case a.Last:
		return string(vocab.FederationAuditStatusRetryExhausted)
	}
	return string(vocab.FederationAuditStatusRetryPending)
}

type transport struct {
	rec  *Recorder
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now() //nolint:forbidigo // call latency is real time, not business time
	e := Entry{Direction: "outbound", Endpoint: req.URL.Path, Source: t.rec.Self,
		Target: req.URL.Scheme + "://" + req.URL.Host}
	if a, ok := webhooks.AttemptOf(req.Context()); ok {
		e.RetryCount = a.Retry
	}
	if req.Body != nil && req.Body != http.NoBody {
		// Our own request: read a preview's worth and hand the rest on.
		head, err := io.ReadAll(io.LimitReader(req.Body, captureFor(req.Header.Get("Content-Type"))))
		if err != nil {
			_ = req.Body.Close()
			return nil, err
		}
		e.Payload = preview(req.URL.Path, req.Header, head, true, guard.Verdict{})
		req.Body = readCloser{io.MultiReader(bytes.NewReader(head), req.Body), req.Body}
	}
	res, err := t.base.RoundTrip(req)
	e.Duration = time.Since(start) //nolint:forbidigo // latency
	if err != nil {
		// The admin's audit view reads why in words (egress.Reason), not the
		// dial error with its addresses and resolver.
		e.Status, e.Response = status(req.Context(), 0), guard.Preview([]byte(egress.Reason(err)), guard.Verdict{})
		t.rec.Record(req.Context(), e)
		return nil, err
	}
	head, rerr := io.ReadAll(io.LimitReader(res.Body, captureFor(res.Header.Get("Content-Type"))))
	res.Body = readCloser{io.MultiReader(bytes.NewReader(head), errReader{rerr}, res.Body), res.Body}
	e.StatusCode, e.Response, e.Status = res.StatusCode, preview(req.URL.Path, res.Header, head, false, guard.Verdict{}), status(req.Context(), res.StatusCode)
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
