package events

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reconnection delays of the listener.
const (
	listenBackoffMin = 100 * time.Millisecond
	listenBackoffMax = 5 * time.Second
)

// listenerState is what tests may observe of the listener.
type listenerState struct {
	mu       sync.Mutex
	pid      uint32 // backend of the current LISTEN connection, 0 while down
	sessions int    // LISTEN connections made so far
	// beforeConnect, when set (tests), runs before each connection attempt
	// with the number of LISTEN sessions so far, so a test can publish while
	// this replica is not listening.
	beforeConnect func(sessions int)
}

// listen keeps one connection LISTENing on the bus's channel and delivers
// every notification. After a (re)connect it first catches up from the store
// on what its subscribers missed while it was down, so a dropped listener
// connection loses nothing.
func (b *Bus) listen(ctx context.Context) {
	backoff := listenBackoffMin
	for {
		listened, err := b.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		b.cfg.Logger.Warn("events: listener disconnected; reconnecting", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff): //nolint:forbidigo // reconnect backoff of the database connection, network time
		}
		if listened {
			backoff = listenBackoffMin
		} else {
			backoff = min(2*backoff, listenBackoffMax)
		}
	}
}

func (b *Bus) listenOnce(ctx context.Context) (listened bool, err error) {
	b.lis.mu.Lock()
	hook, sessions := b.lis.beforeConnect, b.lis.sessions
	b.lis.mu.Unlock()
	if hook != nil {
		hook(sessions)
	}
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.Connect(connectCtx, b.db.PostgresDSN())
	cancel()
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		b.lis.mu.Lock()
		b.lis.pid = 0
		b.lis.mu.Unlock()
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{b.channel}.Sanitize()); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	b.lis.mu.Lock()
	b.lis.pid = conn.PgConn().PID()
	b.lis.sessions++
	b.lis.mu.Unlock()
	// Notifications that arrive meanwhile wait in the connection; the ones
	// the catch-up already delivered are then skipped by id.
	if err := b.catchUp(ctx); err != nil {
		return true, err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		if err := b.deliver(ctx, n.Payload); err != nil {
			b.cfg.Logger.Error("events: notification", "err", err)
		}
	}
}

// catchUp delivers, to every settled subscriber on this replica, the stored
// events after the last one it was given.
func (b *Bus) catchUp(ctx context.Context) error {
	since := map[string]int64{}
	b.mu.Lock()
	for user, h := range b.hubs {
		for _, s := range h.subs {
			if !s.settled {
				continue // its starting point is read after this LISTEN
			}
			if v, ok := since[user]; !ok || s.queued < v {
				since[user] = s.queued
			}
		}
	}
	b.mu.Unlock()
	for user, after := range since {
		if err := b.catchUpUser(ctx, user, after); err != nil {
			return err
		}
	}
	return nil
}

// catchUpUser delivers the account's stored events after id to its settled
// subscribers that have not had them.
func (b *Bus) catchUpUser(ctx context.Context, userID string, after int64) error {
	frames, err := b.replay(ctx, userID, after)
	if err != nil {
		return err
	}
	for _, f := range frames {
		b.dispatch(userID, f, true)
	}
	return nil
}

func (b *Bus) listenerSessions() int {
	b.lis.mu.Lock()
	defer b.lis.mu.Unlock()
	return b.lis.sessions
}

// deliver hands one notification's event to this replica's subscribers.
func (b *Bus) deliver(ctx context.Context, note string) error {
	id, user, payload, inline, err := parseNotification(note)
	if err != nil {
		return err
	}
	if b.Subscribers(user) == 0 && !b.hearing.any(user) {
		return nil
	}
	if !inline {
		row, err := b.db.StreamEvent.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("events: read event %d: %w", id, err)
		}
		payload = row.Payload
	}
	f, err := decodeFrame(id, payload)
	if err != nil {
		return err
	}
	b.dispatch(user, f, false)
	return nil
}
