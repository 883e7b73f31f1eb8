package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/switchboard-hq/switchboard/server/events"
)

// The GET stream (the server's own SSE stream of a session) ends on Drain
// with the reconnect event, as the chat streams do. The SDK writes it from
// its own goroutine, so the stream's writes go through a lock that Drain
// takes too, and the request's context is cancelled after the event, which
// ends the SDK's handler.

// getStream is one open GET stream.
type getStream struct {
	http.ResponseWriter
	mu     sync.Mutex
	ended  bool
	cancel context.CancelFunc
}

var errDrained = errors.New("mcp: the stream ended: the server is shutting down")

func (g *getStream) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return 0, errDrained
	}
	return g.ResponseWriter.Write(p)
}

func (g *getStream) Flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		_ = http.NewResponseController(g.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (g *getStream) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// end writes the reconnect event and ends the stream.
func (g *getStream) end() {
	g.mu.Lock()
	if !g.ended {
		g.ended = true
		if _, err := g.ResponseWriter.Write(events.ReconnectSSE()); err == nil {
			_ = http.NewResponseController(g.ResponseWriter).Flush()
		}
	}
	g.mu.Unlock()
	g.cancel()
}

// drainable wraps a GET stream's writer and request; done forgets it.
func (s *Server) drainable(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	g := &getStream{ResponseWriter: w, cancel: cancel}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		cancel()
		return w, r.WithContext(ctx), func() {}
	}
	if s.streams == nil {
		s.streams = map[*getStream]bool{}
	}
	s.streams[g] = true
	s.mu.Unlock()
	return g, r.WithContext(ctx), func() {
		s.mu.Lock()
		delete(s.streams, g)
		s.mu.Unlock()
		cancel()
	}
}

// Drain ends every open GET stream with the reconnect event; a GET stream
// opened afterwards ends at once. Sessions stay until Close.
func (s *Server) Drain() {
	s.mu.Lock()
	s.draining = true
	open := make([]*getStream, 0, len(s.streams))
	for g := range s.streams {
		open = append(open, g)
	}
	s.mu.Unlock()
	for _, g := range open {
		g.end()
	}
}
