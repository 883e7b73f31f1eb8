package events

import (
	"context"
	"sync"
)

// A hearer is told, on this replica, that events of its kinds were
// delivered for its account, whichever replica wrote them (the MCP door
// resyncs an account's tool list on store_changed). Events that come close
// together fold into one call: what it does reads the current state.
type hearer struct {
	kinds   map[string]bool
	pending chan struct{}
}

// hearing holds the bus's hearers, by account; its lock is taken inside
// the bus's, never the other way round.
type hearing struct {
	mu sync.Mutex
	by map[string][]*hearer
}

// Hear calls fn on this replica after events of the given kinds are
// delivered for userID, until the bus closes. fn runs on a goroutine of its
// own, never on the delivery path.
func (b *Bus) Hear(userID string, fn func(ctx context.Context), kinds ...string) {
	h := &hearer{kinds: map[string]bool{}, pending: make(chan struct{}, 1)}
	for _, k := range kinds {
		h.kinds[k] = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.hearing.add(userID, h)
	b.goRun(func() {
		for {
			select {
			case <-b.done:
				return
			case <-h.pending:
				fn(b.ctx)
			}
		}
	})
}

func (g *hearing) add(userID string, h *hearer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.by == nil {
		g.by = map[string][]*hearer{}
	}
	g.by[userID] = append(g.by[userID], h)
}

// tell marks the account's hearers whose kinds include f's.
func (g *hearing) tell(userID string, f *Frame) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.by[userID] {
		if !h.kinds[f.Msg.GetEvent().GetType()] {
			continue
		}
		select {
		case h.pending <- struct{}{}:
		default: // one call is pending already
		}
	}
}

// any answers whether the account has hearers here.
func (g *hearing) any(userID string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.by[userID]) > 0
}
