package a2a

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// Each family's answer shapes (RULINGS "A2A" Shapes). v0.3 is the SDK's
// types; legacy and v1.0 are plain structs here.

// metaOf is the task metadata every family carries: the queue item behind it.
func metaOf(v *view) map[string]any {
	m := map[string]any{"queueItemId": v.rec.ItemID}
	if v.queueStatus != "" {
		m["queueStatus"] = v.queueStatus
	}
	return m
}

// limit keeps the last n messages when n is given.
func limit(history []*a2a.Message, n *int) []*a2a.Message {
	if n != nil && *n < len(history) {
		return history[len(history)-*n:]
	}
	return history
}

func agentMessage(v *view) *a2a.Message {
	if v.text == "" {
		return nil
	}
	return &a2a.Message{ID: "status-" + v.rec.TaskID + "-" + string(v.state) + "-" + v.queueStatus + "-" + v.at.UTC().Format("20060102T150405.000000000"),
		Role: a2a.MessageRoleAgent, TaskID: a2a.TaskID(v.rec.TaskID), ContextID: v.rec.ContextID,
		Parts: a2a.ContentParts{a2a.TextPart{Text: v.text}}}
}

// wireStatus is a task's status as legacy and v1.0 both write it; only the
// message's shape differs.
type wireStatus[M any] struct {
	State     string `json:"state"`
	Message   *M     `json:"message,omitempty"`
	Timestamp string `json:"timestamp"`
}

// statusOf is v's status in a family's shapes: its state's name and its agent
// message written by msg.
func statusOf[M any](v *view, state string, msg func(*a2a.Message) M) wireStatus[M] {
	st := wireStatus[M]{State: state, Timestamp: v.at.UTC().Format(time.RFC3339Nano)}
	if m := agentMessage(v); m != nil {
		out := msg(m)
		st.Message = &out
	}
	return st
}

// v0.3 ----------------------------------------------------------------------

func taskV03(v *view, n *int) *a2a.Task {
	at := v.at.UTC()
	return &a2a.Task{
		ID: a2a.TaskID(v.rec.TaskID), ContextID: v.rec.ContextID,
		Status:    a2a.TaskStatus{State: v.state, Message: agentMessage(v), Timestamp: &at},
		Artifacts: v.artifacts, History: limit(v.history, n), Metadata: metaOf(v),
	}
}

func statusV03(v *view) *a2a.TaskStatusUpdateEvent {
	at := v.at.UTC()
	return &a2a.TaskStatusUpdateEvent{
		TaskID: a2a.TaskID(v.rec.TaskID), ContextID: v.rec.ContextID, Final: v.state.Terminal(),
		Status: a2a.TaskStatus{State: v.state, Message: agentMessage(v), Timestamp: &at}, Metadata: metaOf(v),
	}
}

func artifactV03(v *view, a *a2a.Artifact) *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{TaskID: a2a.TaskID(v.rec.TaskID), ContextID: v.rec.ContextID,
		Artifact: a, LastChunk: true}
}

// legacy (document 2) --------------------------------------------------------

type legacyTask struct {
	ID        string                   `json:"id"`
	SessionID string                   `json:"sessionId"`
	Status    wireStatus[legacyMsgOut] `json:"status"`
	Artifacts []legacyArtifact         `json:"artifacts"`
	History   []legacyMsgOut           `json:"history"`
	Metadata  map[string]any           `json:"metadata"`
}

type legacyMsgOut struct {
	Role     string          `json:"role"`
	Parts    []legacyPartOut `json:"parts"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

type legacyPartOut struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
	File     map[string]any `json:"file,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type legacyArtifact struct {
	Name     string          `json:"name,omitempty"`
	Parts    []legacyPartOut `json:"parts"`
	Index    int             `json:"index"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

func taskLegacy(v *view, n *int) *legacyTask {
	t := &legacyTask{ID: v.rec.TaskID, SessionID: v.rec.ContextID, Metadata: metaOf(v),
		Status:    statusOf(v, string(v.state), legacyMessageOut),
		Artifacts: []legacyArtifact{}, History: []legacyMsgOut{}}
	for i, a := range v.artifacts {
		t.Artifacts = append(t.Artifacts, legacyArtifact{Name: a.Name, Parts: legacyParts(a.Parts), Index: i, Metadata: a.Metadata})
	}
	for _, m := range limit(v.history, n) {
		t.History = append(t.History, legacyMessageOut(m))
	}
	return t
}

func legacyMessageOut(m *a2a.Message) legacyMsgOut {
	return legacyMsgOut{Role: string(m.Role), Parts: legacyParts(m.Parts), Metadata: m.Metadata}
}

func legacyParts(parts a2a.ContentParts) []legacyPartOut {
	out := make([]legacyPartOut, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case a2a.TextPart:
			out = append(out, legacyPartOut{Type: "text", Text: &p.Text, Metadata: p.Metadata})
		case a2a.DataPart:
			out = append(out, legacyPartOut{Type: "data", Data: p.Data, Metadata: p.Metadata})
		case a2a.FilePart:
			out = append(out, legacyPartOut{Type: "file", File: fileFields(p), Metadata: p.Metadata})
		}
	}
	return out
}

func fileFields(p a2a.FilePart) map[string]any {
	m := map[string]any{}
	switch f := p.File.(type) {
	case a2a.FileURI:
		m["uri"], m["name"], m["mimeType"] = f.URI, f.Name, f.MimeType
	case a2a.FileBytes:
		m["bytes"], m["name"], m["mimeType"] = f.Bytes, f.Name, f.MimeType
	}
	return m
}

// v1.0 -------------------------------------------------------------------------

type v1Task struct {
	ID        string                `json:"id"`
	ContextID string                `json:"contextId"`
	Status    wireStatus[v1Message] `json:"status"`
	Artifacts []v1Artifact          `json:"artifacts,omitempty"`
	History   []v1Message           `json:"history,omitempty"`
	Metadata  map[string]any        `json:"metadata,omitempty"`
}

type v1Artifact struct {
	ArtifactID string         `json:"artifactId"`
	Name       string         `json:"name,omitempty"`
	Parts      []v1Part       `json:"parts"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

type v1StatusUpdate struct {
	TaskID    string                `json:"taskId"`
	ContextID string                `json:"contextId"`
	Status    wireStatus[v1Message] `json:"status"`
	Metadata  map[string]any        `json:"metadata,omitempty"`
}

type v1ArtifactUpdate struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Artifact  v1Artifact `json:"artifact"`
	LastChunk bool       `json:"lastChunk"`
}

// v1State is the v1.0 enum name of a state: TASK_STATE_INPUT_REQUIRED, ….
func v1State(s a2a.TaskState) string {
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(string(s), "-", "_"))
}

func v1Role(r a2a.MessageRole) string {
	if r == a2a.MessageRoleAgent {
		return "ROLE_AGENT"
	}
	return "ROLE_USER"
}

func statusV1(v *view) wireStatus[v1Message] {
	return statusOf(v, v1State(v.state), messageV1)
}

func taskV1(v *view, n *int) *v1Task {
	t := &v1Task{ID: v.rec.TaskID, ContextID: v.rec.ContextID, Status: statusV1(v), Metadata: metaOf(v)}
	for _, a := range v.artifacts {
		t.Artifacts = append(t.Artifacts, artifactV1(a))
	}
	for _, m := range limit(v.history, n) {
		t.History = append(t.History, messageV1(m))
	}
	return t
}

func artifactV1(a *a2a.Artifact) v1Artifact {
	return v1Artifact{ArtifactID: string(a.ID), Name: a.Name, Parts: partsV1(a.Parts), Metadata: a.Metadata}
}

func messageV1(m *a2a.Message) v1Message {
	return v1Message{MessageID: m.ID, ContextID: m.ContextID, TaskID: string(m.TaskID), Role: v1Role(m.Role),
		Parts: partsV1(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions}
}

func partsV1(parts a2a.ContentParts) []v1Part {
	out := make([]v1Part, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case a2a.TextPart:
			out = append(out, v1Part{Text: &p.Text, Metadata: p.Metadata})
		case a2a.DataPart:
			out = append(out, v1Part{Data: p.Data, Metadata: p.Metadata})
		case a2a.FilePart:
			switch f := p.File.(type) {
			case a2a.FileURI:
				out = append(out, v1Part{URL: &f.URI, Filename: f.Name, MediaType: f.MimeType, Metadata: p.Metadata})
			case a2a.FileBytes:
				raw, _ := base64.StdEncoding.DecodeString(f.Bytes) // stored as the v0.3 base64 text
				out = append(out, v1Part{Raw: raw, Filename: f.Name, MediaType: f.MimeType, Metadata: p.Metadata})
			}
		}
	}
	return out
}
