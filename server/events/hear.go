package events

import (
	"context"
)

// A hearer is told, on this replica, that events of its kinds were
// delivered for its account, whichever replica wrote them (the MCP door
// resyncs an account's tool list on store_changed). Events that come close
// together fold into one call: what it does reads the current state.
type hearer struct {
	kinds   map[string]bool
	pending chan struct{}
	fn      func(ctx context.Context)
}

// Hear calls fn on this replica after events of the given kinds are
// delivered for userID, until the bus closes. fn runs on a goroutine of its
// own, never on the delivery path.
func (b *Bus) Hear(userID string, fn func(ctx context.Context), kinds ...string) {
	h := &hearer{kinds: map[string]bool{}, pending: make(chan struct{}, 1), fn: fn}
	for _, k := range kinds {
		h.kinds[k] = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if b.hearers == nil {
		b.hearers = map[string][]*hearer{}
	}
	b.hearers[userID] = append(b.hearers[userID], h)
	b.goRun(func() {
		for {
			select {
			case <-b.done:
				return
			case <-h.pending:
				h.fn(b.ctx)
			}
		}
	})
}

// tell marks the hearers of the account whose kinds include f's; b.mu is
// held.
func (b *Bus) tellLocked(userID string, f *Frame) {
	for _, h := range b.hearers[userID] {
		if !h.kinds[f.Msg.GetEvent().GetType()] {
			continue
		}
		select {
		case h.pending <- struct{}{}:
		default: // one call is pending already
		}
	}
}

// heard answers whether anything on this replica listens to the account.
func (b *Bus) heard(userID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hubs[userID] != nil || len(b.hearers[userID]) > 0
}
