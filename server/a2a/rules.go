package a2a

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	queuerules "github.com/switchboard-hq/switchboard/server/queue/rules"
)

// The pure half: what a queue item's status means for its task, what a task
// is called, which artifact types exist. No database, no transport.

// maxTitle bounds the item's title taken from the message's first line
// (docs/decisions.md "A2A (issue 13)").
const maxTitle = 200

// ArtifactTypes are the seven artifact types a reported result may name in
// the item's metadata artifactType (document 2 "A2A endpoint").
var ArtifactTypes = vocab.Values("artifact_type")

// WidgetTypes are the widgets a task's metadata may carry.
var WidgetTypes = vocab.Values("widget_type")

// Item statuses, as server/queue/rules names them.
const (
	pendingConfirmation = queuerules.PendingConfirmation
	ready               = queuerules.Ready
	later               = queuerules.Later
	inProgress          = queuerules.InProgress
	blocked             = queuerules.Blocked
	doneToday           = queuerules.DoneToday
)

// stateOf is the task state an existing item's status means.
func stateOf(status string) a2a.TaskState {
	switch status {
	case inProgress:
		return a2a.TaskStateWorking
	case blocked:
		return a2a.TaskStateInputRequired
	case doneToday:
		return a2a.TaskStateCompleted
	case pendingConfirmation, ready, later:
		return a2a.TaskStateSubmitted
	}
	return a2a.TaskStateUnknown
}

// statusText is the status message of an item's status; blockedReason is
// said instead for a blocked item when known.
func statusText(status, blockedReason string) string {
	switch status {
	case pendingConfirmation:
		return "waiting for the operator's approval"
	case ready:
		return "approved by the operator"
	case later:
		return "deferred by the operator"
	case inProgress:
		return "in progress"
	case blocked:
		if blockedReason != "" {
			return blockedReason
		}
		return "blocked: the operator needs more input"
	case doneToday:
		return string(a2a.TaskStateCompleted)
	}
	return ""
}

// finalState is the state of a task whose item was just removed: a done item
// stays completed, the operator's reject is rejected, anything else canceled.
func finalState(status string, rejected bool) (a2a.TaskState, string) {
	switch {
	case status == doneToday:
		return a2a.TaskStateCompleted, string(a2a.TaskStateCompleted)
	case rejected:
		return a2a.TaskStateRejected, "rejected by the operator"
	}
	return a2a.TaskStateCanceled, "canceled"
}

// titleOf is the item title of a message's text: its first non-blank line,
// trimmed, cut to maxTitle characters.
func titleOf(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > maxTitle {
			line = string([]rune(line)[:maxTitle])
		}
		return line
	}
	return ""
}

// artifactType is the type a result's metadata names, text when it names
// none or one outside the seven.
func artifactType(meta map[string]any) string {
	if t, ok := meta["artifactType"].(string); ok && slices.Contains(ArtifactTypes, t) {
		return t
	}
	return string(vocab.ArtifactTypeText)
}
