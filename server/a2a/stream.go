package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/events"
)

// Streams (message/stream, tasks/resubscribe, SendStreamingMessage,
// SubscribeToTask) answer Server-Sent Events, each a JSON-RPC response: the
// task first, then a status update for each change of its item that the
// queue's own queue_updated events announce, the artifact before the
// completed status. A stream ends after a final state, when the client
// leaves, or when the key that opened it lapses (with an error response).

// errFinished ends a stream after its task's final state.
var errFinished = errors.New("a2a: task finished")

// stream serves a streaming method. A stream outlives the server's write
// timeout, so the bus's Deadlines bounds each write instead (the unary
// methods keep the server's timeouts and skip its cost).
func (s *Service) stream(w http.ResponseWriter, r *http.Request, req request, m method) {
	s.Bus.Deadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.streamOpen(w, r, req, m)
	})).ServeHTTP(w, r)
}

func (s *Service) streamOpen(w http.ResponseWriter, r *http.Request, req request, m method) {
	ctx := r.Context()
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		refuse(w, req, m, s.toRPC(ctx, err))
		return
	}
	// Subscribe before the send, so no change after it is missed.
	sub, err := s.Bus.SubscribeFor(ctx, p)
	if err != nil {
		refuse(w, req, m, s.toRPC(ctx, apperr.Internal(err)))
		return
	}
	defer sub.Close()
	v, err := m.open(ctx, s, req.Params)
	if err != nil {
		refuse(w, req, m, s.toRPC(ctx, err))
		return
	}
	h := w.Header()
	events.SSEHeaders(h)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	out := &sse{w: w, rc: rc, id: req.ID, fam: m.fam}
	if err := out.result(firstEvent(v, m.fam)); err != nil || v.state.Terminal() {
		return
	}
	last := v
	err = s.Bus.Pump(ctx, sub, -1, func(f *events.Frame) error {
		ev := f.Msg.GetEvent()
		if ev.GetType() == events.TypeHeartbeat {
			return out.comment()
		}
		if ev.GetType() != events.TypeQueueUpdated || ev.GetItem().GetId() != v.rec.ItemID {
			return nil
		}
		next, err := s.reread(ctx, v.rec.UserID, v.rec.TaskID)
		if err != nil {
			return err
		}
		if err := out.changes(last, next); err != nil {
			return err
		}
		last = next
		if next.state.Terminal() {
			return errFinished
		}
		return nil
	})
	if events.Drained(err) {
		// The replica is shutting down: the client resubscribes elsewhere.
		if _, err := w.Write(events.ReconnectSSE()); err == nil {
			_ = rc.Flush()
		}
		return
	}
	var refusal *apperr.Error
	if !errors.Is(err, errFinished) && !errors.Is(err, events.ErrDropped) && !errors.Is(err, events.ErrClosed) && errors.As(err, &refusal) {
		// The key was deactivated or deleted (RULINGS "Streams and credentials").
		_ = out.failure(&rpcError{Code: codeServer, Message: refusal.Message})
	}
}

// reread is the task as it is now.
func (s *Service) reread(ctx context.Context, userID, taskID string) (*view, error) {
	rec, err := s.record(ctx, s.DB.Client, userID, taskID)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, s.DB.Client, rec)
}

// firstEvent is the task as a stream's first event.
func firstEvent(v *view, fam family) any {
	if fam == v10 {
		return map[string]any{"task": taskV1(v, nil)}
	}
	return taskV03(v, nil)
}

// sse writes one stream's events.
type sse struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	id  json.RawMessage
	fam family
}

// changes sends what changed from before to now: a new artifact, then the
// status when its state or the item's status moved.
func (o *sse) changes(before, now *view) error {
	if len(now.artifacts) > len(before.artifacts) {
		for _, a := range now.artifacts[len(before.artifacts):] {
			if err := o.result(o.artifactEvent(now, a)); err != nil {
				return err
			}
		}
	}
	if now.state == before.state && now.queueStatus == before.queueStatus && now.text == before.text {
		return nil
	}
	return o.result(o.statusEvent(now))
}

func (o *sse) statusEvent(v *view) any {
	if o.fam == v10 {
		return map[string]any{"statusUpdate": v1StatusUpdate{TaskID: v.rec.TaskID, ContextID: v.rec.ContextID,
			Status: statusV1(v), Metadata: metaOf(v)}}
	}
	return statusV03(v)
}

func (o *sse) artifactEvent(v *view, a *a2a.Artifact) any {
	if o.fam == v10 {
		return map[string]any{"artifactUpdate": v1ArtifactUpdate{TaskID: v.rec.TaskID, ContextID: v.rec.ContextID,
			Artifact: artifactV1(a), LastChunk: true}}
	}
	return artifactV03(v, a)
}

func (o *sse) result(res any) error {
	return o.write(response{JSONRPC: "2.0", ID: o.idOrNull(), Result: res})
}

func (o *sse) failure(e *rpcError) error {
	return o.write(response{JSONRPC: "2.0", ID: o.idOrNull(), Error: explained(e, o.fam)})
}

func (o *sse) idOrNull() json.RawMessage {
	if len(o.id) == 0 {
		return json.RawMessage("null")
	}
	return o.id
}

func (o *sse) write(r response) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("a2a: encode event: %w", err)
	}
	if _, err := fmt.Fprintf(o.w, "data: %s\n\n", data); err != nil {
		return err
	}
	return o.rc.Flush()
}

// comment keeps an idle stream open through proxies.
func (o *sse) comment() error {
	if _, err := fmt.Fprint(o.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	return o.rc.Flush()
}
