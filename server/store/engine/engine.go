// Package engine runs store executions (store_execution.proto;
// docs/decisions.md "Store, federation, MCP, A2A").
//
// One execution per agent at a time: the lock is store_agents.
// current_execution_id, taken by one conditional UPDATE (where it is null)
// inside a transaction serialized on the listing's key (store.LockKey), so
// the queue positions counted in the same transaction are exact on
// PostgreSQL under concurrency too. A free lock makes the execution
// running and sends it at once (Execute waits for the agent's answer, at
// most 30 s); a held lock queues it, FIFO by queued_at (then the position
// it got, then the id).
//
// When a running execution ends (completed, failed, timeout, or a declined
// quote) one transaction records it, releases a held payment on failure,
// calls Finished, releases the lock, locks the oldest queued execution,
// renumbers the queue, and after commit sends the promoted one in the
// background: the spec's "internal dispatch route" is this in-process call.
//
// Everything the engine waits for is in the database, so it is durable
// (docs/decisions.md "Store, federation, MCP, A2A": timers survive a restart):
// Start sends running executions that took the lock but were never sent
// (dispatched_at null), and a sweep on the injected clock times out running
// executions past started_at + the listing's executionTimeout (a quote nobody
// decides included) and promotes queues whose lock is free.
//
// Hooks for the other store work:
//   - Finished(ctx, tx, ex) runs inside the transaction that records
//     completed, failed or timeout (the review lifecycle sets pending_review
//     there; queue integration hooks there too). An error rolls the finish
//     back; the execution stays running and the sweep retries.
//   - Requeue(ctx, tx, denied) makes a new execution for the same requester
//     and input at the back of the queue (the review's deny), none for an
//     execution unlinked from its removed listing; call Kick after the
//     transaction commits so a free lock picks it up at once.
//   - Capture(ctx, tx, ex) and Release(ctx, tx, ex) settle a hold (confirm,
//     deny) with the payment provider in the caller's transaction.
//
// Federation: on a hub, a listing synced from a spoke (source_instance_id
// set) is run by handing the execution to its spoke through Remote instead
// of calling an endpoint; the spoke answers at once and delivers the result
// later with the callback token, like an agent that answered "accepted".
// The hub keeps the lock, queue, holds, review and timeout as for any
// listing, and the call counts against the breaker of the spoke's address.
// On the spoke, FederationSpokeService.Execute calls Execute with Origin
// federation and Background set (isolation output_only, the hub's execution
// id and callback token recorded), and a Finished hook sends the result to
// the hub through the outbox.
package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	secretbox "github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Task origins (layer 3 isolation: owner full_access, others output_only).
const (
	OriginOwner       = string(vocab.ExecutionOriginOwner)
	OriginMarketplace = string(vocab.ExecutionOriginMarketplace)
	OriginFederation  = string(vocab.ExecutionOriginFederation)
)

// Pricing phases of a dynamic-price execution.
const (
	PhaseQuoted   = string(vocab.PricingPhaseQuoted)
	PhaseApproved = string(vocab.PricingPhaseApproved)
	PhaseDeclined = string(vocab.PricingPhaseDeclined)
)

// MaxInput bounds the task text.
const MaxInput = 100_000

// Engine runs executions. Set the fields, then Start it once.
type Engine struct {
	DB       *db.DB
	Clock    clockwork.Clock
	Dispatch *dispatch.Dispatcher
	// Secrets opens agent credentials; nil when the instance has no key.
	Secrets  *secretbox.Box
	Payments payments.Provider
	// PublicURL prefixes the approve and callback URLs given to clients and
	// agents ("" leaves them relative to the instance).
	PublicURL string
	Logger    *slog.Logger
	// Remote runs the listings synced from other instances (a hub's
	// spokes); nil where there are none.
	Remote Remote
	// SweepEvery is how often the timeout sweep runs on Clock; 1 s when
	// zero.
	SweepEvery time.Duration
	// Tracer starts the spans of dispatches (to an agent, to a spoke); a
	// no-op one when nil (tracing off).
	Tracer trace.Tracer

	mu       sync.Mutex
	inflight map[string]bool
	wg       sync.WaitGroup
	stop     context.CancelFunc
	bg       context.Context
	sweeper  *alarm.Loop
}

// Request is one execute.
type Request struct {
	AgentID string
	UserID  string
	Input   string
	// PaymentMethodID for a paid agent; the provider's default when "".
	PaymentMethodID string
	TaskInputs      *schema.TaskInputs
	RequesterName   *string
	RequesterEmail  *string
	// Origin is decided when empty: owner for the listing's owner, else
	// marketplace.
	Origin string
	// Federation callers fill these.
	CallerInstanceURL  *string
	SourceInstanceID   *string
	SourceInstanceName *string
	CallbackURL        *string
	// A hub running a global listing for a spoke's user: that user's id on
	// the spoke, where the result is delivered.
	RequesterUserID *string
	// A spoke running its hub's dispatch: the hub's execution id and its
	// callback token, sealed.
	RemoteExecutionID   *string
	CallbackTokenSealed *string
	// Background makes Execute answer as soon as the execution is made,
	// running or queued, and call the agent in the background.
	Background bool
}

// Remote hands executions of listings synced from another instance to that
// instance.
type Remote interface {
	// Target is the address the calls for agent go to (its breaker's key),
	// or an error saying why its instance takes no executions now.
	Target(ctx context.Context, agent *ent.StoreAgent) (string, error)
	// Send hands ex to the instance with the execution's callback token;
	// refused is the instance's reason when it said no.
	Send(ctx context.Context, ex *ent.Execution, agent *ent.StoreAgent, callbackToken string) (refused string, err error)
}

// Outcome is an execution as the engine left it, with its listing.
type Outcome struct {
	Execution *ent.Execution
	Agent     *ent.StoreAgent // nil once the execution is unlinked (its listing removed)
}

func (e *Engine) now() time.Time { return e.Clock.Now().UTC() }

func (e *Engine) log() *slog.Logger {
	if e.Logger == nil {
		return slog.Default()
	}
	return e.Logger
}

// ExecutionCreated is published in the transaction that makes an execution
// (execute and requeue), running or queued: the review lifecycle opens the
// requester's queue item there.
type ExecutionCreated struct{ Execution *ent.Execution }

// ExecutionFinished is published in the transaction that records a completed,
// failed or timed-out execution: the review lifecycle delivers the result, a
// spoke returns its hub's dispatch, a hub its spoke's user's global run.
type ExecutionFinished struct{ Execution *ent.Execution }

// created announces an execution just made.
func (e *Engine) created(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	return tx.Publish(ctx, ExecutionCreated{Execution: ex})
}
