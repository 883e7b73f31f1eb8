// Package a2a is the A2A endpoint (POST /api/a2a, docs/decisions.md "A2A
// (issue 13)"): JSON-RPC 2.0 in three method families (the document's
// legacy tasks/*, v0.3 and v1.0), where each task is a queue item of the
// caller's account created through the queue's own service, and a task
// record (ent A2ATask) keeps what the protocol needs after the item is
// gone. It also serves the public agent card. Shapes of v0.3 are the A2A Go
// SDK's types; legacy and v1.0 are rendered here (render.go).
package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/a2a"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/a2atask"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// Service runs the A2A methods over the queue.
type Service struct {
	DB    *db.DB
	Queue *queue.Service
	Bus   *events.Bus
	// Egress refuses widgetResponseUrl hosts that are private addresses.
	Egress egress.Policy
	// Charge counts one request against a rate class (gate.Gate.Charge):
	// sends count in the heavy class.
	Charge func(w http.ResponseWriter, r *http.Request, class string) error
	// OpenStream takes a stream slot of the caller (gate.Gate.OpenStream):
	// each stream holds one while it is open, and is refused 429 before it
	// starts when the caller has none left.
	OpenStream func(ctx context.Context) (release func(), err error)
}

// maxID bounds a task id an agent names (the legacy tasks/send's own id).
const maxID = 64

// maxHistory bounds the messages a task keeps.
const maxHistory = 200

// errTaskNotFound is -32001; another account's task is not found either.
func errTaskNotFound(id string) error {
	return &rpcError{Code: codeTaskNotFound, Message: fmt.Sprintf("task %q not found", id)}
}

// view is a task as every family renders it.
type view struct {
	rec         *ent.A2ATask
	state       a2a.TaskState
	text        string // the status message
	queueStatus string // the item's status; empty once the item is gone
	at          time.Time
	history     []*a2a.Message
	artifacts   []*a2a.Artifact
}

// Send creates a task from a message, or adds the message to the task it
// names (RULINGS "A2A": tasks/respond and a send with an existing task id).
// It never waits for the operator: the answer is the task as it is now.
func (s *Service) Send(ctx context.Context, fam family, in *send) (*view, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if in.taskID != "" && (utf8.RuneCountInString(in.taskID) > maxID) {
		return nil, badParams("the task id is at most %d characters", maxID)
	}
	if strings.TrimSpace(textOf(in.msg)) == "" {
		return nil, badParams("the message needs a text part with some text")
	}
	if in.taskID != "" {
		rec, err := s.record(ctx, s.DB.Client, p.UserID, in.taskID)
		switch {
		case err == nil:
			return s.respond(ctx, p, rec, in.msg)
		case in.create && isNotFound(err):
			// The legacy tasks/send names its own id for a new task.
		default:
			return nil, err
		}
	}
	return s.create(ctx, p, fam, in)
}

func isNotFound(err error) bool {
	var e *rpcError
	return errors.As(err, &e) && e.Code == codeTaskNotFound
}

// create makes the item through the queue's own create, with the task record
// in the same unit of work.
func (s *Service) create(ctx context.Context, p *auth.Principal, fam family, in *send) (*view, error) {
	meta, err := s.itemMeta(ctx, in.meta)
	if err != nil {
		return nil, err
	}
	taskID := in.taskID
	if taskID == "" {
		taskID = ids.New()
	}
	contextID := in.msg.ContextID
	if contextID == "" {
		contextID = ids.New()
	} else if utf8.RuneCountInString(contextID) > maxID {
		return nil, badParams("the context id is at most %d characters", maxID)
	}
	meta["a2aTaskId"], meta["a2aContextId"] = taskID, contextID
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return nil, badParams("metadata: %s", err.Error())
	}
	text := textOf(in.msg)
	req := &switchboardv1.CreateQueueItemRequest{
		Title: titleOf(text), Description: proto.String(text),
		Source: proto.String("a2a:" + p.KeyLabel), Metadata: proto.String(string(rawMeta)),
	}
	if err := input.Check(req); err != nil {
		return nil, err
	}
	in.msg.TaskID, in.msg.ContextID = a2a.TaskID(taskID), contextID
	history, err := json.Marshal([]*a2a.Message{in.msg})
	if err != nil {
		return nil, badParams("message: %s", err.Error())
	}
	var rec *ent.A2ATask
	_, err = s.Queue.CreateWith(ctx, req, func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
		taken, err := tx.A2ATask.Query().Where(a2atask.UserID(p.UserID), a2atask.TaskID(taskID)).Exist(ctx)
		if err != nil {
			return err
		}
		if taken {
			return badParams("task %q already exists; send to it with tasks/respond", taskID)
		}
		rec, err = tx.A2ATask.Create().SetUserID(p.UserID).SetTaskID(taskID).SetContextID(contextID).
			SetItemID(it.ID).SetProtocol(string(fam)).SetKeyLabel(p.KeyLabel).SetHistory(string(history)).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, s.DB.Client, rec)
}

// itemMeta is the item's metadata from the call's: intent, widgets and
// widgetResponseUrl kept, each checked.
func (s *Service) itemMeta(ctx context.Context, in map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if v, ok := in["intent"]; ok {
		intent, isText := v.(string)
		if !isText || utf8.RuneCountInString(intent) > 1000 {
			return nil, badParams("metadata.intent must be text of at most 1000 characters")
		}
		out["intent"] = intent
	}
	if v, ok := in["widgets"]; ok {
		if err := checkWidgets(v); err != nil {
			return nil, err
		}
		out["widgets"] = v
	}
	if v, ok := in["widgetResponseUrl"]; ok {
		raw, isText := v.(string)
		if !isText {
			return nil, badParams("metadata.widgetResponseUrl must be a URL")
		}
		if err := s.checkResponseURL(ctx, raw, in["agentCardUrl"]); err != nil {
			return nil, err
		}
		out["widgetResponseUrl"] = raw
		out["agentCardUrl"] = in["agentCardUrl"]
	}
	return out, nil
}

// checkWidgets accepts a list of at most 50 widget objects of the four types.
func checkWidgets(v any) error {
	list, ok := v.([]any)
	if !ok || len(list) > 50 {
		return badParams("metadata.widgets must be a list of at most 50 widgets")
	}
	for i, w := range list {
		obj, ok := w.(map[string]any)
		typ, _ := obj["type"].(string)
		if !ok || !slices.Contains(WidgetTypes, typ) {
			return badParams("metadata.widgets[%d].type must be one of %s", i, strings.Join(WidgetTypes, ", "))
		}
	}
	return nil
}

// checkResponseURL refuses a widgetResponseUrl that is not a public http(s)
// URL on the origin of the caller's agent card (docs/decisions.md "A2A
// (issue 13)": without a card URL there is no origin to share, so it is
// refused).
func (s *Service) checkResponseURL(ctx context.Context, raw string, card any) error {
	u, err := egress.ParseURL(raw)
	if err != nil {
		return badParams("metadata.widgetResponseUrl: %s", err.Error())
	}
	if err := s.Egress.CheckURL(ctx, u); err != nil {
		return badParams("metadata.widgetResponseUrl: %s", err.Error())
	}
	cardRaw, _ := card.(string)
	if cardRaw == "" {
		return badParams("metadata.widgetResponseUrl needs metadata.agentCardUrl, the sender's agent card, on the same origin")
	}
	c, err := egress.ParseURL(cardRaw)
	if err != nil {
		return badParams("metadata.agentCardUrl: %s", err.Error())
	}
	if !strings.EqualFold(c.Scheme, u.Scheme) || !strings.EqualFold(c.Host, u.Host) {
		return badParams("metadata.widgetResponseUrl must share the origin of metadata.agentCardUrl (%s://%s)", c.Scheme, c.Host)
	}
	return nil
}

// respond adds msg to the task's history and moves a blocked item back to
// ready, in one unit of work.
func (s *Service) respond(ctx context.Context, p *auth.Principal, rec *ent.A2ATask, msg *a2a.Message) (*view, error) {
	err := s.Queue.Within(ctx, func(ctx context.Context, tx *db.Tx) error {
		// Two messages to one task at once must both land in its history.
		if err := tx.Serialize(ctx, "a2a-task:"+rec.ID); err != nil {
			return err
		}
		cur, err := s.record(ctx, tx.Client(), p.UserID, rec.TaskID)
		if err != nil {
			return err
		}
		if cur.FinalState != nil {
			return finished(cur.TaskID, *cur.FinalState)
		}
		it, err := s.Queue.LoadIn(ctx, tx, p, cur.ItemID)
		if err != nil {
			return err
		}
		// A done item is a completed task while it lives: final too.
		if st := stateOf(string(it.Status)); st.Terminal() {
			return finished(cur.TaskID, string(st))
		}
		var history []*a2a.Message
		if err := json.Unmarshal([]byte(cur.History), &history); err != nil {
			return apperr.Internal(err)
		}
		if len(history) >= maxHistory {
			return badParams("task %q holds %d messages, the most it takes; start a new task", cur.TaskID, maxHistory)
		}
		msg.TaskID, msg.ContextID = a2a.TaskID(cur.TaskID), cur.ContextID
		raw, err := json.Marshal(append(history, msg))
		if err != nil {
			return badParams("message: %s", err.Error())
		}
		if err := cur.Update().SetHistory(string(raw)).Exec(ctx); err != nil {
			return err
		}
		if string(it.Status) == blocked {
			_, err = s.Queue.MoveIn(ctx, tx, p, it, ready)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, rec.TaskID)
}

// Get answers the caller's task.
func (s *Service) Get(ctx context.Context, taskID string) (*view, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rec, it, err := s.taskWithItem(ctx, p.UserID, taskID)
	if err != nil {
		return nil, err
	}
	if rec.FinalState == nil && it == nil {
		return nil, errTaskNotFound(taskID)
	}
	return viewOf(rec, it)
}

// Cancel deletes the task's item unless it is done (-32002); the Removed
// hook records the task canceled. A task in any final state, canceled
// included, is not cancelable (RULINGS, Reconciliation 15).
func (s *Service) Cancel(ctx context.Context, taskID string) (*view, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	err = s.Queue.Within(ctx, func(ctx context.Context, tx *db.Tx) error {
		rec, err := s.record(ctx, tx.Client(), p.UserID, taskID)
		if err != nil {
			return err
		}
		if rec.FinalState != nil {
			return notCancelable(taskID, *rec.FinalState)
		}
		it, err := s.Queue.LoadIn(ctx, tx, p, rec.ItemID)
		if err != nil {
			return err
		}
		if string(it.Status) == doneToday {
			return notCancelable(taskID, string(a2a.TaskStateCompleted))
		}
		return s.Queue.RemoveIn(ctx, tx, p, it, "Canceled %q (A2A)")
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, taskID)
}

// finished refuses a message to a task in a final state: -32602 naming the
// state (RULINGS "A2A" details of 2026-11-28).
func finished(id, state string) error {
	return badParams("task %q is %s and takes no more messages; start a new task", id, state)
}

func notCancelable(id, state string) error {
	return &rpcError{Code: codeNotCancelable, Message: fmt.Sprintf("task not cancelable: task %q is %s", id, state)}
}

// Removed is the queue's hook (queue.Service.Removed): the item of a task is
// being deleted in tx, so the record keeps the final state and artifacts.
func (s *Service) Removed(ctx context.Context, tx *db.Tx, it *ent.QueueItem, rejected bool) error {
	rec, err := tx.A2ATask.Query().Where(a2atask.UserID(it.UserID), a2atask.ItemID(it.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	state, text := finalState(string(it.Status), rejected)
	arts, err := json.Marshal(artifactsOf(it))
	if err != nil {
		return apperr.Internal(err)
	}
	return rec.Update().SetFinalState(string(state)).SetFinalMessage(text).SetArtifacts(string(arts)).Exec(ctx)
}

// record answers the account's task; any other is -32001.
func (s *Service) record(ctx context.Context, c *ent.Client, userID, taskID string) (*ent.A2ATask, error) {
	rec, err := c.A2ATask.Query().Where(a2atask.UserID(userID), a2atask.TaskID(taskID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errTaskNotFound(taskID)
	}
	return rec, err
}

// view reads the task's item (or the record's final state once it is gone).
func (s *Service) view(ctx context.Context, c *ent.Client, rec *ent.A2ATask) (*view, error) {
	if rec.FinalState != nil {
		return viewOf(rec, nil)
	}
	it, err := c.QueueItem.Query().Where(queueitem.ID(rec.ItemID), queueitem.UserID(rec.UserID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	return viewOf(rec, it)
}

// viewOf is the task as its record and its live item show it (it is unused
// once the record holds a final state).
func viewOf(rec *ent.A2ATask, it *ent.QueueItem) (*view, error) {
	v := &view{rec: rec}
	if err := json.Unmarshal([]byte(rec.History), &v.history); err != nil {
		return nil, apperr.Internal(err)
	}
	if rec.FinalState != nil {
		v.state, v.at = a2a.TaskState(*rec.FinalState), rec.UpdatedAt
		if rec.FinalMessage != nil {
			v.text = *rec.FinalMessage
		}
		if rec.Artifacts != nil {
			if err := json.Unmarshal([]byte(*rec.Artifacts), &v.artifacts); err != nil {
				return nil, apperr.Internal(err)
			}
		}
		return v, nil
	}
	status := string(it.Status)
	v.state, v.queueStatus, v.at = stateOf(status), status, it.UpdatedAt
	v.text = statusText(status, blockedReason(it))
	v.artifacts = artifactsOf(it)
	return v, nil
}

// blockedReason is the result reported with status blocked, if any.
func blockedReason(it *ent.QueueItem) string {
	if it.Result != nil && it.ResultStatus != nil && string(*it.ResultStatus) == blocked {
		return *it.Result
	}
	return ""
}

// artifactsOf is the item's reported result as one artifact, typed by the
// item's metadata artifactType (docs/decisions.md "A2A (issue 13)").
func artifactsOf(it *ent.QueueItem) []*a2a.Artifact {
	if it.Result == nil || (it.ResultStatus != nil && string(*it.ResultStatus) == blocked) {
		return nil
	}
	meta := map[string]any{}
	_ = json.Unmarshal([]byte(it.Metadata), &meta) // stored metadata is a JSON object
	typ := artifactType(meta)
	return []*a2a.Artifact{{
		ID: a2a.ArtifactID("result-" + it.ID), Name: typ,
		Parts:    a2a.ContentParts{a2a.TextPart{Text: *it.Result}},
		Metadata: map[string]any{"artifactType": typ},
	}}
}
