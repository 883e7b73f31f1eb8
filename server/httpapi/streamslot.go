package httpapi

import (
	"context"
	"sync/atomic"
)

// A stream's slot under the gate's cap on open streams (gate.Gate.Stream)
// travels in its request's context, so that a handler serving the stream
// past its own return (the event bus takes an HTTP/1.1 connection over) keeps
// the slot until the stream really ends.

type streamSlotKey struct{}

// StreamSlot is one stream's slot, given back once.
type StreamSlot struct {
	release func()
	kept    atomic.Bool
}

// WithStreamSlot is ctx carrying the slot that release gives back.
func WithStreamSlot(ctx context.Context, release func()) (context.Context, *StreamSlot) {
	s := &StreamSlot{release: release}
	return context.WithValue(ctx, streamSlotKey{}, s), s
}

// Done gives the slot back when the handler has returned, unless the handler
// kept it (KeepStreamSlot).
func (s *StreamSlot) Done() {
	if !s.kept.Load() {
		s.release()
	}
}

// KeepStreamSlot takes over the slot of ctx's stream: it is no longer given
// back when the handler returns, but when the returned function is called,
// at the stream's real end. Without a slot it answers a function that does
// nothing.
func KeepStreamSlot(ctx context.Context) (release func()) {
	s, ok := ctx.Value(streamSlotKey{}).(*StreamSlot)
	if !ok {
		return func() {}
	}
	s.kept.Store(true)
	return s.release
}
