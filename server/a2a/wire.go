package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// The three method families' request shapes, each decoded into one send
// (a message for a new or existing task) or one task id. Messages are kept
// as the SDK's v0.3 a2a.Message, the richest of the three; each family
// renders them back in its own shape (render.go).

// family is which method family a call belongs to; a task remembers the
// family of the send that created it.
type family string

const (
	legacy family = "legacy" // the document's tasks/send, tasks/respond, tasks/get
	v03    family = "0.3"    // message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe
	v10    family = "1.0"    // SendMessage, …, under the header A2A-Version: 1.0
)

// maxParts bounds a message's parts.
const maxParts = 100

// send is one message sent to the endpoint.
type send struct {
	// taskID names the task the message continues; empty starts one. A
	// legacy tasks/send names its own id, new or not (create is then true).
	taskID string
	create bool
	msg    *a2a.Message
	// meta is the call's metadata (intent, widgets, widgetResponseUrl,
	// agentCardUrl), the message's own metadata under it.
	meta map[string]any
}

// errParams is a -32602 refusal with the reason.
type errParams struct{ reason string }

func (e errParams) Error() string { return e.reason }

func badParams(format string, args ...any) error { return errParams{fmt.Sprintf(format, args...)} }

// decode reads params into v. Unknown fields are ignored (clients send
// fields of later revisions); what does not fit the shape is refused.
func decode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return badParams("params are required")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return badParams("params.%s: must be %s, not %s", ute.Field, ute.Type.String(), ute.Value)
		}
		return badParams("params: %s", err.Error())
	}
	return nil
}

// errRequired refuses a call without a field it must carry, naming its path.
func errRequired(path string) error {
	if strings.HasSuffix(path, ".parts") {
		return badParams("%s is required: a message has at least one part", path)
	}
	return badParams("%s is required", path)
}

// required checks the fields v0.3 and v1.0 both require of a message
// (messageId, role, parts), in that order: the first missing is named.
func required(messageID, role string, parts int) error {
	switch {
	case strings.TrimSpace(messageID) == "":
		return errRequired("params.message.messageId")
	case role == "":
		return errRequired("params.message.role")
	case parts == 0:
		return errRequired("params.message.parts")
	}
	return nil
}

// legacyPart is a part of the document's shape: {type, text} or {type: data, data}.
type legacyPart struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text"`
	Data     map[string]any `json:"data"`
	Metadata map[string]any `json:"metadata"`
}

type legacyMessage struct {
	Role     string         `json:"role"`
	Parts    []legacyPart   `json:"parts"`
	Metadata map[string]any `json:"metadata"`
}

type legacySendParams struct {
	ID        string         `json:"id"`
	SessionID string         `json:"sessionId"`
	Message   *legacyMessage `json:"message"`
	Metadata  map[string]any `json:"metadata"`
}

// decodeLegacySend reads tasks/send (respond false) or tasks/respond.
func decodeLegacySend(raw json.RawMessage, respond bool) (*send, error) {
	var p legacySendParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if respond && p.ID == "" {
		return nil, badParams("params.id is required: the task to respond to")
	}
	if p.Message == nil {
		return nil, badParams("params.message is required")
	}
	// The document's message needs only its parts; a role, when given, is
	// the user's (RULINGS "A2A" details of 2026-11-28).
	if len(p.Message.Parts) == 0 {
		return nil, errRequired("params.message.parts")
	}
	if p.Message.Role != "" && p.Message.Role != "user" {
		return nil, badParams("params.message.role must be user")
	}
	if len(p.Message.Parts) > maxParts {
		return nil, badParams("params.message.parts: at most %d parts", maxParts)
	}
	parts := make(a2a.ContentParts, 0, len(p.Message.Parts))
	for i, part := range p.Message.Parts {
		switch {
		case (part.Type == "text" || part.Type == "") && part.Text != nil:
			parts = append(parts, a2a.TextPart{Text: *part.Text, Metadata: part.Metadata})
		case part.Type == "data" && part.Data != nil:
			parts = append(parts, a2a.DataPart{Data: part.Data, Metadata: part.Metadata})
		default:
			return nil, badParams("params.message.parts[%d]: a part is {type: text, text} or {type: data, data}", i)
		}
	}
	msg := &a2a.Message{ID: a2a.NewMessageID(), Role: a2a.MessageRoleUser, Parts: parts,
		Metadata: p.Message.Metadata, TaskID: a2a.TaskID(p.ID), ContextID: p.SessionID}
	return &send{taskID: p.ID, create: !respond, msg: msg, meta: merged(p.Message.Metadata, p.Metadata)}, nil
}

// decodeV03Send reads message/send and message/stream with the SDK's types.
func decodeV03Send(raw json.RawMessage) (*send, error) {
	var p a2a.MessageSendParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.Message == nil {
		return nil, badParams("params.message is required")
	}
	if err := required(p.Message.ID, string(p.Message.Role), len(p.Message.Parts)); err != nil {
		return nil, err
	}
	if p.Message.Role != a2a.MessageRoleUser {
		return nil, badParams("params.message.role must be user")
	}
	if len(p.Message.Parts) > maxParts {
		return nil, badParams("params.message.parts: at most %d parts", maxParts)
	}
	return &send{taskID: string(p.Message.TaskID), msg: p.Message, meta: merged(p.Message.Metadata, p.Metadata)}, nil
}

// v1Part is a v1.0 part: exactly one of text, raw, url, data; no kind.
type v1Part struct {
	Text      *string        `json:"text,omitempty"`
	Raw       []byte         `json:"raw,omitempty"`
	URL       *string        `json:"url,omitempty"`
	Data      any            `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Filename  string         `json:"filename,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
}

type v1Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []v1Part       `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

type v1SendParams struct {
	Message  *v1Message     `json:"message"`
	Metadata map[string]any `json:"metadata"`
}

// decodeV1Send reads SendMessage and SendStreamingMessage.
func decodeV1Send(raw json.RawMessage) (*send, error) {
	var p v1SendParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	m := p.Message
	if m == nil {
		return nil, badParams("params.message is required")
	}
	if err := required(m.MessageID, m.Role, len(m.Parts)); err != nil {
		return nil, err
	}
	if m.Role != "ROLE_USER" {
		return nil, badParams("params.message.role must be ROLE_USER")
	}
	if len(m.Parts) > maxParts {
		return nil, badParams("params.message.parts: at most %d parts", maxParts)
	}
	parts := make(a2a.ContentParts, 0, len(m.Parts))
	for i, part := range m.Parts {
		pt, err := fromV1Part(part)
		if err != nil {
			return nil, badParams("params.message.parts[%d]: %s", i, err.Error())
		}
		parts = append(parts, pt)
	}
	msg := &a2a.Message{ID: m.MessageID, Role: a2a.MessageRoleUser, Parts: parts, Metadata: m.Metadata,
		TaskID: a2a.TaskID(m.TaskID), ContextID: m.ContextID, Extensions: m.Extensions}
	return &send{taskID: m.TaskID, msg: msg, meta: merged(m.Metadata, p.Metadata)}, nil
}

func fromV1Part(p v1Part) (a2a.Part, error) {
	n := 0
	for _, set := range []bool{p.Text != nil, p.Raw != nil, p.URL != nil, p.Data != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("a part has exactly one of text, raw, url, data")
	}
	meta := a2a.FileMeta{Name: p.Filename, MimeType: p.MediaType}
	switch {
	case p.Text != nil:
		return a2a.TextPart{Text: *p.Text, Metadata: p.Metadata}, nil
	case p.URL != nil:
		return a2a.FilePart{File: a2a.FileURI{FileMeta: meta, URI: *p.URL}, Metadata: p.Metadata}, nil
	case p.Raw != nil:
		return a2a.FilePart{File: a2a.FileBytes{FileMeta: meta, Bytes: base64.StdEncoding.EncodeToString(p.Raw)}, Metadata: p.Metadata}, nil
	}
	obj, ok := p.Data.(map[string]any)
	if !ok {
		obj = map[string]any{"value": p.Data}
	}
	return a2a.DataPart{Data: obj, Metadata: p.Metadata}, nil
}

// taskQuery is {id, historyLength} of every family's get, cancel and
// subscribe.
type taskQuery struct {
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength"`
}

func decodeQuery(raw json.RawMessage) (*taskQuery, error) {
	var q taskQuery
	if err := decode(raw, &q); err != nil {
		return nil, err
	}
	if strings.TrimSpace(q.ID) == "" {
		return nil, badParams("params.id is required")
	}
	if q.HistoryLength != nil && *q.HistoryLength < 0 {
		return nil, badParams("params.historyLength must not be negative")
	}
	return &q, nil
}

// merged is the call's metadata over the message's.
func merged(msg, call map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range msg {
		out[k] = v
	}
	for k, v := range call {
		out[k] = v
	}
	return out
}

// textOf is the text of a message's text parts, joined by blank lines.
func textOf(m *a2a.Message) string {
	var texts []string
	for _, p := range m.Parts {
		if t, ok := p.(a2a.TextPart); ok && strings.TrimSpace(t.Text) != "" {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}
