package webhooks

import (
	"context"
	"net/http"
)

// Attempt is one attempt of an outbox delivery, as the outbox tells the
// transport that carries it through the request's context (WithAttempt):
// the federation audit log then records the retry states of document 2
// ("Outbound delivery retry") instead of ok and failed, and the retry count.
type Attempt struct {
	// Retry is how many attempts came before this one.
	Retry int
	// Last is true when a failure of this attempt exhausts the schedule.
	Last bool
}

type attemptKey struct{}

// WithAttempt marks the calls made with ctx as attempt a of a delivery.
func WithAttempt(ctx context.Context, a Attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

// AttemptOf is the delivery attempt ctx carries, if any.
func AttemptOf(ctx context.Context) (Attempt, bool) {
	a, ok := ctx.Value(attemptKey{}).(Attempt)
	return a, ok
}

// Auditor wraps the transport of federation deliveries so that each attempt
// is recorded (the federation audit log's Recorder).
type Auditor interface {
	Transport(base http.RoundTripper) http.RoundTripper
}
