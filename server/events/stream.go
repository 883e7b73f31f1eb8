package events

import (
	"context"
	"errors"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// opened is a stream ready to send: the connected event, then replay, then Pump.
type opened struct {
	sub       *Subscription
	connected *Frame
	replay    []*Frame
}

// open admits a stream: its agent name, where it resumes, its subscription.
// A Connect stream (connect) opened with the operator's session is the
// dashboard's and takes the dashboard's kinds; the SSE stream, the agents',
// and a key's never do.
func (b *Bus) open(ctx context.Context, lastEventID string, connect bool) (*opened, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	agent, err := p.AgentName()
	if err != nil {
		return nil, err
	}
	after, err := ParseLastEventID(lastEventID)
	if err != nil {
		return nil, apperr.Invalid("%s", err.Error())
	}
	connected, err := newFrame(0, &switchboardv1.ChatEvent{Type: TypeConnected, ClientId: proto.String(ids.New()), AgentName: &agent})
	if err != nil {
		return nil, apperr.Internal(err)
	}
	sub, replay, err := b.subscribe(ctx, p.UserID, p.Credential(), connect && p.Via == auth.ViaSession, after)
	if errors.Is(err, ErrClosed) {
		return nil, unavailable("the server is shutting down; reconnect")
	} else if err != nil {
		return nil, apperr.Internal(err)
	}
	return &opened{sub: sub, connected: connected, replay: replay}, nil
}

func unavailable(msg string) *apperr.Error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Message: msg}
}

// run sends the connected event, the replay, then the live events.
func (b *Bus) run(ctx context.Context, o *opened, send func(*Frame) error) error {
	defer o.sub.Close()
	if err := send(o.connected); err != nil {
		return err
	}
	last := int64(-1)
	for _, f := range o.replay {
		if err := send(f); err != nil {
			return err
		}
		last = f.ID
	}
	return b.Pump(ctx, o.sub, last, send)
}

// SSE serves GET /api/v2/shared-chat/stream, the Server-Sent Events form of
// the stream (chat.proto), behind the gate.
func (b *Bus) SSE() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		o, err := b.open(ctx, r.Header.Get("Last-Event-ID"), false)
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		h := w.Header()
		SSEHeaders(h)
		// Plain HTTP/1.1: the bus takes the connection over (conn.go). An
		// HTTP/2 stream cannot be hijacked, and TLS must not be bypassed.
		if r.ProtoMajor == 1 && r.TLS == nil {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				httpapi.LogStatus(w, http.StatusOK)
				// The stream outlives this handler: its slot under the
				// gate's cap is given back when the connection closes.
				b.serveConn(conn, h, o, httpapi.KeepStreamSlot(ctx))
				return
			}
		}
		dw := newDeadlineWriter(w, b.cfg.WriteTimeout)
		w.WriteHeader(http.StatusOK)
		// Whatever ends it (client gone, fell behind, shutdown), the response
		// just ends; EventSource reconnects with Last-Event-ID. A lapsed
		// credential says so first.
		send := func(f *Frame) error {
			if _, err := dw.Write(f.SSE); err != nil {
				return err
			}
			return dw.flush()
		}
		var why *ended
		if err := b.run(ctx, o, send); errors.As(err, &why) {
			_ = send(why.frame)
		}
	})
}

// Service implements EventService, the Connect form of the stream.
type Service struct {
	Bus *Bus
}

// StreamEvents sends connected, then what the client missed after
// last_event_id, then every event until the client leaves.
func (s *Service) StreamEvents(ctx context.Context, req *switchboardv1.StreamEventsRequest, stream *connect.ServerStream[switchboardv1.StreamEventsResponse]) error {
	o, err := s.Bus.open(ctx, req.GetLastEventId(), true)
	if err != nil {
		// Unary errors are mapped by an interceptor; streams map their own.
		return apperr.ToConnect(apperr.Report(ctx, err))
	}
	err = s.Bus.run(ctx, o, func(f *Frame) error { return stream.Send(f.Msg) })
	var why *ended
	switch {
	case errors.As(err, &why):
		return apperr.ToConnect(why.err)
	case errors.Is(err, ErrDropped):
		return apperr.ToConnect(unavailable("the stream fell behind; reconnect with last_event_id"))
	case errors.Is(err, ErrClosed):
		return apperr.ToConnect(unavailable("the server is shutting down; reconnect with last_event_id"))
	}
	return err
}

// Deadlines is middleware for streaming handlers: it lifts the server's read
// and write timeouts for the request and bounds each write instead, by the
// bus's Config.WriteTimeout.
func (b *Bus) Deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(newDeadlineWriter(w, b.cfg.WriteTimeout), r)
	})
}

// deadlineWriter bounds each write and flush by a deadline, set before and
// cleared after: between events a stream has none, since one left armed
// would cut an idle stream (HTTP/2 resets the stream when it passes).
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	lifted  bool
}

func newDeadlineWriter(w http.ResponseWriter, timeout time.Duration) *deadlineWriter {
	if dw, ok := w.(*deadlineWriter); ok {
		return dw
	}
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (d *deadlineWriter) arm() {
	if !d.lifted {
		// The request has been read by the time anything is written; from
		// here a read deadline would only cut the stream (on HTTP/1.1 an
		// expired one cancels the request's context).
		_ = d.rc.SetReadDeadline(time.Time{})
		d.lifted = true
	}
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) //nolint:forbidigo // network deadline, not business time
}

func (d *deadlineWriter) disarm() { _ = d.rc.SetWriteDeadline(time.Time{}) }

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.arm()
	defer d.disarm()
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) flush() error {
	d.arm()
	defer d.disarm()
	return d.rc.Flush()
}

// Flush lets Connect flush each message.
func (d *deadlineWriter) Flush() { _ = d.flush() }

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// SSEHeaders marks a response as a Server-Sent Events stream that no cache
// or proxy may hold back (X-Accel-Buffering: no for nginx).
func SSEHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
}
