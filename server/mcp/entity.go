package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	c "github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/input"
)

// surfaces are entity_resolve's, in document 2's order. Those whose system
// does not exist yet answer [] (docs/decisions.md "MCP"); events are the
// operator's calendar events and the notifications the operator network
// delivered; team_members the members of
// the caller's teams.
var surfaces = []string{"contacts", "connections", "cards", "events", "emails", "relays", "team_members"}

// match is one entity found: how well it matched, what it is, and the
// row as the REST mirror renders it.
type match struct {
	Score float64         `json:"score"`
	ID    string          `json:"id"`
	Label string          `json:"label"`
	Row   json.RawMessage `json:"row"`
}

type resolved struct {
	Query   string             `json:"query"`
	Results map[string][]match `json:"results"`
}

func resolvedSchema() *jsonschema.Schema {
	results := map[string]*jsonschema.Schema{}
	for _, s := range surfaces {
		results[s] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{
			Type: "object", Required: []string{"score", "id", "label", "row"},
			Properties: map[string]*jsonschema.Schema{
				"score": {Type: "number", Description: "1 exact, 0.8 prefix, 0.6 a word starts with it, 0.4 contains it, 0.2 matched another field"},
				"id":    {Type: "string"}, "label": {Type: "string"},
				"row": {Type: "object", Description: "the row as the REST API answers it"},
			},
		}}
	}
	return &jsonschema.Schema{Type: "object", Required: []string{"query", "results"}, Properties: map[string]*jsonschema.Schema{
		"query":   {Type: "string"},
		"results": {Type: "object", Properties: results},
	}}
}

// score rates how label matches query (both folded): the ranking of
// entity_resolve. A row the search found through another field (an email,
// a description) still counts, lowest.
func score(label, query string) float64 {
	l, q := strings.ToLower(strings.TrimSpace(label)), strings.ToLower(strings.TrimSpace(query))
	switch {
	case l == q:
		return 1
	case strings.HasPrefix(l, q):
		return 0.8
	case slices.ContainsFunc(strings.Fields(l), func(w string) bool { return strings.HasPrefix(w, q) }):
		return 0.6
	case strings.Contains(l, q):
		return 0.4
	}
	return 0.2
}

func entityTool(s *Server) *tool {
	surfaceEnum := make([]any, len(surfaces))
	for i, v := range surfaces {
		surfaceEnum[i] = v
	}
	most := 1000
	return &tool{
		name: "entity_resolve", title: "Resolve an entity", readOnly: true,
		description: "Finds what a name refers to across the operator's surfaces (contacts, connections, cards, events: calendar events and the notifications connections sent, relays), best match first; team_members are the members of the operator's teams. A surface the key has no scope for, or that does not exist yet (emails), answers [].",
		input: object([]string{"query"}, map[string]*jsonschema.Schema{
			"query":    {Type: "string", MaxLength: &most, Description: "the name or words to resolve"},
			"surfaces": {Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: surfaceEnum}, Description: "where to look; all when absent"},
			"limit":    limitArg("at most this many per surface", 50),
		}),
		outputSchema: resolvedSchema(),
		run: with(func(ctx context.Context, p *auth.Principal, a struct {
			Query    string   `json:"query"`
			Surfaces []string `json:"surfaces"`
			Limit    int      `json:"limit"`
		}) (any, error) {
			if strings.TrimSpace(a.Query) == "" {
				return nil, apperr.Invalid("query must not be blank")
			}
			if len(a.Surfaces) == 0 {
				a.Surfaces = surfaces
			}
			if a.Limit == 0 {
				a.Limit = 50
			}
			out := resolved{Query: a.Query, Results: map[string][]match{}}
			for _, surface := range surfaces {
				out.Results[surface] = []match{}
			}
			may := func(procedure string) bool {
				pr, ok := s.cfg.Table.ByName(procedure)
				return ok && p.HasScope(pr.Scope)
			}
			for _, surface := range a.Surfaces {
				var (
					found []match
					err   error
				)
				switch {
				case surface == "contacts" && may(c.ContactServiceListContactsProcedure):
					if found, err = s.resolveContacts(ctx, a.Query); err != nil {
						return nil, err
					}
				case surface == "connections" && s.cfg.Network != nil && may(c.NetworkServiceListActiveConnectionsProcedure):
					if found, err = s.resolveConnections(ctx, a.Query); err != nil {
						return nil, err
					}
				case surface == "relays" && s.cfg.Relays != nil && may(c.NetworkRelayServiceListRelaysProcedure):
					if found, err = s.resolveRelays(ctx, a.Query); err != nil {
						return nil, err
					}
				// The notification list is the operator's (no key scope of its
				// own): its events are the network's, so they need its scope.
				case surface == "events":
					// The operator's calendar events (RULINGS "The proactive
					// layer"), then the notifications the network delivered.
					if found, err = s.resolveCalendar(ctx, p.UserID, a.Query); err != nil {
						return nil, err
					}
					if s.cfg.Network != nil && may(c.NetworkServiceListActiveConnectionsProcedure) {
						more, err := s.resolveEvents(ctx, a.Query)
						if err != nil {
							return nil, err
						}
						found = append(found, more...)
					}
				case surface == "team_members" && s.cfg.Teams != nil && may(c.TeamServiceGetTeamProcedure):
					if found, err = s.resolveTeamMembers(ctx, a.Query); err != nil {
						return nil, err
					}
				case surface == "cards" && may(c.KanbanServiceListCardsProcedure):
					res, err := input.Call(ctx, s.cfg.Kanban.ListCards, &switchboardv1.ListCardsRequest{Search: a.Query, Limit: 100})
					if err != nil {
						return nil, err
					}
					for _, row := range res.GetCards() {
						if found, err = appendMatch(found, row.GetId(), row.GetTitle(), a.Query, row); err != nil {
							return nil, err
						}
					}
				}
				slices.SortStableFunc(found, func(x, y match) int { return cmp.Compare(y.Score, x.Score) })
				if len(found) > a.Limit {
					found = found[:a.Limit]
				}
				if found != nil {
					out.Results[surface] = found
				}
			}
			return out, nil
		}),
	}
}

// appendMatch adds one found row, scored and rendered.
func appendMatch(found []match, id, label, query string, row proto.Message) ([]match, error) {
	b, err := asContent(row)
	if err != nil {
		return nil, err
	}
	return append(found, match{Score: score(label, query), ID: id, Label: label, Row: b}), nil
}

// contactPages bounds the scan of a paged list (contacts, notifications):
// the contacts list's search is case-sensitive, so the tool reads the list
// itself and matches without case.
const contactPages = 10

// matchRows adds the rows whose fields hold query, folded, labelled and
// rendered.
func matchRows[T proto.Message](found []match, query string, rows []T, fields func(T) (id, label string, hay []string)) ([]match, error) {
	for _, row := range rows {
		id, label, hay := fields(row)
		if !contains(query, hay...) {
			continue
		}
		var err error
		if found, err = appendMatch(found, id, label, query, row); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// matchPages is matchRows over the first contactPages pages of 100 rows
// that list reads from an offset.
func matchPages[T proto.Message](query string, list func(offset int32) ([]T, error), fields func(T) (id, label string, hay []string)) ([]match, error) {
	var found []match
	for page := range int32(contactPages) {
		rows, err := list(page * 100)
		if err != nil {
			return nil, err
		}
		if found, err = matchRows(found, query, rows, fields); err != nil {
			return nil, err
		}
		if len(rows) < 100 {
			break
		}
	}
	return found, nil
}

// contains reports whether any of fields holds query, folded.
func contains(query string, fields ...string) bool {
	q := strings.ToLower(strings.TrimSpace(query))
	return slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(strings.ToLower(f), q) })
}

// resolveContacts finds contacts whose name, email or company holds query.
func (s *Server) resolveContacts(ctx context.Context, query string) ([]match, error) {
	return matchPages(query, func(offset int32) ([]*switchboardv1.Contact, error) {
		res, err := input.Call(ctx, s.cfg.Contacts.ListContacts, &switchboardv1.ListContactsRequest{Limit: 100, Offset: offset})
		return res.GetContacts(), err
	}, func(c *switchboardv1.Contact) (string, string, []string) {
		return c.GetId(), c.GetName(), []string{c.GetName(), c.GetEmail(), c.GetCompany()}
	})
}

// resolveTeamMembers finds the members of the caller's teams (the first
// contactPages pages of its team list) by name or username, each member
// once (from the newest team that has them) and the caller too; the row is
// the member as GetTeam answers it.
func (s *Server) resolveTeamMembers(ctx context.Context, query string) ([]match, error) {
	var (
		found []match
		seen  = map[string]bool{}
	)
	for page := range int32(contactPages) {
		res, err := input.Call(ctx, s.cfg.Teams.ListTeams, &switchboardv1.ListTeamsRequest{Limit: 100, Offset: page * 100})
		if err != nil {
			return nil, err
		}
		for _, t := range res.GetTeams() {
			detail, err := input.Call(ctx, s.cfg.Teams.GetTeam, &switchboardv1.GetTeamRequest{Id: t.GetId()})
			if err != nil {
				return nil, err
			}
			members := slices.DeleteFunc(detail.GetMembers(), func(m *switchboardv1.TeamMember) bool {
				fresh := !seen[m.GetMemberId()]
				seen[m.GetMemberId()] = true
				return !fresh
			})
			if found, err = matchRows(found, query, members, func(m *switchboardv1.TeamMember) (string, string, []string) {
				return m.GetMemberId(), m.GetName(), []string{m.GetName(), m.GetUsername()}
			}); err != nil {
				return nil, err
			}
		}
		if len(res.GetTeams()) < 100 {
			break
		}
	}
	return found, nil
}

// resolveConnections finds the operator's active connections (what a key
// may list) by the peer's name, email, instance name or address; the label
// is the peer's name (its email when it has none).
func (s *Server) resolveConnections(ctx context.Context, query string) ([]match, error) {
	res, err := input.Call(ctx, s.cfg.Network.ListActiveConnections, &switchboardv1.ListActiveConnectionsRequest{})
	if err != nil {
		return nil, err
	}
	return matchRows(nil, query, res.GetConnections(), func(c *switchboardv1.NetworkConnection) (string, string, []string) {
		return c.GetId(), cmp.Or(c.GetPeerUserName(), c.GetPeerUserEmail()),
			[]string{c.GetPeerUserName(), c.GetPeerUserEmail(), c.GetPeerInstanceName(), c.GetPeerInstanceUrl()}
	})
}

// resolveRelays finds the operator's relays (sent and received, the newest
// the relay list holds) by subject, the label, or by their payload.
func (s *Server) resolveRelays(ctx context.Context, query string) ([]match, error) {
	res, err := input.Call(ctx, s.cfg.Relays.ListRelays, &switchboardv1.ListRelaysRequest{})
	if err != nil {
		return nil, err
	}
	return matchRows(nil, query, res.GetRelays(), func(r *switchboardv1.Relay) (string, string, []string) {
		return r.GetId(), r.GetSubject(), append(texts(nil, structpb.NewStructValue(r.GetPayload())), r.GetSubject())
	})
}

// texts appends the strings a payload holds (its values, not its keys).
func texts(out []string, v *structpb.Value) []string {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		out = append(out, k.StringValue)
	case *structpb.Value_StructValue:
		for _, f := range k.StructValue.GetFields() {
			out = texts(out, f)
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			out = texts(out, e)
		}
	}
	return out
}

// resolveCalendar finds the operator's calendar events by title, location
// or attendee, the title the label.
func (s *Server) resolveCalendar(ctx context.Context, userID, query string) ([]match, error) {
	if s.cfg.Calendar == nil {
		return nil, nil
	}
	events, err := s.cfg.Calendar.Matching(ctx, userID, query)
	if err != nil {
		return nil, err
	}
	var found []match
	for _, ev := range events {
		if found, err = appendMatch(found, ev.GetId(), ev.GetTitle(), query, ev); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// resolveEvents finds the notifications connections sent the operator by
// title, the label, or by body and sender, newest first.
func (s *Server) resolveEvents(ctx context.Context, query string) ([]match, error) {
	return matchPages(query, func(offset int32) ([]*switchboardv1.Notification, error) {
		res, err := input.Call(ctx, s.cfg.Network.ListNotifications, &switchboardv1.ListNotificationsRequest{Limit: 100, Offset: offset})
		return res.GetNotifications(), err
	}, func(n *switchboardv1.Notification) (string, string, []string) {
		return n.GetId(), n.GetTitle(), []string{n.GetTitle(), n.GetBody(), n.GetFromUserName(), n.GetFromUserEmail()}
	})
}
