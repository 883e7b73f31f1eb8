package gate

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-hq/switchboard/ent/streamslot"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/replica"
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
// The slots are rows in the database, one per open stream, held by the
// replica that serves it (internal/replica), so a cap holds across replicas.
// A slot counts while its replica is alive: a replica that dies without
// giving its slots back frees them within the timer lease.

// capRetry is the Retry-After of a refusal: a slot frees when another
// stream ends, which no clock predicts; ten seconds keeps a polite client from
// asking in a loop.
const capRetry = 10 * time.Second

// The kinds of slot.
const (
	kindStream     = "stream"
	kindMCPSession = "mcp_session"
)

// slots counts the open streams (or sessions) of each holder.
type slots struct {
	db      *db.DB
	now     func() time.Time
	replica *replica.Registry
	kind    string
	limit   int
}

func newSlots(cfg Config, kind string, limit int) *slots {
	return &slots{db: cfg.DB, now: cfg.Now, replica: cfg.Replica, kind: kind, limit: limit}
}

// take takes one of holder's slots; release gives it back, once however
// often it is called. ok is false when holder holds them all.
//
// The slot is written first and the holder's live slots counted after, so of
// two replicas taking the last slot at once at least the later one sees both
// and gives its own back: the cap is never passed, though both may be
// refused (a retry then gets the slot).
func (s *slots) take(ctx context.Context, holder string) (release func(), ok bool, err error) {
	row, err := s.db.StreamSlot.Create().SetKind(s.kind).SetHolder(holder).
		SetReplica(s.replica.ID()).SetOpenedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("gate: take a %s slot: %w", s.kind, err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			// The stream's own context has ended by now. A row left by a
			// failure here counts until this replica stops.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = s.db.StreamSlot.DeleteOneID(row.ID).Exec(ctx)
		})
	}
	n, err := s.count(ctx, holder)
	if err != nil || n > s.limit {
		release()
		return nil, false, err
	}
	return release, true, nil
}

// count is holder's slots held by live replicas.
func (s *slots) count(ctx context.Context, holder string) (int, error) {
	alive, err := s.replica.Alive(ctx)
	if err != nil {
		return 0, err
	}
	n, err := s.db.StreamSlot.Query().Where(streamslot.Holder(holder), streamslot.Kind(s.kind),
		streamslot.ReplicaIn(alive...)).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("gate: count %s slots: %w", s.kind, err)
	}
	return n, nil
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
	release, ok, err := s.take(ctx, who)
	if err != nil {
		return nil, apperr.Internal(err)
	}
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
