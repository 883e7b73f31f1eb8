package peers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
)

// SharedTools are the tools a trusted connection may call through POST
// /api/federation/mcp (RULINGS "The operator network": Cross-instance
// reads), each restricted to what is shared with that connection.
var SharedTools = []string{"mode_get", "relay_threads", "relay_thread_list", "entity_resolve", "job_browse"}

// CallSharedTool runs one allowlisted tool for the calling connection: only
// a trusted connection (403 otherwise), only SharedTools (another is 403).
// mode_get is the door's answer (mcp.ModeOf) as the local user; relay_threads,
// relay_thread_list, entity_resolve and job_browse answer over this
// side's reads of what the connection shares, because the door's tools
// search everything the operator holds (note: the door has no relay_threads
// or job_browse tool on this branch).
func (s *Service) CallSharedTool(ctx context.Context, req *switchboardv1.CallSharedToolRequest) (*switchboardv1.CallSharedToolResponse, error) {
	c, err := s.core.FromActivePeer(ctx, "mcp", nil)
	if err != nil {
		return nil, err
	}
	if c.TrustLevel != networkconnection.TrustLevelTrusted {
		return nil, apperr.Forbidden("mcp: connection %s is %s: tools are for trusted connections only", c.ID, c.TrustLevel)
	}
	args := req.GetArguments().AsMap()
	str := func(key string) string { v, _ := args[key].(string); return strings.TrimSpace(v) }
	var answer any
	switch req.GetTool() {
	case "mode_get":
		if s.core.Mode == nil {
			return nil, apperr.Internal(errNoMode)
		}
		if answer, err = s.core.Mode(ctx, c.UserID); err != nil {
			return nil, err
		}
	case "relay_threads":
		threads, err := s.threadsWith(ctx, c)
		if err != nil {
			return nil, err
		}
		list := []map[string]any{}
		for _, t := range threads {
			list = append(list, map[string]any{"threadId": t.ID, "subject": t.Subject, "state": t.State, "relays": t.Relays})
		}
		answer = map[string]any{"threads": list}
	case "relay_thread_list":
		if answer, err = s.threadRelays(ctx, c, str("threadId")); err != nil {
			return nil, err
		}
	case "entity_resolve":
		q := str("query")
		if q == "" {
			return nil, apperr.Invalid("entity_resolve: query must not be blank")
		}
		if answer, err = s.SearchSharedEntities(ctx, &switchboardv1.SearchSharedEntitiesRequest{Q: q}); err != nil {
			return nil, err
		}
	case "job_browse":
		if answer, err = s.sharedJobs(ctx, c); err != nil {
			return nil, err
		}
	default:
		return nil, apperr.Forbidden("mcp: tool %q is not shared with connections (only %s)", req.GetTool(), strings.Join(SharedTools, ", "))
	}
	result, err := structOf(answer)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	return &switchboardv1.CallSharedToolResponse{Tool: req.GetTool(), Result: result}, nil
}

var errNoMode = errors.New("mcp: no mode_get is wired")

// threadRelays are one thread's relays on the connection, oldest first; a
// thread of another connection, or none, is 404.
func (s *Service) threadRelays(ctx context.Context, c *ent.NetworkConnection, id string) (any, error) {
	if id == "" {
		return nil, apperr.Invalid("relay_thread_list: threadId is required")
	}
	rows, err := s.core.DB.Relay.Query().Where(relay.ConnectionID(c.ID), relay.Or(relay.ThreadID(id), relay.And(relay.ThreadIDIsNil(), relay.RelayID(id)))).
		Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, apperr.NotFound("no relay thread %q on this connection", id)
	}
	list := []*switchboardv1.Relay{}
	for _, r := range rows {
		list = append(list, network.RelayProto(r, c))
	}
	return &switchboardv1.ListRelaysResponse{Relays: list}, nil
}

// structOf renders an answer as the REST API would: a message through
// protojson, anything else through encoding/json.
func structOf(v any) (*structpb.Struct, error) {
	var (
		raw []byte
		err error
	)
	if m, ok := v.(proto.Message); ok {
		raw, err = protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(m)
	} else {
		raw, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	out := &structpb.Struct{}
	if err := protojson.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}
