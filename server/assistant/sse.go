package assistant

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// SSE serves POST /api/chat/send, the Server-Sent Events form of SendChat
// (assistant.proto): events token, tags_executed and done, each data the
// event's message as the REST mirror renders it, and error {error} ending a
// failed stream. Whatever refuses the send before the stream starts (503,
// 429, 400) is the API's JSON error instead. The caller mounts it behind the
// gate under SendChat's rule, with a body limit and per-write deadlines.
func (s *Service) SSE() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		req := &switchboardv1.SendChatRequest{}
		if err := decodeBody(r.Body, req); err != nil {
			return err
		}
		rep, err := s.begin(ctx, req)
		if err != nil {
			return err
		}
		h := w.Header()
		events.SSEHeaders(h)
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		send := func(m *switchboardv1.SendChatResponse) error {
			name, msg := eventOf(m)
			data, err := render.AppendREST(nil, msg)
			if err != nil {
				return err
			}
			if _, err := w.Write(sseFrame(name, data)); err != nil {
				return err
			}
			return rc.Flush()
		}
		if err := rep.run(ctx, send); err != nil && ctx.Err() == nil {
			data, _ := json.Marshal(map[string]string{"error": apperr.Report(ctx, err).Message})
			_, _ = w.Write(sseFrame("error", data))
			_ = rc.Flush()
		}
		return nil
	}
}

// eventOf names a stream message's event and the message its data renders.
func eventOf(m *switchboardv1.SendChatResponse) (string, proto.Message) {
	switch e := m.GetEvent().(type) {
	case *switchboardv1.SendChatResponse_Token:
		return "token", e.Token
	case *switchboardv1.SendChatResponse_TagsExecuted:
		return "tags_executed", e.TagsExecuted
	default:
		return "done", m.GetDone()
	}
}

// sseFrame is one event: its name and its data on one line (compact JSON,
// whose strings escape every line break).
func sseFrame(name string, data []byte) []byte {
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(append(append(b, "event: "...), name...), "\ndata: "...)
	return append(append(b, data...), "\n\n"...)
}

// decodeBody reads a JSON request body as the gateway does (the house
// wording of refusals, the contract's field rules); an empty body is the
// empty request.
func decodeBody(body io.Reader, m proto.Message) error {
	err := (render.RESTMarshaler{}).NewDecoder(body).Decode(m)
	var e *apperr.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF):
		return input.Check(m)
	case errors.As(err, &e):
		return err
	default:
		return apperr.Invalid("%s", err.Error())
	}
}
