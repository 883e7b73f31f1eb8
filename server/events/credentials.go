package events

import (
	"context"
	"slices"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// A stream lives only as long as the credential that opened it
// (docs/decisions.md, issue 11). Deactivating a key or
// logging out ends that credential's streams on this replica at once
// (EndStreams); every heartbeat also asks the database which credentials of
// the open streams have lapsed (Config.Lapsed), which covers other replicas
// and expiry. An SSE stream gets a final error event; a Connect stream ends
// with the error a new request would get.

// TypeError is the last event of a stream whose credential lapsed.
const TypeError = string(vocab.StreamEventError)

// Reasons of the error event.
const (
	ReasonKeyInactive  = "key_inactive"
	ReasonSessionEnded = "session_ended"
)

// ended is why a stream ended: the refusal, and the SSE event saying so.
type ended struct {
	err   *apperr.Error
	frame *Frame
}

// Error makes the ending the error Pump returns.
func (e *ended) Error() string { return e.err.Error() }

// Unwrap answers the refusal.
func (e *ended) Unwrap() error { return e.err }

func endedBy(c auth.Credential) *ended {
	reason := ReasonSessionEnded
	if c.KeyID != "" {
		reason = ReasonKeyInactive
	}
	f, err := newFrame(0, &switchboardv1.ChatEvent{Type: TypeError, Reason: proto.String(reason)})
	if err != nil {
		panic(err) // a constant event always encodes
	}
	return &ended{err: c.Ended(), frame: f}
}

// EndStreams ends the streams opened with any of creds on this replica.
func (b *Bus) EndStreams(creds ...auth.Credential) {
	set := make(map[auth.Credential]*ended, len(creds))
	for _, c := range creds {
		if c != (auth.Credential{}) {
			set[c] = endedBy(c)
		}
	}
	if len(set) == 0 {
		return
	}
	b.removeWhere(func(s *Subscription) bool { return set[s.cred] != nil },
		func(s *Subscription) { s.revoke(set[s.cred]) })
}

// openCredentials lists, once each, the credentials of the open streams.
func (b *Bus) openCredentials() []auth.Credential {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := map[auth.Credential]bool{}
	var out []auth.Credential
	for _, h := range b.hubs {
		for _, s := range h.subs {
			if s.cred != (auth.Credential{}) && !seen[s.cred] {
				seen[s.cred] = true
				out = append(out, s.cred)
			}
		}
	}
	return out
}

// Watcher is another holder of open streams in this process (the MCP door's
// sessions): every heartbeat the bus checks its credentials together with
// its own streams' and tells it which have lapsed.
type Watcher struct {
	// Open lists the credentials of its open streams.
	Open func() []auth.Credential
	// End ends the streams of the lapsed credentials.
	End func(creds ...auth.Credential)
}

// Watch adds w to the heartbeat's credential check.
func (b *Bus) Watch(w Watcher) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.watchers = append(b.watchers, w)
}

// sweep ends the streams whose credential lapsed since the last heartbeat,
// the bus's and its watchers'. One look-up per heartbeat for all of them,
// bounded by the period.
func (b *Bus) sweep(ctx context.Context) {
	if b.cfg.Lapsed == nil {
		return
	}
	creds := b.openCredentials()
	b.mu.Lock()
	watchers := slices.Clone(b.watchers)
	b.mu.Unlock()
	for _, w := range watchers {
		for _, c := range w.Open() {
			if !slices.Contains(creds, c) {
				creds = append(creds, c)
			}
		}
	}
	if len(creds) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Heartbeat)
	defer cancel()
	gone, err := b.cfg.Lapsed(ctx, creds)
	if err != nil {
		if ctx.Err() == nil {
			b.cfg.Logger.Warn("events: check stream credentials", "err", err)
		}
		return
	}
	b.EndStreams(gone...)
	for _, w := range watchers {
		w.End(gone...)
	}
}
