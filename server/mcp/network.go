package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	c "github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// Network and Relays are the operator network's services as the network
// tools call them (RULINGS "The operator network", document 2's MCP table):
// the same methods the API mounts, on the two sides that serve them
// (operator.Service, relays.Service), plus the two activity entries only a
// tool's use of several connections or of a route writes.
type Network interface {
	c.NetworkServiceHandler
	c.NetworkExchangeServiceHandler
}

// Relays is the operator's relays and routes (relays.Service).
type Relays interface {
	c.NetworkRelayServiceHandler
	c.NetworkRouteServiceHandler
	// RecordBroadcast writes relay_broadcast for one send to several
	// connections; RecordRoute writes task_routed for a send that follows a
	// route_task answer.
	RecordBroadcast(ctx context.Context, subject string, relays []*switchboardv1.Relay) error
	RecordRoute(ctx context.Context, strategy, subject string, relays []*switchboardv1.Relay) error
}

func stringArray(description string, maxItems int) *jsonschema.Schema {
	one, most := 1, 100
	return &jsonschema.Schema{Type: "array", Description: description, MaxItems: &maxItems,
		Items: &jsonschema.Schema{Type: "string", MinLength: &one, MaxLength: &most}}
}

// networkTools are document 2's network tools, in its table's order.
func networkTools(sv Services) []*tool {
	n, r := sv.Network, sv.Relays
	var (
		post   = &switchboardv1.PostJobRequest{}
		jobs   = &switchboardv1.ListJobsRequest{}
		send   = &switchboardv1.SendRelayRequest{}
		route  = &switchboardv1.RouteTaskRequest{}
		relays = &switchboardv1.ListRelaysRequest{}
	)
	hours := &jsonschema.Schema{Type: "number", Description: "how many hours the work takes"}
	zero, most := 0.0, 100000.0
	hours.Minimum, hours.Maximum = &zero, &most
	return []*tool{
		{
			name: "job_post", title: "Post a job",
			description: "Posts a job to the operator's job board and publishes it to their active connections (all, or connectionIds).",
			calls:       []string{c.NetworkExchangeServicePostJobProcedure},
			input: object([]string{"title", "description"}, map[string]*jsonschema.Schema{
				"title":          arg(post, "title", "what the job is, in one line"),
				"description":    arg(post, "description", "what is wanted"),
				"taskType":       arg(post, "taskType", "the kind of work"),
				"urgency":        arg(post, "urgency", "how soon it is needed"),
				"compensation":   arg(post, "compensation", "what it pays, in words"),
				"requiredSkills": stringArray("the skills it needs", 50),
				"estimatedHours": hours,
				"connectionIds":  stringArray("publish to these connections only (default: all active)", 200),
			}),
			output: (&switchboardv1.PostJobResponse{}).ProtoReflect().Descriptor(),
			run:    direct(n.PostJob),
		},
		{
			name: "job_browse", title: "Browse jobs", readOnly: true,
			description: "Open jobs on the operator's board, received from connections and posted, newest first; filter by task type.",
			calls:       []string{c.NetworkExchangeServiceListJobsProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"taskType": arg(jobs, "taskType", "only jobs of this kind"),
				"limit":    limitArg("at most this many jobs", 20),
			}),
			output: (&switchboardv1.ListJobsResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				TaskType string `json:"taskType"`
				Limit    int32  `json:"limit"`
			}) (any, error) {
				return input.Call(ctx, n.ListJobs, &switchboardv1.ListJobsRequest{Status: "open", TaskType: a.TaskType, Limit: a.Limit})
			}),
		},
		{
			name: "job_match", title: "Match jobs to your capabilities", readOnly: true,
			description: "Open received jobs ranked against the operator's provider capabilities (skill and task-type overlap).",
			calls:       []string{c.NetworkExchangeServiceMatchJobsProcedure},
			input:       object(nil, nil),
			output:      (&switchboardv1.MatchJobsResponse{}).ProtoReflect().Descriptor(),
			run: func(ctx context.Context, _ *auth.Principal, _ json.RawMessage) (any, error) {
				return input.Call(ctx, n.MatchJobs, &switchboardv1.MatchJobsRequest{})
			},
		},
		{
			name: "relay_thread_list", title: "List a relay thread", readOnly: true,
			description: "The relays of one thread, both directions, newest first.",
			calls:       []string{c.NetworkRelayServiceListRelaysProcedure},
			input: object([]string{"threadId"}, map[string]*jsonschema.Schema{
				"threadId": arg(relays, "threadId", "the thread's id (its first relay's id)"),
				"limit":    limitArg("at most this many relays", 20),
			}),
			output: (&switchboardv1.ListRelaysResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				ThreadID string `json:"threadId"`
				Limit    int    `json:"limit"`
			}) (any, error) {
				if strings.TrimSpace(a.ThreadID) == "" {
					return nil, apperr.Invalid("threadId is required")
				}
				res, err := input.Call(ctx, r.ListRelays, &switchboardv1.ListRelaysRequest{ThreadId: a.ThreadID})
				if err != nil {
					return nil, err
				}
				if len(res.GetRelays()) == 0 {
					return nil, apperr.NotFound("no relay thread %q", a.ThreadID)
				}
				res.Relays = res.GetRelays()[:min(a.Limit, len(res.GetRelays()))]
				return res, nil
			}),
		},
		threadsTool(r),
		{
			name: "serendipity_matches", title: "Who should meet", readOnly: true,
			description: "Pairs of the operator's contacts and connections whose tags, skills or company share keywords of the operator's active cards and open jobs, each with the reason.",
			calls:       []string{c.NetworkRouteServiceListSerendipityMatchesProcedure},
			input: object(nil, map[string]*jsonschema.Schema{
				"maxResults": limitArg("at most this many pairs", 5),
			}),
			output: (&switchboardv1.ListSerendipityMatchesResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				MaxResults int32 `json:"maxResults"`
			}) (any, error) {
				return input.Call(ctx, r.ListSerendipityMatches, &switchboardv1.ListSerendipityMatchesRequest{MaxResults: min(a.MaxResults, 50)})
			}),
		},
		{
			name: "route_task", title: "Route a task", readOnly: true,
			description: "Ranks the operator's active connections and installed store agents for a task (skill match, completion rate, capacity, trust, reputation, latency, domain proximity) and advises direct, auction or broadcast. Routing sends nothing: relay_send with the chosen connections and the strategy uses the route.",
			calls:       []string{c.NetworkRouteServiceRouteTaskProcedure},
			input: object([]string{"taskDescription"}, map[string]*jsonschema.Schema{
				"taskDescription": arg(route, "taskDescription", "what is to be done"),
				"taskSkills":      stringArray("the skills it needs (default: the description's keywords)", 50),
				"taskType":        arg(route, "taskType", "the kind of work"),
				"maxCandidates":   limitArg("at most this many candidates", 5),
			}),
			output: (&switchboardv1.RouteTaskResponse{}).ProtoReflect().Descriptor(),
			run: with(func(ctx context.Context, _ *auth.Principal, a struct {
				TaskDescription string   `json:"taskDescription"`
				TaskSkills      []string `json:"taskSkills"`
				TaskType        string   `json:"taskType"`
				MaxCandidates   int32    `json:"maxCandidates"`
			}) (any, error) {
				return input.Call(ctx, r.RouteTask, &switchboardv1.RouteTaskRequest{TaskDescription: a.TaskDescription,
					Skills: a.TaskSkills, TaskType: a.TaskType, MaxCandidates: min(a.MaxCandidates, 50)})
			}),
		},
		{
			name: "network_briefing", title: "Network briefing",
			description: "The operator network's briefing, counts first: pending connection requests, relays awaiting you, relays awaiting peers, state changes since the last briefing, quarantined relays, jobs received.",
			calls:       []string{c.NetworkRouteServiceGetNetworkBriefingProcedure},
			input:       object(nil, nil),
			output:      (&switchboardv1.GetNetworkBriefingResponse{}).ProtoReflect().Descriptor(),
			run: func(ctx context.Context, _ *auth.Principal, _ json.RawMessage) (any, error) {
				return input.Call(ctx, r.GetNetworkBriefing, &switchboardv1.GetNetworkBriefingRequest{})
			},
		},
		{
			name: "relay_send", title: "Send a relay",
			description: "Sends a relay to one connection (connectionId) or to several (connectionIds: one relay each, a broadcast). Name the strategy when the send follows a route_task answer: the route is recorded as used.",
			calls:       []string{c.NetworkRelayServiceSendRelayProcedure, c.NetworkServiceListActiveConnectionsProcedure},
			input: object([]string{"subject"}, map[string]*jsonschema.Schema{
				"connectionId":  arg(send, "connectionId", "the connection to send to (or give connectionIds)"),
				"connectionIds": stringArray("several connections: one relay to each (or give connectionId)", 50),
				"subject":       arg(send, "subject", "what the relay is about, in one line"),
				"intent":        arg(send, "intent", "what the relay asks for"),
				"type":          arg(send, "type", "request (default), response or notification"),
				"priority":      arg(send, "priority", "how urgent"),
				"threadId":      arg(send, "threadId", "the thread it continues"),
				"parentRelayId": arg(send, "parentRelayId", "the relay it answers"),
				"payload":       {Type: "object", Description: "details, as a JSON object"},
				"strategy":      strategyArg(),
			}),
			outputSchema: sentSchema,
			run: func(ctx context.Context, _ *auth.Principal, args json.RawMessage) (any, error) {
				return sendRelays(ctx, n, r, args)
			},
		},
	}
}

// strategyArg is relay_send's strategy: the route_task advice the send
// follows (it makes the send a used route, task_routed).
func strategyArg() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: "the route_task strategy this send follows, when it follows one"}
	for _, v := range vocab.Get("route_strategy").Values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// enumOf is a vocabulary's values as a schema's enum.
func enumOf[T ~string](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

var objectSchema = &jsonschema.Schema{Type: "object"}

// sentSchema is relay_send's answer: each relay sent, with the peer's answer.
var sentSchema = &jsonschema.Schema{
	Type: "object", Required: []string{"sent"},
	Properties: map[string]*jsonschema.Schema{
		"sent": {Type: "array", Items: &jsonschema.Schema{
			Type: "object", Required: []string{"relay", "answer"},
			Properties: map[string]*jsonschema.Schema{"relay": objectSchema, "answer": objectSchema},
		}},
		"failed": {Type: "array", Description: "the connections of a broadcast whose peer refused the relay, each with why",
			Items: &jsonschema.Schema{Type: "object", Required: []string{"connectionId", "error"},
				Properties: map[string]*jsonschema.Schema{"connectionId": {Type: "string"}, "error": {Type: "string"}}}},
		"strategy": {Type: "string", Description: "the route followed, when one was"},
	},
}

type sentAnswer struct {
	Sent     []json.RawMessage `json:"sent"`
	Failed   []sendFailure     `json:"failed,omitempty"`
	Strategy string            `json:"strategy,omitempty"`
}

// sendFailure is one connection of a broadcast whose send was refused.
type sendFailure struct {
	ConnectionID string `json:"connectionId"`
	Error        string `json:"error"`
}

// sendRelays is relay_send: every request is checked before the first is
// sent (a bad argument or connection sends nothing); then one relay per
// connection. Several connections write relay_broadcast, a strategy
// task_routed. A broadcast goes on past a peer that refuses (down, full,
// removed): the answer lists it under failed, and only a broadcast that no
// peer took is an error.
func sendRelays(ctx context.Context, n Network, r Relays, args json.RawMessage) (any, error) {
	a, err := decode[struct {
		ConnectionID  string          `json:"connectionId"`
		ConnectionIDs []string        `json:"connectionIds"`
		Subject       string          `json:"subject"`
		Intent        string          `json:"intent"`
		Type          string          `json:"type"`
		Priority      string          `json:"priority"`
		ThreadID      string          `json:"threadId"`
		ParentRelayID string          `json:"parentRelayId"`
		Payload       json.RawMessage `json:"payload"`
		Strategy      string          `json:"strategy"`
	}](args)
	if err != nil {
		return nil, err
	}
	ids := a.ConnectionIDs
	switch {
	case a.ConnectionID != "" && len(ids) > 0:
		return nil, apperr.Invalid("give connectionId or connectionIds, not both")
	case a.ConnectionID != "":
		ids = []string{a.ConnectionID}
	case len(ids) == 0:
		return nil, apperr.Invalid("connectionId or connectionIds is required")
	}
	seen := map[string]bool{}
	var payload *structpb.Struct
	if len(a.Payload) > 0 && string(a.Payload) != "null" {
		payload = &structpb.Struct{}
		if err := payload.UnmarshalJSON(a.Payload); err != nil {
			return nil, apperr.Invalid("payload must be a JSON object")
		}
	}
	reqs := make([]*switchboardv1.SendRelayRequest, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			return nil, apperr.Invalid("connection %q is named twice", id)
		}
		seen[id] = true
		req := &switchboardv1.SendRelayRequest{ConnectionId: id, Subject: a.Subject, Intent: a.Intent, Type: a.Type,
			Priority: a.Priority, ThreadId: a.ThreadID, ParentRelayId: a.ParentRelayID, Payload: payload}
		if err := input.Check(req); err != nil {
			return nil, err
		}
		reqs = append(reqs, req)
	}
	// Another account's connection, or one not active, is refused before
	// anything is sent.
	active, err := n.ListActiveConnections(ctx, &switchboardv1.ListActiveConnectionsRequest{})
	if err != nil {
		return nil, err
	}
	ok := map[string]bool{}
	for _, conn := range active.GetConnections() {
		ok[conn.GetId()] = true
	}
	for _, id := range ids {
		if !ok[id] {
			return nil, apperr.NotFound("no active connection %q", id)
		}
	}
	out := sentAnswer{Strategy: a.Strategy}
	var sent []*switchboardv1.Relay
	var first error
	for _, req := range reqs {
		res, err := r.SendRelay(ctx, req)
		if err != nil {
			if len(reqs) == 1 || ctx.Err() != nil {
				return nil, err
			}
			if first == nil {
				first = err
			}
			out.Failed = append(out.Failed, sendFailure{ConnectionID: req.GetConnectionId(), Error: err.Error()})
			continue
		}
		b, err := render.AppendREST(nil, res)
		if err != nil {
			return nil, apperr.Internal(err)
		}
		out.Sent = append(out.Sent, b)
		sent = append(sent, res.GetRelay())
	}
	if len(sent) == 0 {
		// The first refusal's kind, every refusal's reason.
		reasons := make([]string, len(out.Failed))
		for i, f := range out.Failed {
			reasons[i] = f.ConnectionID + ": " + f.Error
		}
		return nil, &apperr.Error{Kind: apperr.From(first).Kind,
			Message: "no connection took the broadcast (" + strings.Join(reasons, "; ") + ")"}
	}
	if len(reqs) > 1 {
		if err := r.RecordBroadcast(ctx, a.Subject, sent); err != nil {
			return nil, err
		}
	}
	if a.Strategy != "" {
		if err := r.RecordRoute(ctx, a.Strategy, a.Subject, sent); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// threadsSchema is relay_threads' answer.
var threadsSchema = &jsonschema.Schema{
	Type: "object", Required: []string{"threads"},
	Properties: map[string]*jsonschema.Schema{
		"threads": {Type: "array", Items: &jsonschema.Schema{
			Type:     "object",
			Required: []string{"threadId", "connectionId", "peer", "subject", "status", "relays", "lastActivityAt"},
			Properties: map[string]*jsonschema.Schema{
				"threadId": {Type: "string"}, "connectionId": {Type: "string"}, "peer": {Type: "string"},
				"subject": {Type: "string", Description: "the first relay's subject"},
				"status":  {Type: "string", Enum: enumOf(vocab.RelayThreadStatusValues())},
				"relays":  {Type: "integer"}, "lastActivityAt": {Type: "string"},
			},
		}},
	},
}

type thread struct {
	ThreadID       string `json:"threadId"`
	ConnectionID   string `json:"connectionId"`
	Peer           string `json:"peer"`
	Subject        string `json:"subject"`
	Status         string `json:"status"`
	Relays         int    `json:"relays"`
	LastActivityAt string `json:"lastActivityAt"`
}

// threadsTool is relay_threads: the caller's relays grouped by thread,
// newest activity first. A thread is active while one of its relays is
// delivered, accepted or blocked; completed when every one has ended
// (completed or declined).
func threadsTool(r Relays) *tool {
	return &tool{
		name: "relay_threads", title: "List relay threads", readOnly: true,
		description: "The operator's relay threads with their connections, newest activity first: active (a relay still open) or completed.",
		calls:       []string{c.NetworkRelayServiceListRelaysProcedure},
		input: object(nil, map[string]*jsonschema.Schema{
			"status": {Type: "string", Enum: enumOf(vocab.RelayThreadFilterValues()), Default: json.RawMessage(`"all"`),
				Description: "active, completed or all"},
			"limit": limitArg("at most this many threads", 10),
		}),
		outputSchema: threadsSchema,
		run: with(func(ctx context.Context, _ *auth.Principal, a struct {
			Status string `json:"status"`
			Limit  int    `json:"limit"`
		}) (any, error) {
			res, err := input.Call(ctx, r.ListRelays, &switchboardv1.ListRelaysRequest{})
			if err != nil {
				return nil, err
			}
			byID := map[string]*thread{}
			var order []*thread
			for _, r := range res.GetRelays() { // newest first
				id := r.GetThreadId()
				if id == "" {
					id = r.GetId()
				}
				th := byID[id]
				if th == nil {
					th = &thread{ThreadID: id, ConnectionID: r.GetConnectionId(), Peer: r.GetPeer(), Status: string(vocab.RelayThreadStatusCompleted),
						LastActivityAt: r.GetUpdatedAt().AsTime().UTC().Format("2006-01-02T15:04:05.000Z")}
					byID[id] = th
					order = append(order, th)
				}
				th.Relays++
				th.Subject = r.GetSubject() // the oldest comes last
				switch r.GetState() {
				case string(vocab.RelayStateDelivered), string(vocab.RelayStateAccepted), string(vocab.RelayStateBlocked):
					th.Status = string(vocab.RelayThreadStatusActive)
				}
			}
			out := struct {
				Threads []*thread `json:"threads"`
			}{Threads: []*thread{}}
			for _, th := range order {
				if (a.Status == "" || a.Status == string(vocab.RelayThreadFilterAll) || a.Status == th.Status) && len(out.Threads) < a.Limit {
					out.Threads = append(out.Threads, th)
				}
			}
			return out, nil
		}),
	}
}
