// Package events is the shared-chat event bus and its two streams
// (docs/decisions.md "Shared chat and events"): a change emits its events in
// its own unit of work (db.Tx.Emit); the bus, the database's db.Outbox,
// stores them in that transaction and fans them out to every open stream of
// the account on every replica once it has committed; the Server-Sent Events
// handler and EventService.StreamEvents deliver them.
//
// Events are stored (StreamEvent) with the change they announce, so an event
// whose change committed is never lost, even to a crash right after the
// commit: a client reconnecting with Last-Event-ID gets what it missed. On
// PostgreSQL the transaction also notifies (pg_notify), which PostgreSQL
// delivers at commit, and every replica, the writing one too, delivers from
// its LISTEN connection, in commit order. On SQLite (one process) the writer
// delivers in-process after the commit, in commit order.
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
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Defaults of Config.
const (
	DefaultKeep      = 1000
	DefaultKeepFor   = 5 * time.Minute
	DefaultBuffer    = 64
	DefaultHeartbeat = 30 * time.Second
	// DefaultWriteTimeout bounds each write to a stream: a client that takes
	// no event for this long is gone. It replaces the server's WriteTimeout,
	// which would end every stream after a minute.
	DefaultWriteTimeout = 10 * time.Second
	pruneEvery          = time.Minute
)

// Config is what a Bus needs.
type Config struct {
	DB     *db.DB
	Now    func() time.Time
	Logger *slog.Logger
	// Heartbeat is the period of the heartbeat event (DefaultHeartbeat when zero).
	Heartbeat time.Duration
	// An event is kept while it is one of the account's last Keep events or is
	// younger than KeepFor (docs/decisions.md "Shared chat and events": at
	// least 1,000 events or 5 minutes).
	Keep    int
	KeepFor time.Duration
	// Buffer is each subscriber's queue length (DefaultBuffer when zero).
	Buffer int
	// WriteTimeout bounds each write to a stream (DefaultWriteTimeout when
	// zero); an idle stream has no deadline.
	WriteTimeout time.Duration
	// Lapsed answers which of the credentials no longer admit their holder;
	// each heartbeat ends the streams they opened (credentials.go). Nil
	// checks nothing.
	Lapsed func(ctx context.Context, creds []auth.Credential) ([]auth.Credential, error)
}

// ErrClosed is returned once the bus has been closed.
var ErrClosed = errors.New("events: bus closed")

// Bus stores and delivers shared-chat events.
type Bus struct {
	cfg      Config
	db       *db.DB
	postgres bool
	channel  string // PostgreSQL NOTIFY channel, per schema
	sequence string // PostgreSQL: the sequence stream_events' ids come from

	mu       sync.Mutex
	hubs     map[string]*hub // by account
	watchers []Watcher
	closed   bool

	beat atomic.Pointer[beat]

	// hearing are those told of an account's events of some kinds (Hear).
	hearing hearing
	// ctx and done end with the bus (Close).
	ctx  context.Context
	done <-chan struct{}

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
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	b := &Bus{
		cfg: cfg, db: cfg.DB, postgres: cfg.DB.Dialect == dialect.Postgres,
		hubs: map[string]*hub{},
	}
	b.beat.Store(&beat{done: make(chan struct{})})
	ctx, stop := context.WithCancel(context.Background())
	b.stop, b.ctx, b.done = stop, ctx, ctx.Done()
	if b.postgres {
		ch, err := notifyChannel(ctx, cfg.DB)
		if err != nil {
			stop()
			return nil, err
		}
		if err := cfg.DB.SQL.QueryRowContext(ctx, "SELECT pg_get_serial_sequence('stream_events', 'id')").Scan(&b.sequence); err != nil {
			stop()
			return nil, fmt.Errorf("events: the id sequence: %w", err)
		}
		b.channel = ch
		b.goRun(func() { b.listen(ctx) })
	}
	// What units of work emit on this database is stored and delivered here.
	cfg.DB.SetOutbox(b)
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

// Publish stores ev for the account and delivers it to the account's
// streams on every replica, in a transaction of its own. A change announces
// its events with tx.Emit instead, in its own transaction (see Write).
func (b *Bus) Publish(ctx context.Context, userID string, ev *switchboardv1.ChatEvent) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return b.db.InTx(ctx, func(tx *db.Tx) error {
		tx.Emit(db.Event{UserID: userID, Body: ev})
		return nil
	})
}

// Write stores the events a unit of work emitted, in its transaction (the
// db.Outbox of the bus's database), and answers what delivers them once it
// has committed. On PostgreSQL it takes each account's advisory lock first,
// so that an account's ids follow commit order, and notifies in the
// transaction: PostgreSQL delivers the notification exactly when the
// transaction commits, and every replica (this one too) delivers from its
// LISTEN connection. On SQLite (one process, one writer) the frames are
// handed to this process's subscribers by the writer, after the commit, in
// commit order.
func (b *Bus) Write(ctx context.Context, tx *ent.Tx, evs []db.Event, last *db.Statement) (func(), error) {
	if b.postgres {
		return nil, b.writeNotify(ctx, tx, evs, last)
	}
	if last != nil {
		if _, err := tx.ExecContext(ctx, last.SQL, last.Args...); err != nil {
			return nil, fmt.Errorf("events: last statement: %w", err)
		}
	}
	type delivery struct {
		user string
		f    *Frame
	}
	out := make([]delivery, 0, len(evs))
	for _, e := range evs {
		ev, payload, err := encode(e)
		if err != nil {
			return nil, err
		}
		row, err := b.insert(ctx, tx, e.UserID, payload)
		if err != nil {
			return nil, err
		}
		f, err := newFrame(row.ID, ev)
		if err != nil {
			return nil, err
		}
		out = append(out, delivery{e.UserID, f})
	}
	return func() {
		for _, d := range out {
			b.dispatch(d.user, d.f, false)
		}
	}, nil
}

func (b *Bus) writeNotify(ctx context.Context, tx *ent.Tx, evs []db.Event, last *db.Statement) error {
	users := make([]string, len(evs))
	payloads := make([][]byte, len(evs))
	tails := make([]string, len(evs))
	for i, e := range evs {
		_, payload, err := encode(e)
		if err != nil {
			return err
		}
		users[i], payloads[i], tails[i] = e.UserID, payload, notificationTail(e.UserID, payload)
	}
	// The locks, the rows and their notifications in one round trip, and
	// the unit's last statement with them (a part of its own, whose
	// placeholders follow the six of writeNotifySQL).
	query, args := writeNotifySQL, []any{users, payloads, b.cfg.Now(), b.channel, tails, b.sequence}
	if last != nil {
		query = "WITH last AS (" + shiftParams(last.SQL, len(args)) + "), " + strings.TrimPrefix(writeNotifySQL, "WITH ")
		args = append(args, last.Args...)
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("events: insert: %w", err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("events: insert: %w", err)
	}
	if n != len(evs) {
		return fmt.Errorf("events: insert: %d notifications for %d events", n, len(evs))
	}
	return nil
}

// writeNotifySQL stores a unit of work's events ($1 accounts, $2 payloads, in
// emit order) and notifies the channel ($4) of each: "<id>" followed by its
// tail ($5, notificationTail). First it takes each account's lock, in one
// (byte) order so that two writers never wait on each other, and only then
// draws the ids ($6 is the id sequence): an account's ids follow commit order.
// The ids drawn are handed out smallest first in emit order, whatever order
// nextval ran in, and PostgreSQL runs a volatile output function (pg_notify)
// after the ORDER BY sort, so the notifications go in id order too.
const writeNotifySQL = `WITH locks AS (
	SELECT COUNT(pg_advisory_xact_lock(hashtext(k))) AS n
	FROM (SELECT DISTINCT ('events:' || u) COLLATE "C" AS k FROM unnest($1::text[]) AS a(u) ORDER BY k) AS s
), drawn AS (
	SELECT nextval($6::regclass) AS id FROM generate_series(1, cardinality($1::text[])), locks
), numbered AS (
	SELECT id, row_number() OVER (ORDER BY id) AS o FROM drawn
), ins AS (
	INSERT INTO stream_events (id, user_id, payload, created_at)
	SELECT n.id, x.u, x.p, $3 FROM numbered AS n JOIN unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS x(u, p, o) ON x.o = n.o
)
SELECT pg_notify($4, CAST(n.id AS TEXT) || ($5::text[])[n.o]) FROM numbered AS n ORDER BY n.id`

// shiftParams renumbers the $n placeholders of stmt to $n+by.
func shiftParams(stmt string, by int) string {
	return placeholder.ReplaceAllStringFunc(stmt, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		return "$" + strconv.Itoa(n+by)
	})
}

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// encode is an emitted event as the bus stores it.
func encode(e db.Event) (*switchboardv1.ChatEvent, []byte, error) {
	ev, ok := e.Body.(*switchboardv1.ChatEvent)
	if !ok || e.UserID == "" {
		return nil, nil, fmt.Errorf("events: an event needs an account and a ChatEvent, not %T", e.Body)
	}
	payload, err := proto.Marshal(ev)
	return ev, payload, err
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
	if !catchUp {
		b.hearing.tell(userID, f)
	}
	h := b.hubs[userID]
	if h == nil {
		return
	}
	for i := 0; i < len(h.subs); {
		s := h.subs[i]
		if f.ID <= s.queued || (catchUp && !s.settled) || (f.Dashboard && !s.dashboard) {
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
// removeWhere visits every subscriber under the lock, removes those for which
// gone answers true from their hub and then ends each with end, dropping
// emptied hubs.
func (b *Bus) removeWhere(gone func(*Subscription) bool, end func(*Subscription)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for user, h := range b.hubs {
		for i := 0; i < len(h.subs); {
			s := h.subs[i]
			if !gone(s) {
				i++
				continue
			}
			b.removeLocked(h, i)
			end(s)
		}
		if len(h.subs) == 0 {
			delete(b.hubs, user)
		}
	}
}

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
		b.sweep(ctx) // before the beat: a lapsed stream gets none
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

// TypeReconnect is the last SSE event of a stream that a replica shutting
// down ends: the client reconnects (after the retry: the event carries, as
// every event does) with its Last-Event-ID, to another replica. It is never
// stored, and a Connect stream gets unavailable instead.
const TypeReconnect = "reconnect"

// draining is why Drain ended a stream.
var draining = func() *ended {
	f, err := newFrame(0, &switchboardv1.ChatEvent{Type: TypeReconnect})
	if err != nil {
		panic(err) // a constant event always encodes
	}
	return &ended{err: unavailable("the server is shutting down; reconnect with last_event_id"), frame: f}
}()

// ReconnectSSE is the reconnect event as an SSE frame, for the streams of
// other protocols (A2A) that end on Drain.
func ReconnectSSE() []byte { return draining.frame.SSE }

// Drained reports whether err (from Pump) is the end Drain gave a stream.
func Drained(err error) bool {
	var why *ended
	return errors.As(err, &why) && why == draining
}

// Drain ends every open stream with the reconnect hint (SSE: the reconnect
// event; Connect: unavailable) and refuses new ones, for a replica shutting
// down; Publish and the background work go on until Close.
func (b *Bus) Drain() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.removeWhere(func(*Subscription) bool { return true }, func(s *Subscription) { s.revoke(draining) })
}
