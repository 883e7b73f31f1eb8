package mcp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	c "github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// resources are the four switchboard:// resources, each read as the tool
// named beside it reads (same scopes, same answer).
var resources = []resourceDef{
	{"switchboard://briefing", "briefing", "Briefing", "What needs the operator now: approvals, urgent and running items, cards due within 48 hours, new chat.", "briefing_get"},
	{"switchboard://queue", "queue", "Queue", "The operator's queue, newest first.", "queue_list"},
	{"switchboard://board", "board", "Board", "The operator's board cards.", "cards_list"},
	{"switchboard://contacts", "contacts", "Contacts", "The operator's contacts.", "contacts_list"},
}

// resourceDef is one resource and the tool it reads as.
type resourceDef struct{ uri, name, title, description, tool string }

func addResources(s *Server, srv *sdk.Server) {
	for _, r := range resources {
		t := s.byName[r.tool]
		uri := r.uri
		srv.AddResource(&sdk.Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.description, MIMEType: "application/json"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				p, err := callerOf(req.Extra)
				if err != nil {
					return nil, err
				}
				if err := t.allows(p, uri); err != nil {
					return nil, err
				}
				out, err := t.run(auth.WithPrincipal(ctx, p), p, nil)
				if err != nil {
					return nil, refusal(ctx, err)
				}
				b, err := asContent(out)
				if err != nil {
					return nil, refusal(ctx, err)
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
			})
	}
}

// briefing is briefing_get's answer: counts first, then the items, each as
// the REST mirror renders it.
type briefing struct {
	GeneratedAt      time.Time         `json:"generatedAt"`
	Counts           briefingCounts    `json:"counts"`
	AwaitingApproval []json.RawMessage `json:"awaitingApproval"`
	Urgent           []json.RawMessage `json:"urgent"`
	InProgress       []json.RawMessage `json:"inProgress"`
	CardsDueSoon     []json.RawMessage `json:"cardsDueSoon"`
	PendingReviews   []json.RawMessage `json:"pendingReviews"`
	NewChat          []json.RawMessage `json:"newChat"`
	// Boosts say why items of awaitingApproval rank above their priority
	// (the Now order's calendar correlation).
	Boosts []briefingBoost `json:"boosts"`
}

// briefingBoost is one boost of an item awaiting approval.
type briefingBoost struct {
	ItemID  string `json:"itemId"`
	Points  int32  `json:"points"`
	Reason  string `json:"reason"`
	EventID string `json:"eventId"`
}

type briefingCounts struct {
	AwaitingApproval int `json:"awaitingApproval"`
	Urgent           int `json:"urgent"`
	InProgress       int `json:"inProgress"`
	CardsDueSoon     int `json:"cardsDueSoon"`
	PendingReviews   int `json:"pendingReviews"`
	NewChat          int `json:"newChat"`
}

func briefingSchema() *jsonschema.Schema {
	defs := map[string]*jsonschema.Schema{}
	list := func(md protoreflect.MessageDescriptor) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Items: messageRef(md, defs)}
	}
	item := (&switchboardv1.QueueItem{}).ProtoReflect().Descriptor()
	count := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "integer"} }
	s := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"generatedAt": {Type: "string"},
			"counts": {Type: "object", Properties: map[string]*jsonschema.Schema{
				"awaitingApproval": count(), "urgent": count(), "inProgress": count(), "cardsDueSoon": count(),
				"pendingReviews": count(), "newChat": count(),
			}},
			"awaitingApproval": list(item),
			"urgent":           list(item),
			"inProgress":       list(item),
			"cardsDueSoon":     list((&switchboardv1.KanbanCard{}).ProtoReflect().Descriptor()),
			"pendingReviews":   list((&switchboardv1.ListedStoreExecution{}).ProtoReflect().Descriptor()),
			"newChat":          list((&switchboardv1.ChatMessage{}).ProtoReflect().Descriptor()),
			"boosts": {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"itemId": {Type: "string"}, "points": {Type: "integer"}, "reason": {Type: "string"}, "eventId": {Type: "string"},
			}}},
		},
	}
	s.Defs = defs
	return s
}

// briefingTool is briefing_get. Chat counts as new since the caller's
// previous briefing from this process, at most the last 24 hours
// (docs/decisions.md "MCP").
func briefingTool(s *Server) *tool {
	return &tool{
		name: "briefing_get", title: "Get the briefing", readOnly: true,
		description: "What needs the operator now: items awaiting approval, urgent and in-progress items, cards due within 48 hours, store results waiting for review and chat since the last briefing; counts first, then the items.",
		calls: []string{c.QueueServiceListQueueItemsProcedure, c.NowServiceGetNowProcedure, c.KanbanServiceListCardsProcedure,
			c.SharedChatServiceListMessagesProcedure},
		input:        object(nil, nil),
		outputSchema: briefingSchema(),
		run: func(ctx context.Context, p *auth.Principal, _ json.RawMessage) (any, error) {
			return s.briefing(ctx, p)
		},
	}
}

func (s *Server) briefing(ctx context.Context, p *auth.Principal) (*briefing, error) {
	sv := s.cfg.Services
	now := s.cfg.Now()
	b := &briefing{GeneratedAt: now}
	items := func(status, priority string) ([]json.RawMessage, error) {
		res, err := input.Call(ctx, sv.Queue.ListQueueItems, &switchboardv1.ListQueueItemsRequest{Status: status, Priority: priority, Limit: 100})
		if err != nil {
			return nil, err
		}
		return renderAll(res.GetData().GetItems(), nil)
	}
	var err error
	// What awaits approval, in the Now order (server/calendar), the one the
	// dashboard's Now view shows.
	waiting, err := input.Call(ctx, sv.Now.GetNow, &switchboardv1.GetNowRequest{Limit: 100})
	if err != nil {
		return nil, err
	}
	b.AwaitingApproval, b.Boosts = []json.RawMessage{}, []briefingBoost{}
	for _, e := range waiting.GetItems() {
		row, err := render.AppendREST(nil, e.GetItem())
		if err != nil {
			return nil, err
		}
		b.AwaitingApproval = append(b.AwaitingApproval, row)
		for _, boost := range e.GetBoosts() {
			b.Boosts = append(b.Boosts, briefingBoost{ItemID: e.GetItem().GetId(), Points: boost.GetPoints(),
				Reason: boost.GetReason(), EventID: boost.GetEventId()})
		}
	}
	if b.InProgress, err = items(string(vocab.QueueStatusInProgress), ""); err != nil {
		return nil, err
	}
	urgent, err := input.Call(ctx, sv.Queue.ListQueueItems, &switchboardv1.ListQueueItemsRequest{Priority: "urgent", Limit: 100})
	if err != nil {
		return nil, err
	}
	if b.Urgent, err = renderAll(urgent.GetData().GetItems(), func(it *switchboardv1.QueueItem) bool {
		return it.GetStatus() != string(vocab.QueueStatusDoneToday)
	}); err != nil {
		return nil, err
	}
	cards, err := input.Call(ctx, sv.Kanban.ListCards, &switchboardv1.ListCardsRequest{Limit: 100})
	if err != nil {
		return nil, err
	}
	soon := now.Add(48 * time.Hour)
	if b.CardsDueSoon, err = renderAll(cards.GetCards(), func(k *switchboardv1.KanbanCard) bool {
		return k.DueDate != nil && !k.GetDueDate().AsTime().After(soon) && k.GetStatus() != string(vocab.CardStatusCompleted)
	}); err != nil {
		return nil, err
	}
	// Store results waiting for the caller's review, when the key may read
	// the store (the briefing itself needs queue, kanban and chat).
	b.PendingReviews = []json.RawMessage{}
	if p.HasScope("store") {
		reviews, err := input.Call(ctx, sv.Executions.ListStoreExecutions, &switchboardv1.ListStoreExecutionsRequest{ReviewStatus: "pending_review", Limit: 100})
		if err != nil {
			return nil, err
		}
		if b.PendingReviews, err = renderAll(reviews.GetExecutions(), nil); err != nil {
			return nil, err
		}
	}
	since := s.lastBriefing(p.UserID, now)
	chat, err := input.Call(ctx, sv.Chat.ListMessages, &switchboardv1.ListMessagesRequest{Limit: 50})
	if err != nil {
		return nil, err
	}
	if b.NewChat, err = renderAll(chat.GetMessages(), func(m *switchboardv1.ChatMessage) bool {
		return m.GetCreatedAt().AsTime().After(since)
	}); err != nil {
		return nil, err
	}
	b.Counts = briefingCounts{len(b.AwaitingApproval), len(b.Urgent), len(b.InProgress), len(b.CardsDueSoon),
		len(b.PendingReviews), len(b.NewChat)}
	return b, nil
}

// lastBriefing records a briefing now and answers when the previous one
// was, at most 24 hours back.
func (s *Server) lastBriefing(userID string, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	since := now.Add(-24 * time.Hour)
	if t, ok := s.briefed[userID]; ok && t.After(since) {
		since = t
	}
	s.briefed[userID] = now
	return since
}

// renderAll renders the messages keep keeps (all when nil), as the REST
// mirror would, for answers that hold lists of them.
func renderAll[M proto.Message](ms []M, keep func(M) bool) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	for _, m := range ms {
		if keep != nil && !keep(m) {
			continue
		}
		b, err := render.AppendREST(nil, m)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
