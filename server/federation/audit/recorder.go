// Package audit writes and serves FederationAuditLog rows: one for every
// inbound and outbound federation call (RULINGS "Federation: instances and
// the platform", Guard and Audit). Inbound calls pass the guard first
// (Middleware); outbound calls go through an auditing transport (Transport).
// Previews come from guard.Preview, so tokens are redacted, personal data the
// guard flagged is masked and no preview exceeds 500 characters.
package audit

import (
	"context"
	"github.com/switchboard-hq/switchboard/internal/periodic"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/server/federation/guard"
)

// DefaultRetention is --audit-retention's default: 30 days.
const DefaultRetention = 30 * 24 * time.Hour

// sweepEvery is how often the retention sweep runs (business clock).
const sweepEvery = time.Hour

// captureLimit is how much of an answer is kept for its preview: enough for
// 500 characters after redaction shortens it.
const captureLimit = 1 << 10

// Recorder writes audit rows. Rows are stamped by the database's clock, the
// instance's business clock.
type Recorder struct {
	DB     *ent.Client
	Now    func() time.Time
	Logger *slog.Logger
	// Self is this instance's public address: the target of inbound calls
	// and the source of outbound ones (empty when unknown).
	Self string
	// Retention is --audit-retention; DefaultRetention when zero.
	Retention time.Duration
	// Caller names the calling instance of an inbound request when its
	// credential identifies one (the hub's platform tokens); optional. It is
	// asked only for blocked requests: a served one is named by its handler
	// (NameSource), which finds the instance anyway.
	Caller func(ctx context.Context, authorization string) string
}

type sourceKey struct{}

// NameSource names the calling instance of the inbound request in ctx, for
// its audit row; outside the middleware it does nothing.
func NameSource(ctx context.Context, name string) {
	if p, ok := ctx.Value(sourceKey{}).(*string); ok {
		*p = name
	}
}

// Entry is one call, before it is written.
type Entry struct {
	Direction  string // inbound or outbound
	Endpoint   string
	Source     string
	Target     string
	Status     string
	StatusCode int
	Duration   time.Duration
	Verdict    guard.Verdict
	CallerIP   string
	// RetryCount is how many attempts of an outbox delivery came before
	// this one (0 for any other call).
	RetryCount int
	Payload    string // already a preview
	Response   string // already a preview
}

// Record writes e. A failed write is logged, never returned: the audit log
// must not turn a served call into an error.
func (r *Recorder) Record(ctx context.Context, e Entry) {
	v := e.Verdict
	err := r.DB.FederationAuditLog.Create().
		SetDirection(federationauditlog.Direction(e.Direction)).
		SetEndpoint(text(e.Endpoint)).
		SetSourceInstanceName(text(e.Source)).
		SetTargetInstanceName(text(e.Target)).
		SetStatus(federationauditlog.Status(e.Status)).
		SetStatusCode(e.StatusCode).
		SetDurationMs(e.Duration.Milliseconds()).
		SetThreatLevel(federationauditlog.ThreatLevel(v.Level.String())).
		SetThreatFlags(v.ThreatFlags()).
		SetModerationScore(v.Score).
		SetBlocked(v.Blocked).
		SetBlockReason(text(v.BlockReason)).
		SetRetryCount(e.RetryCount).
		SetCallerIP(text(e.CallerIP)).
		SetPayload(text(e.Payload)).
		SetResponsePreview(text(e.Response)).
		Exec(context.WithoutCancel(ctx))
	if err != nil {
		r.logger().Error("federation audit: row not written", "endpoint", e.Endpoint, "err", err)
	}
}

// text makes a value storable in any text column: a path may decode to
// invalid UTF-8 and a body may hold NUL, which PostgreSQL's text refuses.
// The column keeps a readable stand-in.
func text(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

func (r *Recorder) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}

func (r *Recorder) retention() time.Duration {
	if r.Retention <= 0 {
		return DefaultRetention
	}
	return r.Retention
}

// Sweep deletes the rows older than the retention period and reports how
// many it deleted.
func (r *Recorder) Sweep(ctx context.Context) (int, error) {
	cutoff := r.Now().UTC().Add(-r.retention())
	return r.DB.FederationAuditLog.Delete().Where(federationauditlog.CreatedAtLT(cutoff)).Exec(ctx)
}

// RetentionTimer is the retention sweep's name in the timers' registry.
const RetentionTimer = "federation_audit_retention"

// Sweeper is the retention sweep as a periodic timer: every hour, by one
// replica.
func (r *Recorder) Sweeper() periodic.Timer {
	return periodic.Timer{Name: RetentionTimer, Every: sweepEvery, Run: func(ctx context.Context) error {
		_, err := r.Sweep(ctx)
		return err
	}}
}
