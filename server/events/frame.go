package events

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/render"
)

// Event types (chat.proto, ChatEvent; the stream_event vocabulary).
const (
	TypeConnected  = string(vocab.StreamEventConnected)
	TypeHeartbeat  = string(vocab.StreamEventHeartbeat)
	TypeNewMessage = string(vocab.StreamEventNewMessage)
	TypeWake       = string(vocab.StreamEventWake)
	// TypeQueueUpdated tells a live view that a queue item changed.
	TypeQueueUpdated = string(vocab.StreamEventQueueUpdated)
)

// agentTypes are the types every stream carries: document 1's, queue_updated
// and error (reconciliation 12). Every other type is the dashboard's: it is
// stored and resumed like the rest but sent only to the dashboard's stream
// (EventService.StreamEvents opened with a session; RULINGS "Onboarding …
// details", Live).
var agentTypes = []string{TypeConnected, TypeHeartbeat, TypeNewMessage, TypeWake, TypeQueueUpdated, TypeError}

// DashboardOnly reports whether events of type t travel on the dashboard's
// stream only.
func DashboardOnly(t string) bool { return !slices.Contains(agentTypes, t) }

// RetryMillis is the reconnection delay every SSE event suggests.
const RetryMillis = 2000

// Frame is one event encoded once for all its subscribers: the SSE frame and
// the Connect message. Both are shared and must not be changed.
type Frame struct {
	// ID is the stored event's id; 0 for connected and heartbeat, which are
	// not stored.
	ID  int64
	SSE []byte
	Msg *switchboardv1.StreamEventsResponse
	// Dashboard marks one of the dashboard's kinds (DashboardOnly).
	Dashboard bool
}

func newFrame(id int64, ev *switchboardv1.ChatEvent) (*Frame, error) {
	data, err := render.RPCJSONCodec{}.Marshal(ev) // the RPC form
	if err != nil {
		return nil, fmt.Errorf("events: encode %s: %w", ev.GetType(), err)
	}
	f := &Frame{ID: id, Msg: &switchboardv1.StreamEventsResponse{Event: ev}, Dashboard: DashboardOnly(ev.GetType())}
	b := make([]byte, 0, len(data)+64)
	if id > 0 {
		sid := strconv.FormatInt(id, 10)
		f.Msg.Id = &sid
		b = append(b, "id: "...)
		b = append(b, sid...)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, ev.GetType()...)
	b = append(b, "\nretry: "...)
	b = strconv.AppendInt(b, RetryMillis, 10)
	b = append(b, '\n')
	// Compact JSON has no raw line breaks; split defensively all the same,
	// since a line break inside data would end the field.
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
	}
	f.SSE = append(b, '\n')
	return f, nil
}

// ParseLastEventID reads a Last-Event-ID (or last_event_id): -1 when empty,
// else the id of an event this server sent.
func ParseLastEventID(v string) (int64, error) {
	if v == "" {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("last event id %q is not an event id of this stream", v)
	}
	return n, nil
}
