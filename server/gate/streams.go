package gate

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// The caps on what a caller holds open at once (RULINGS "Security details",
// Reconciliation 11): streams of any kind (the chat stream and its Connect
// twin, chat send, A2A streams, the MCP GET stream) and MCP sessions. A key's
// streams count per key; a session's per account, however many sessions it
// has. Unlike the rate classes they count what is open, so a slot is taken
// before a stream starts and given back when it ends, whichever side ends it
// (a hang-up, the server closing, the credential revoked).
//
// The counters are this process's: with replicas a caller could hold the cap
// on each. The replicas issue moves them to the database (no 1/N share in
// between).

// capRetry is the Retry-After of a refusal: a slot frees when another
// stream ends, which no clock predicts; ten seconds keeps a polite client from
// asking in a loop.
const capRetry = 10 * time.Second

// slots counts the open streams (or sessions) of each holder.
type slots struct {
	limit int
	mu    sync.Mutex
	open  map[string]int
}

func newSlots(limit int) *slots { return &slots{limit: limit, open: map[string]int{}} }

// take takes one of holder's slots; release gives it back, once however
// often it is called. ok is false when holder holds them all.
func (s *slots) take(holder string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[holder] >= s.limit {
		return nil, false
	}
	s.open[holder]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.open[holder]--; s.open[holder] <= 0 {
				delete(s.open, holder)
			}
		})
	}, true
}

// holder is what a cap counts p by: the key for a key, the account for a
// session (Reconciliation 11).
func holder(p *auth.Principal) (string, string) {
	if p.Via == auth.ViaKey {
		return "key:" + p.KeyID, "key"
	}
	return "user:" + p.UserID, "account"
}

// OpenStream takes a stream slot of the admitted caller in ctx, or answers
// the 429 to send before the stream starts. release is called when the
// stream ends. A request without a principal (a public route) is not
// counted.
func (g *Gate) OpenStream(ctx context.Context) (release func(), err error) {
	slot, err := g.open(ctx, g.streams, "streams")
	if err != nil {
		return nil, err
	}
	g.streamsOpen.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			g.streamsOpen.Add(-1)
			slot()
		})
	}, nil
}

// StreamsOpen is how many streams are open on this process, counted or not
// (a public route's), for the metrics' switchboard_streams_open.
func (g *Gate) StreamsOpen() int64 { return g.streamsOpen.Load() }

// OpenMCPSession takes an MCP session slot of the admitted key in ctx, or
// answers the 429 to send instead of creating the session; release is
// called when the session closes (DELETE, idle timeout, the key revoked).
func (g *Gate) OpenMCPSession(ctx context.Context) (release func(), err error) {
	return g.open(ctx, g.sessions, "MCP sessions")
}

func (g *Gate) open(ctx context.Context, s *slots, what string) (func(), error) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok || p == nil {
		return func() {}, nil
	}
	who, per := holder(p)
	release, ok := s.take(who)
	if !ok {
		return nil, &apperr.Error{Kind: apperr.KindRateLimited, RetryAfter: capRetry,
			Message: fmt.Sprintf("at most %d %s may be open at once for this %s: close one, or try again in %d seconds",
				s.limit, what, per, apperr.RetryAfterSeconds(capRetry))}
	}
	return release, nil
}

// Stream is middleware for a plain handler that serves a stream (the Server-
// Sent Events twins), after the gate has admitted the caller: it holds a
// stream slot while next runs (or, when next keeps it with
// httpapi.KeepStreamSlot, until next's stream ends), and answers 429 without
// calling next when the caller has none left. Connect's streaming procedures
// are counted by Connect.
func (g *Gate) Stream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, err := g.OpenStream(r.Context())
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		ctx, slot := httpapi.WithStreamSlot(r.Context(), release)
		defer slot.Done()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
