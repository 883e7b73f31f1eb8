package mcp

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	c "github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
)

// The modes mode_get names (docs/decisions.md "MCP").
var modes = []modeInfo{
	{Name: "cockpit", Description: "The operator drives: agents propose, the operator approves each item."},
	{Name: "chief_of_staff", Description: "The assistant runs the day within the operator's rules and reports back."},
}

type modeInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type modeAnswer struct {
	Mode  string     `json:"mode"`
	Modes []modeInfo `json:"modes"`
}

// mode is mode_get's answer for the caller in ctx.
func mode(ctx context.Context, settings c.SettingsServiceHandler) (any, error) {
	set, err := input.Call(ctx, settings.GetSettings, &switchboardv1.GetSettingsRequest{})
	if err != nil {
		return nil, err
	}
	return modeAnswer{Mode: set.GetMode(), Modes: modes}, nil
}

// ModeOf answers mode_get as the user userID, outside a door session: a
// trusted peer's shared mode_get (server/network) gets the door's own answer.
func ModeOf(users *ent.Client, settings c.SettingsServiceHandler) func(ctx context.Context, userID string) (any, error) {
	return func(ctx context.Context, userID string) (any, error) {
		u, err := users.User.Get(ctx, userID)
		if err != nil {
			return nil, err
		}
		p := &auth.Principal{UserID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role), Via: auth.ViaSession}
		return mode(auth.WithPrincipal(ctx, p), settings)
	}
}

var modeSchema = &jsonschema.Schema{
	Type:     "object",
	Required: []string{"mode", "modes"},
	Properties: map[string]*jsonschema.Schema{
		"mode": {Type: "string", Description: "the mode the instance runs in"},
		"modes": {Type: "array", Items: &jsonschema.Schema{
			Type: "object", Required: []string{"name", "description"},
			Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}, "description": {Type: "string"}},
		}},
	},
}

func limitArg(description string, def int) *jsonschema.Schema {
	one, most := 1.0, 100.0
	d, _ := json.Marshal(def)
	return &jsonschema.Schema{Type: "integer", Minimum: &one, Maximum: &most, Default: d, Description: description}
}

// staticTools are the tools every caller has, in the order tools/list gives
// them (document 2's table, then the store's).
func staticTools(s *Server) []*tool {
	sv := s.cfg.Services
	var (
		listQueue   = &switchboardv1.ListQueueItemsRequest{}
		createQueue = &switchboardv1.CreateQueueItemRequest{}
		moveQueue   = &switchboardv1.UpdateQueueItemStatusRequest{}
		editQueue   = &switchboardv1.UpdateQueueItemRequest{}
		listCards   = &switchboardv1.ListCardsRequest{}
		listContact = &switchboardv1.ListContactsRequest{}
		browse      = &switchboardv1.ListStoreAgentsRequest{}
	)
	tools := []*tool{
		{
			name: "queue_list", title: "List queue items", readOnly: true,
			description: "The operator's queue, newest first. Filter by any queue status; all when absent.",
			calls:       []string{c.QueueServiceListQueueItemsProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"status": arg(listQueue, "status", "only items in this status"),
				"limit":  limitArg("at most this many items", 50),
			}),
			output: (&switchboardv1.ListQueueItemsResponse{}).ProtoReflect().Descriptor(),
			run:    direct(sv.Queue.ListQueueItems),
		},
		{
			name: "queue_add", title: "Add a queue item",
			description: "Adds an item to the operator's queue, as POST /api/v2/queue does; it waits for the operator's approval unless auto-approve is on.",
			calls:       []string{c.QueueServiceCreateQueueItemProcedure},
			input: object([]string{"title"}, map[string]*jsonschema.Schema{
				"title":       arg(createQueue, "title", "what is to be done, in one line"),
				"description": arg(createQueue, "description", "details"),
				"priority":    arg(createQueue, "priority", "how urgent"),
			}),
			output: (&switchboardv1.CreateQueueItemResponse{}).ProtoReflect().Descriptor(),
			run: direct(sv.Queue.CreateQueueItem, func(p *auth.Principal, req *switchboardv1.CreateQueueItemRequest) {
				source := "mcp:" + p.KeyLabel
				req.Source = &source
			}),
		},
		{
			name: "queue_update", title: "Update a queue item",
			description: "Moves an item through the queue's transitions (status) and edits its priority or description. An illegal move is refused with the reason, and then nothing changes.",
			calls:       []string{c.QueueServiceUpdateQueueItemStatusProcedure, c.QueueServiceUpdateQueueItemProcedure, c.QueueServiceGetQueueItemProcedure},
			input: object([]string{"id"}, map[string]*jsonschema.Schema{
				"id":          arg(editQueue, "id", "the item's id"),
				"status":      arg(moveQueue, "status", "the status to move to"),
				"priority":    arg(editQueue, "priority", "the new priority"),
				"description": arg(editQueue, "description", "the new description"),
			}),
			output: (&switchboardv1.GetQueueItemResponse{}).ProtoReflect().Descriptor(),
			run: func(ctx context.Context, _ *auth.Principal, args json.RawMessage) (any, error) {
				return updateQueue(ctx, sv, args)
			},
		},
		{
			name: "contacts_list", title: "List contacts", readOnly: true,
			description: "The operator's contacts, by name.",
			calls:       []string{c.ContactServiceListContactsProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"limit": limitArg("at most this many contacts", 50),
			}),
			output: (&switchboardv1.ListContactsResponse{}).ProtoReflect().Descriptor(),
			run:    direct(sv.Contacts.ListContacts),
		},
		{
			name: "contacts_search", title: "Search contacts", readOnly: true,
			description: "Contacts whose name, email or company contains the query (as written: the contacts list's search is case-sensitive; entity_resolve is not).",
			calls:       []string{c.ContactServiceListContactsProcedure},
			input: object([]string{"query"}, map[string]*jsonschema.Schema{
				"query": arg(listContact, "search", "the text to look for"),
			}),
			output: (&switchboardv1.ListContactsResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				Query string `json:"query"`
			}) (any, error) {
				return input.Call(ctx, sv.Contacts.ListContacts, &switchboardv1.ListContactsRequest{Search: a.Query})
			}),
		},
		{
			name: "cards_list", title: "List board cards", readOnly: true,
			description: "The operator's board cards; stage is a card status (a board column).",
			calls:       []string{c.KanbanServiceListCardsProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"stage": arg(listCards, "status", "only cards in this column"),
				"limit": limitArg("at most this many cards", 50),
			}),
			output: (&switchboardv1.ListCardsResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				Stage string `json:"stage"`
				Limit int32  `json:"limit"`
			}) (any, error) {
				return input.Call(ctx, sv.Kanban.ListCards, &switchboardv1.ListCardsRequest{Status: a.Stage, Limit: a.Limit})
			}),
		},
		{
			name: "mode_get", title: "Get the mode", readOnly: true,
			description:  "The mode the operator works in (cockpit) and the modes there are.",
			calls:        []string{c.SettingsServiceGetSettingsProcedure},
			input:        object(nil, nil),
			outputSchema: modeSchema,
			run: func(ctx context.Context, _ *auth.Principal, _ json.RawMessage) (any, error) {
				return mode(ctx, sv.Settings)
			},
		},
		briefingTool(s),
		{
			name: "activity_recent", title: "Recent activity", readOnly: true,
			description: "The account's activity feed, newest first.",
			calls:       []string{c.ActivityServiceListActivityProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"limit": limitArg("at most this many entries", 20),
			}),
			output: (&switchboardv1.ListActivityResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				Limit int32 `json:"limit"`
			}) (any, error) {
				if a.Limit == 0 {
					a.Limit = 20
				}
				return input.Call(ctx, sv.Activity.ListActivity, &switchboardv1.ListActivityRequest{Limit: a.Limit})
			}),
		},
		{
			name: "reputation_get", title: "Get your reputation", readOnly: true,
			description: "The caller's reputation in the task economy.",
			calls:       []string{c.StoreReviewServiceGetStoreReputationProcedure},
			input:       object(nil, nil),
			output:      (&switchboardv1.GetStoreReputationResponse{}).ProtoReflect().Descriptor(),
			run: func(ctx context.Context, _ *auth.Principal, _ json.RawMessage) (any, error) {
				return input.Call(ctx, sv.Review.GetStoreReputation, &switchboardv1.GetStoreReputationRequest{})
			},
		},
		entityTool(s),
		{
			name: "marketplace_browse", title: "Browse the agent store", readOnly: true,
			description: "Store agents by category, pricing and a search over names, descriptions, developers and skills (the task types an agent takes).",
			calls:       []string{c.StoreServiceListStoreAgentsProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"category": arg(browse, "category", "only this category"),
				"pricing":  arg(browse, "pricing", "free or paid"),
				"search":   arg(browse, "search", "text to match, including the task types an agent takes"),
				"limit":    limitArg("at most this many agents", 20),
			}),
			output: (&switchboardv1.ListStoreAgentsResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				Category string `json:"category"`
				Pricing  string `json:"pricing"`
				Search   string `json:"search"`
				Limit    int32  `json:"limit"`
			}) (any, error) {
				return input.Call(ctx, sv.Store.ListStoreAgents, &switchboardv1.ListStoreAgentsRequest{
					Category: a.Category, Pricing: a.Pricing, Search: a.Search, Limit: a.Limit,
				})
			}),
		},
		unlockTool(sv),
	}
	return inOrder(append(tools, networkTools(sv)...))
}

// staticOrder is document 2's table, then the store's two (RULINGS "MCP":
// 22 static tools; the server card lists the first 20).
var staticOrder = []string{
	"queue_list", "queue_add", "queue_update", "contacts_list", "contacts_search", "cards_list", "mode_get",
	"briefing_get", "activity_recent", "job_post", "job_browse", "job_match", "reputation_get", "relay_thread_list",
	"relay_threads", "entity_resolve", "serendipity_matches", "route_task", "network_briefing", "relay_send",
	"marketplace_browse", "marketplace_unlock",
}

// inOrder answers the tools in staticOrder; a tool it does not name is a
// programming error.
func inOrder(ts []*tool) []*tool {
	out := make([]*tool, 0, len(ts))
	for _, name := range staticOrder {
		for _, t := range ts {
			if t.name == name {
				out = append(out, t)
			}
		}
	}
	if len(out) != len(ts) {
		panic("mcp: a static tool is missing from staticOrder")
	}
	return out
}

// unlockTool is marketplace_unlock: the listing's access password unlocks
// the agent for the caller (no hold, no charge on their runs of it). Each
// call is heavy at the door (classOf), and its password a guess the store
// counts in the client's auth window and the listing's own.
func unlockTool(sv Services) *tool {
	unlock := &switchboardv1.UnlockStoreAgentRequest{}
	return &tool{
		name: "marketplace_unlock", title: "Unlock a store agent",
		description: "Unlocks a store agent with the access password its developer shared: your runs of it are then not charged. A wrong password is refused.",
		calls:       []string{c.StoreServiceUnlockStoreAgentProcedure},
		input: object([]string{"accessPassword"}, map[string]*jsonschema.Schema{
			"agentId":        arg(unlock, "id", "the listing's id (or give slug)"),
			"slug":           arg(unlock, "id", "the listing's slug (or give agentId)"),
			"accessPassword": arg(unlock, "accessPassword", "the password the developer shared"),
		}),
		output: (&switchboardv1.UnlockStoreAgentResponse{}).ProtoReflect().Descriptor(),
		run: with(func(ctx context.Context, _ *auth.Principal, a struct {
			AgentID        string `json:"agentId"`
			Slug           string `json:"slug"`
			AccessPassword string `json:"accessPassword"`
		}) (any, error) {
			id := a.AgentID
			if id == "" {
				id = a.Slug
			}
			if id == "" {
				return nil, apperr.Invalid("agentId or slug is required")
			}
			return input.Call(ctx, sv.Store.UnlockStoreAgent, &switchboardv1.UnlockStoreAgentRequest{Id: id, AccessPassword: a.AccessPassword})
		}),
	}
}

// updateQueue is queue_update: the move first (it is the part that may be
// refused by the transition table), then the fields; every argument is
// checked before anything is written.
func updateQueue(ctx context.Context, sv Services, args json.RawMessage) (any, error) {
	a, err := decode[struct {
		ID          string  `json:"id"`
		Status      *string `json:"status"`
		Priority    *string `json:"priority"`
		Description *string `json:"description"`
	}](args)
	if err != nil {
		return nil, err
	}
	edit := &switchboardv1.UpdateQueueItemRequest{Id: a.ID, Priority: a.Priority, Description: a.Description}
	if err := input.Check(edit); err != nil {
		return nil, err
	}
	if a.Status != nil {
		if _, err := input.Call(ctx, sv.Queue.UpdateQueueItemStatus, &switchboardv1.UpdateQueueItemStatusRequest{Id: a.ID, Status: *a.Status}); err != nil {
			return nil, err
		}
	}
	if a.Priority != nil || a.Description != nil {
		if _, err := input.Call(ctx, sv.Queue.UpdateQueueItem, edit); err != nil {
			return nil, err
		}
	}
	return input.Call(ctx, sv.Queue.GetQueueItem, &switchboardv1.GetQueueItemRequest{Id: a.ID})
}
