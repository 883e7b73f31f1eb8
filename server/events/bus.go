// Package events is the shared-chat event bus and its two streams (document 1,
// "Events"; RULINGS "Shared chat and events"): Publish stores an event and
// fans it out to every open stream of the account on every replica, the
// Server-Sent Events handler and EventService.StreamEvents deliver it.
//
// Events are stored (StreamEvent) so that a client reconnecting with
// Last-Event-ID gets what it missed. On PostgreSQL each publish notifies the
// other replicas in its own transaction (pg_notify) and every replica, the
// publishing one too, delivers from its LISTEN connection, in commit order. On
// SQLite (one process) the publisher delivers in-process after the insert.
//
// Delivery is built for many idle subscribers: each event is encoded once (the
// SSE frame and the proto message) and shared; one ticker serves every
// heartbeat. An SSE stream over HTTP/1.1 takes its connection over and the bus
// writes to it directly, with no goroutine while the client keeps up (conn.go);
// other streams (Connect, HTTP/2) are a small buffered channel read by the
// goroutine their request already has. A subscriber whose buffer is full is
// dropped: its stream ends and the client resumes with Last-Event-ID.
package events

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// Defaults of Config.
const (
	DefaultKeep      = 1000
	DefaultKeepFor   = 5 * time.Minute
	DefaultBuffer    = 64
	DefaultHeartbeat = 30 * time.Second
	pruneEvery       = time.Minute
)

// Config is what a Bus needs.
type Config struct {
	DB     *db.DB
	Now    func() time.Time
	Logger *slog.Logger
	// Heartbeat is the period of the heartbeat event (DefaultHeartbeat when zero).
	Heartbeat time.Duration
	// An event is kept while it is one of the account's last Keep events or is
	// younger than KeepFor (RULINGS: at least 1,000 events or 5 minutes).
	Keep    int
	KeepFor time.Duration
	// Buffer is each subscriber's queue length (DefaultBuffer when zero).
	Buffer int
}

// ErrClosed is returned once the bus has been closed.
var ErrClosed = errors.New("events: bus closed")

// Bus stores and delivers shared-chat events.
type Bus struct {
	cfg      Config
	db       *db.DB
	postgres bool
	channel  string // PostgreSQL NOTIFY channel, per schema

	mu     sync.Mutex
	hubs   map[string]*hub // by account
	closed bool

	// pubLocks serialise one account's publishes on SQLite, so that in-process
	// delivery happens in id order.
	pubLocks [32]sync.Mutex
	seed     maphash.Seed

	beat atomic.Pointer[beat]

	stop    context.CancelFunc
	wg      sync.WaitGroup
	lis     listenerState
	closing sync.Once
}

// hub is one account's subscribers on this replica.
type hub struct {
	subs []*Subscription
}

// beat is one heartbeat period: done is closed when it ends, and frame (set
// before that) is the heartbeat to send. Every stream waits on the same beat.
type beat struct {
	done  chan struct{}
	frame *Frame
}

// New starts a bus: the heartbeat, the retention pruning and, on PostgreSQL,
// the listener. Close stops them.
func New(cfg Config) (*Bus, error) {
	if cfg.Now == nil {
		return nil, errors.New("events: Config.Now is required (the server's clock)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.Keep <= 0 {
		cfg.Keep = DefaultKeep
	}
	if cfg.KeepFor <= 0 {
		cfg.KeepFor = DefaultKeepFor
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	b := &Bus{
		cfg: cfg, db: cfg.DB, postgres: cfg.DB.Dialect == dialect.Postgres,
		hubs: map[string]*hub{}, seed: maphash.MakeSeed(),
	}
	b.beat.Store(&beat{done: make(chan struct{})})
	ctx, stop := context.WithCancel(context.Background())
	b.stop = stop
	if b.postgres {
		ch, err := notifyChannel(ctx, cfg.DB)
		if err != nil {
			stop()
			return nil, err
		}
		b.channel = ch
		b.goRun(func() { b.listen(ctx) })
	}
	b.goRun(func() { b.heartbeats(ctx) })
	b.goRun(func() { b.pruneLoop(ctx) })
	return b, nil
}

func (b *Bus) goRun(fn func()) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		fn()
	}()
}

// Close ends every open stream and stops the background work. Publish still
// stores events afterwards (other replicas deliver them); nothing is
// delivered here any more.
func (b *Bus) Close() {
	b.closing.Do(func() {
		b.mu.Lock()
		b.closed = true
		for id, h := range b.hubs {
			for _, s := range h.subs {
				s.end(false)
			}
			delete(b.hubs, id)
		}
		b.mu.Unlock()
		b.stop()
		b.wg.Wait()
	})
}

// Publish stores ev for the account and delivers it to the account's streams
// on every replica. Call it after the transaction that made the change has
// committed, so that no stream shows what a rollback undid. It outlives the
// caller's cancellation (a client hanging up after its change committed must
// not lose the event).
func (b *Bus) Publish(ctx context.Context, userID string, ev *switchboardv1.ChatEvent) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	payload, err := proto.Marshal(ev)
	if err != nil {
		return err
	}
	if b.postgres {
		// Delivery comes back through LISTEN, on this replica as on the others.
		return b.db.InTx(ctx, func(tx *ent.Tx) error {
			// Ids in commit order per account: the next publish of the account
			// takes its id only after this one has committed.
			if err := b.db.Serialize(ctx, tx, "events:"+userID); err != nil {
				return err
			}
			row, err := b.insert(ctx, tx, userID, payload)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", b.channel, notification(row.ID, userID, payload))
			return err
		})
	}
	l := &b.pubLocks[maphash.String(b.seed, userID)%uint64(len(b.pubLocks))]
	l.Lock()
	defer l.Unlock()
	var id int64
	err = b.db.InTx(ctx, func(tx *ent.Tx) error {
		row, err := b.insert(ctx, tx, userID, payload)
		if err == nil {
			id = row.ID
		}
		return err
	})
	if err != nil {
		return err
	}
	f, err := newFrame(id, ev)
	if err != nil {
		return err
	}
	b.dispatch(userID, f, false)
	return nil
}

func (b *Bus) insert(ctx context.Context, tx *ent.Tx, userID string, payload []byte) (*ent.StreamEvent, error) {
	return tx.StreamEvent.Create().SetUserID(userID).SetPayload(payload).SetCreatedAt(b.cfg.Now()).Save(ctx)
}

// dispatch hands f to the account's subscribers that have not had it yet,
// dropping those whose buffer is full. A catch-up after a listener reconnect
// skips subscribers still settling their starting point (see Subscribe).
func (b *Bus) dispatch(userID string, f *Frame, catchUp bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hubs[userID]
	if h == nil {
		return
	}
	for i := 0; i < len(h.subs); {
		s := h.subs[i]
		if f.ID <= s.queued || (catchUp && !s.settled) {
			i++
			continue
		}
		if s.offer(f) {
			s.queued = f.ID
			i++
		} else {
			b.removeLocked(h, i)
			s.end(true)
		}
	}
	if len(h.subs) == 0 {
		delete(b.hubs, userID)
	}
}

// removeLocked takes subscriber i out of h; b.mu is held.
func (b *Bus) removeLocked(h *hub, i int) {
	last := len(h.subs) - 1
	h.subs[i] = h.subs[last]
	h.subs[i].index = i
	h.subs[last] = nil
	h.subs = h.subs[:last]
}

// Subscribers counts the open subscriptions of an account on this replica.
func (b *Bus) Subscribers(userID string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.hubs[userID]; h != nil {
		return len(h.subs)
	}
	return 0
}

// heartbeats ends one beat per period, with the heartbeat frame every stream
// then sends.
func (b *Bus) heartbeats(ctx context.Context) {
	t := time.NewTicker(b.cfg.Heartbeat) //nolint:forbidigo // keep-alive period of open connections (network time); the frame's timestamp is Config.Now
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f, err := newFrame(0, &switchboardv1.ChatEvent{Type: TypeHeartbeat, Timestamp: timestamppb.New(b.cfg.Now())})
		if err != nil {
			b.cfg.Logger.Error("events: heartbeat", "err", err)
			continue
		}
		b.beatConns(f)
		old := b.beat.Swap(&beat{done: make(chan struct{})})
		old.frame = f
		close(old.done)
	}
}

func (b *Bus) pruneLoop(ctx context.Context) {
	t := time.NewTicker(pruneEvery) //nolint:forbidigo // how often pruning runs; what it keeps is decided with Config.Now
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := b.Prune(ctx); err != nil && ctx.Err() == nil {
			b.cfg.Logger.Warn("events: prune", "err", err)
		}
	}
}
