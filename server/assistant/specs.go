package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/chat"
)

// Documented is every action tag the documents name, built or not: a name
// here without a spec fails with "not available on this instance".
var Documented = func() []string {
	out := make([]string, len(chat.Commands))
	for i, c := range chat.Commands {
		out[i] = c.Name
	}
	return out
}()

// source marks what the assistant's tags create (queue items' source).
const source = "assistant"

// tagSpecs are the tags whose systems exist, in the mention list's order.
func (e *Executor) tagSpecs() []*spec {
	sv := e.Services
	return append([]*spec{
		{name: "dispatch_queue", description: "Add a task to the queue (title, type)", run: e.dispatch},
		{name: "queue_capability_action", description: "Queue an action for a capability (capabilityType, action)",
			run: func(ctx context.Context, p *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[capabilityAction]("queue_capability_action", body)
				if err != nil {
					return nil, err
				}
				return e.dispatch(ctx, p, dispatchJSON(a))
			}},
		{name: "suggest_marketplace", description: "Suggest store agents when no handler exists (search, category)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[struct {
					Search   string `json:"search"`
					Category string `json:"category"`
				}]("suggest_marketplace", body)
				if err != nil {
					return nil, err
				}
				return call(ctx, sv.Store.ListStoreAgents, &switchboardv1.ListStoreAgentsRequest{Search: a.Search, Category: a.Category})
			}},
		{name: "confirm_queue_item", description: "Confirm a queue item waiting for confirmation (id)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[confirmBody]("confirm_queue_item", body)
				if err != nil {
					return nil, err
				}
				return call(ctx, sv.Queue.ConfirmQueueItem, &switchboardv1.ConfirmQueueItemRequest{Id: a.ID, Action: a.action()})
			}},
		{name: "remove_queue_item", description: "Remove a queue item (id)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[struct {
					ID string `json:"id"`
				}]("remove_queue_item", body)
				if err != nil {
					return nil, err
				}
				if a.ID == "" {
					return nil, apperr.Invalid("remove_queue_item: id is required")
				}
				return call(ctx, sv.Queue.DeleteQueueItem, &switchboardv1.DeleteQueueItemRequest{Id: a.ID})
			}},
		{name: "edit_queue_item", description: "Edit a queue item (id, title, description, priority)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[struct {
					ID          string  `json:"id"`
					Title       *string `json:"title"`
					Description *string `json:"description"`
					Priority    *string `json:"priority"`
				}]("edit_queue_item", body)
				if err != nil {
					return nil, err
				}
				if a.ID == "" {
					return nil, apperr.Invalid("edit_queue_item: id is required")
				}
				return call(ctx, sv.Queue.UpdateQueueItem, &switchboardv1.UpdateQueueItemRequest{Id: a.ID, Title: a.Title,
					Description: a.Description, Priority: a.Priority})
			}},
		{name: "decompose_task", description: "Split a task into subtasks (parentId, subtasks with title, description, priority, dependsOn $N)",
			run: e.decompose},
		{name: "create_card", description: "Create a kanban card (title, description, status, priority, dueDate)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				in := &switchboardv1.CardInput{}
				if err := protoBody("create_card", body, in); err != nil {
					return nil, err
				}
				return call(ctx, sv.Kanban.CreateCard, &switchboardv1.CreateCardRequest{Card: in})
			}},
		{name: "complete_checklist", description: "Complete a card's checklist item (cardId, id)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[struct {
					CardID string `json:"cardId"`
					ID     string `json:"id"`
				}]("complete_checklist", body)
				if err != nil {
					return nil, err
				}
				if a.CardID == "" || a.ID == "" {
					return nil, apperr.Invalid("complete_checklist: cardId and id are required")
				}
				done := true
				return call(ctx, sv.Kanban.UpdateChecklistItem, &switchboardv1.UpdateChecklistItemRequest{CardId: a.CardID, Id: a.ID, Completed: &done})
			}},
		{name: "link_cards", description: "Link two cards (fromCardId, toCardId, linkType: related, blocks, duplicate, parent)",
			run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
				a, err := decode[struct {
					FromCardID string `json:"fromCardId"`
					ToCardID   string `json:"toCardId"`
					LinkType   string `json:"linkType"`
				}]("link_cards", body)
				if err != nil {
					return nil, err
				}
				return call(ctx, sv.Links.LinkCards, &switchboardv1.LinkCardsRequest{CardId: a.FromCardID, ToCardId: a.ToCardID, LinkType: a.LinkType})
			}},
		{name: "create_checklist", description: "Add checklist items to a card (cardId, items)", run: e.createChecklist},
		{name: "show_google_connect", description: "Offer to connect a Google account (identity, label, description)", run: e.googleConnect},
		{name: "show_settings_widget", description: "Show a settings widget (working_style, triage, goals, identity, all)",
			run: e.settingsWidget},
		e.imageSpec(),
		{name: "relay_send", description: "Send a relay to a connection (connectionId, subject, intent, payload)",
			run: e.sendRelay},
		{name: "job_post", description: "Post a job to your connections (title, description, taskType, urgency)",
			run: e.postJob},
	}, append(e.groupSpecs(), economySpecs(e)...)...)
}

// capabilityAction is queue_capability_action's body: a task for a
// capability's domain, titled by the action.
type capabilityAction struct {
	CapabilityType string `json:"capabilityType"`
	Action         string `json:"action"`
}

func dispatchJSON(a capabilityAction) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"title": a.Action, "type": a.CapabilityType})
	return b
}

// dispatchBody is dispatch_queue's body.
type dispatchBody struct {
	Title       string  `json:"title"`
	Type        string  `json:"type"`
	Description *string `json:"description"`
	Priority    *string `json:"priority"`
}

// handlerFor passes the capability gate for a dispatch: the handler that
// would take it, or a refusal that says so and suggests the store.
func (e *Executor) handlerFor(ctx context.Context, p *auth.Principal, a dispatchBody) (capgate.Handler, error) {
	if strings.TrimSpace(a.Type) == "" {
		return capgate.Handler{}, apperr.Invalid("dispatch_queue: type is required (the kind of task, such as email or research)")
	}
	inv, err := e.Gate.Inventory(ctx, p.UserID)
	if err != nil {
		return capgate.Handler{}, err // storage reads only: the one mapping
	}
	h, ok := capgate.Check(inv, a.Type)
	if !ok {
		return capgate.Handler{}, &apperr.Error{Kind: apperr.KindUnprocessable, Message: fmt.Sprintf(
			"nothing here handles %q tasks, so nothing was queued: find a store agent for it (suggest_marketplace {\"search\":%q})",
			a.Type, a.Type)}
	}
	return h, nil
}

// dispatch is dispatch_queue: the gate first, then the queue's own create
// (pending_confirmation, or ready with auto-approve), the handler in the
// item's metadata (agentId for a store agent, which then runs it).
func (e *Executor) dispatch(ctx context.Context, p *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[dispatchBody]("dispatch_queue", body)
	if err != nil {
		return nil, err
	}
	h, err := e.handlerFor(ctx, p, a)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"taskType": a.Type, "handler": map[string]string{"kind": h.Kind, "id": h.ID, "name": h.Name}}
	if h.Kind == capgate.KindStoreAgent {
		meta["agentId"] = h.ID
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	metadata, src, task := string(m), source, "task"
	return call(ctx, e.Queue.CreateQueueItem, &switchboardv1.CreateQueueItemRequest{Title: a.Title, Description: a.Description,
		Priority: a.Priority, Type: &task, Source: &src, Metadata: &metadata})
}

// protoBody reads a body into a message as the REST mirror reads one
// (protojson: API names, unknown keys refused).
func protoBody(name string, body json.RawMessage, m proto.Message) error {
	if err := protojson.Unmarshal(body, m); err != nil {
		return apperr.Invalid("%s: %s", name, err)
	}
	return nil
}
