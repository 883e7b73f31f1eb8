package events

import (
	"context"
	"errors"
	"slices"

	"github.com/switchboard-hq/switchboard/server/auth"
)

// Subscription is one open stream's place on the bus.
type Subscription struct {
	bus    *Bus
	userID string
	cred   auth.Credential // what opened the stream; zero for none
	// dashboard: the dashboard's stream, which also takes the dashboard's
	// kinds (Frame.Dashboard); every other stream skips them.
	dashboard bool
	// c is the queue its stream's goroutine reads (Pump). An SSE stream on a
	// hijacked connection moves to out instead, and c is then nil (conn.go).
	c chan *Frame
	// Guarded by bus.mu.
	out     *sseConn
	index   int   // position in the hub
	queued  int64 // the highest event id handed to c, or sent on out (the replay included)
	settled bool  // queued covers the starting point
	ended   bool
	dropped bool   // ended because the buffer was full
	lapsed  *ended // ended because its credential lapsed
}

// Errors that end a stream.
var (
	// ErrDropped: the subscriber fell behind and its buffer filled.
	ErrDropped = errors.New("events: subscriber fell behind")
)

// Subscribe opens a subscription to the account's events. With after >= 0 (a
// Last-Event-ID) it also returns the stored events after that id, to send
// before anything from the subscription; the subscription may repeat some of
// them, which Pump skips. With after < 0 the stream starts now.
// It takes document 1's events only, not the dashboard's kinds.
func (b *Bus) Subscribe(ctx context.Context, userID string, after int64) (*Subscription, []*Frame, error) {
	return b.subscribe(ctx, userID, auth.Credential{}, false, after)
}

// subscribe is Subscribe for a stream opened with cred, which ends it when
// it lapses; a dashboard stream takes the dashboard's kinds too.
func (b *Bus) subscribe(ctx context.Context, userID string, cred auth.Credential, dashboard bool, after int64) (*Subscription, []*Frame, error) {
	s := &Subscription{bus: b, userID: userID, cred: cred, dashboard: dashboard, c: make(chan *Frame, b.cfg.Buffer)}
	// Join first, then read the store: an event committed in between is then
	// both replayed and delivered (and skipped once), never neither.
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, ErrClosed
	}
	h := b.hubs[userID]
	if h == nil {
		h = &hub{}
		b.hubs[userID] = h
	}
	s.index = len(h.subs)
	h.subs = append(h.subs, s)
	b.mu.Unlock()

	var (
		replay []*Frame
		floor  int64
		err    error
	)
	sessions := b.listenerSessions()
	switch {
	case after >= 0:
		floor = after
		replay, err = b.replay(ctx, userID, after)
	case b.postgres:
		// The starting point a listener catch-up resumes this subscriber from:
		// what is stored now has happened before it connected.
		floor, err = b.latest(ctx, userID)
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	b.mu.Lock()
	s.queued = max(s.queued, floor)
	s.settled = true
	b.mu.Unlock()
	if b.postgres && b.listenerSessions() != sessions {
		// The listener reconnected while this subscriber was settling, and its
		// catch-up passed it by: what committed while the listener was down
		// comes from the store instead, before anything from the channel
		// (which may already hold later events).
		if replay, err = b.replay(ctx, userID, floor); err != nil {
			s.Close()
			return nil, nil, err
		}
	}
	return s, s.takes(replay), nil
}

// takes answers the frames of fs this subscription is sent.
func (s *Subscription) takes(fs []*Frame) []*Frame {
	if s.dashboard {
		return fs
	}
	return slices.DeleteFunc(fs, func(f *Frame) bool { return f.Dashboard })
}

// Close leaves the bus; the subscription's channel is closed if it was not.
func (s *Subscription) Close() {
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.ended {
		return
	}
	b.leaveLocked(s)
	s.end(false)
}

// leaveLocked takes s out of its hub; bus.mu is held.
func (b *Bus) leaveLocked(s *Subscription) {
	if h := b.hubs[s.userID]; h != nil && s.index < len(h.subs) && h.subs[s.index] == s {
		b.removeLocked(h, s.index)
		if len(h.subs) == 0 {
			delete(b.hubs, s.userID)
		}
	}
}

// offer hands f over without waiting; false when s cannot take it (its
// buffer is full, or its connection failed). bus.mu is held.
func (s *Subscription) offer(f *Frame) bool {
	if s.out != nil {
		return s.out.send(f.SSE)
	}
	select {
	case s.c <- f:
		return true
	default:
		return false
	}
}

// end closes the channel (or the connection) once; bus.mu is held.
func (s *Subscription) end(dropped bool) {
	if s.ended {
		return
	}
	s.ended, s.dropped = true, dropped
	if s.out != nil {
		s.out.close()
		return
	}
	close(s.c)
}

// revoke ends s because its credential lapsed: a hijacked SSE connection
// gets the error event first, a channel reader finds why in s.lapsed. bus.mu
// is held, and s has left its hub.
func (s *Subscription) revoke(why *ended) {
	if s.ended {
		return
	}
	s.lapsed = why
	if s.out != nil {
		s.out.finish(why.frame.SSE)
		s.ended = true
		return
	}
	s.end(false)
}

// Pump delivers the subscription's events and the heartbeats to send until
// ctx ends (nil), the subscriber falls behind (ErrDropped), the bus closes
// (ErrClosed) or its credential lapses (an *ended). last is the id of the
// last event already sent; events up to it are skipped.
func (b *Bus) Pump(ctx context.Context, s *Subscription, last int64, send func(*Frame) error) error {
	for {
		bt := b.beat.Load()
		select {
		case f, ok := <-s.c:
			if !ok {
				// The channel's close publishes dropped and lapsed (written
				// before it).
				if s.dropped {
					return ErrDropped
				}
				if s.lapsed != nil {
					return s.lapsed
				}
				return ErrClosed
			}
			if f.ID != 0 && f.ID <= last {
				continue
			}
			if err := send(f); err != nil {
				return err
			}
			last = max(last, f.ID)
		case <-bt.done:
			if err := send(bt.frame); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// SubscribeFor opens a subscription to p's account that starts now and lives
// only as long as the credential that admitted p, for streams of other
// protocols (A2A). Pump ends it with an error wrapping the refusal
// (*apperr.Error) when that credential lapses.
func (b *Bus) SubscribeFor(ctx context.Context, p *auth.Principal) (*Subscription, error) {
	sub, _, err := b.subscribe(ctx, p.UserID, p.Credential(), false, -1)
	return sub, err
}
