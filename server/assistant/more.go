package assistant

import (
	"context"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// Checklists appends to a card's checklist in one unit of work
// (kanban.Service.AppendChecklist).
type Checklists interface {
	AppendChecklist(ctx context.Context, cardID string, texts []string) (*switchboardv1.UpdateCardResponse, error)
}

// Decomposer splits an item into subtasks in one unit of work
// (queue.Service.Decompose).
type Decomposer interface {
	Decompose(ctx context.Context, parentID string, subs []queue.Subtask) (*ent.QueueItem, []*ent.QueueItem, error)
}

// subtaskBody is one of decompose_task's subtasks (docs/decisions.md "The
// assistant (issue 16)").
type subtaskBody struct {
	Title       string  `json:"title"`
	Description *string `json:"description"`
	Priority    *string `json:"priority"`
	DependsOn   string  `json:"dependsOn"`
}

// decompose is decompose_task: each subtask checked as CreateQueueItem's
// request is, then the queue's Decompose (all children or none).
func (e *Executor) decompose(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		ParentID string        `json:"parentId"`
		Subtasks []subtaskBody `json:"subtasks"`
	}]("decompose_task", body)
	if err != nil {
		return nil, err
	}
	src, task := source, "task"
	subs := make([]queue.Subtask, len(a.Subtasks))
	for i, s := range a.Subtasks {
		req := &switchboardv1.CreateQueueItemRequest{Title: s.Title, Description: s.Description, Priority: s.Priority,
			Type: &task, Source: &src}
		if err := input.Check(req); err != nil {
			return nil, apperr.Invalid("subtasks[%d]: %s", i, apperr.From(err).Message)
		}
		subs[i] = queue.Subtask{Item: req, DependsOn: s.DependsOn}
	}
	if err := input.Check(&switchboardv1.GetQueueItemRequest{Id: a.ParentID}); err != nil {
		return nil, err
	}
	parent, children, err := e.Tasks.Decompose(ctx, a.ParentID, subs)
	if err != nil {
		return nil, err
	}
	p, err := asStruct(queue.ToProto(parent))
	if err != nil {
		return nil, apperr.Internal(err)
	}
	list := &structpb.ListValue{}
	for _, c := range children {
		s, err := asStruct(queue.ToProto(c))
		if err != nil {
			return nil, apperr.Internal(err)
		}
		list.Values = append(list.Values, structpb.NewStructValue(s))
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{
		"parent": structpb.NewStructValue(p), "subtasks": structpb.NewListValue(list),
	}}, nil
}

// createChecklist is create_checklist: the items appended to the card's
// checklist through the board's own update (kanban.Service.AppendChecklist).
func (e *Executor) createChecklist(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		CardID string   `json:"cardId"`
		Items  []string `json:"items"`
	}]("create_checklist", body)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.CardID) == "" || len(a.Items) == 0 {
		return nil, apperr.Invalid("create_checklist: cardId and items (one or more texts) are required")
	}
	for i, t := range a.Items {
		if strings.TrimSpace(t) == "" {
			return nil, apperr.Invalid("create_checklist: items[%d] is empty", i)
		}
	}
	// The API's checks of the items as an update's checklist, then the
	// board's append, one unit of work.
	list := make([]*switchboardv1.ChecklistItemInput, len(a.Items))
	for i, t := range a.Items {
		list[i] = &switchboardv1.ChecklistItemInput{Text: t}
	}
	if err := input.Check(&switchboardv1.UpdateCardRequest{Id: a.CardID, Card: &switchboardv1.CardInput{Checklist: list}}); err != nil {
		return nil, err
	}
	return e.Checklists.AppendChecklist(ctx, a.CardID, a.Items)
}

// sendRelay is relay_send: one relay through the network's own SendRelay
// (the MCP tool's one-connection case).
func (e *Executor) sendRelay(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	req := &switchboardv1.SendRelayRequest{}
	if err := protoBody("relay_send", body, req); err != nil {
		return nil, err
	}
	return call(ctx, e.Relays.SendRelay, req)
}

// postJob is job_post: the network's own PostJob (the board and the
// publication to connections).
func (e *Executor) postJob(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	req := &switchboardv1.PostJobRequest{}
	if err := protoBody("job_post", body, req); err != nil {
		return nil, err
	}
	return call(ctx, e.Jobs.PostJob, req)
}
