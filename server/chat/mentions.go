package chat

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/profiles"
)

// MentionTypes are the values of ListMentions' type (chat.proto).
var MentionTypes = vocab.Values("mention_kind")

const (
	// MentionLimit caps every answer: the list feeds an input's drop-down.
	// (q's length is the contract's: 1,000 characters.)
	MentionLimit = 20
)

// Command is one action tag an operator can type after "/" in the chat.
type Command struct{ Name, Description string }

// Commands is every documented action tag (docs/decisions.md "Shared chat
// and events"): the queue's action tags used from chat, then the store's,
// decompose_task once. The mention list offers those the instance runs.
var Commands = []Command{
	{"dispatch_queue", "Add a task to the queue (title, type)"},
	{"queue_capability_action", "Act on a capability for a queued task (capabilityType, action)"},
	{"suggest_marketplace", "Suggest store agents when no handler exists (search, category)"},
	{"confirm_queue_item", "Confirm a queue item waiting for confirmation (id)"},
	{"remove_queue_item", "Remove a queue item (id)"},
	{"edit_queue_item", "Edit a queue item (id, title, description, priority)"},
	{"decompose_task", "Split a task into subtasks (parentId, subtasks)"},
	{"create_card", "Create a kanban card"},
	{"link_cards", "Link two cards (fromCardId, toCardId, linkType)"},
	{"create_project", "Create a project"},
	{"invite_to_project", "Invite someone to a project"},
	{"assign_team_to_project", "Assign a team to a project"},
	{"show_google_connect", "Offer to connect a Google account (identity, label, description)"},
	{"show_settings_widget", "Show a settings widget (working_style, triage, goals, identity, all)"},
	{"complete_checklist", "Complete a checklist item"},
	{"create_checklist", "Create a checklist"},
	{"generate_image", "Generate an image (prompt, aspect, style, numImages, model)"},
	{"declare_capability", "Declare a capability you offer"},
	{"find_providers", "Find providers for a capability"},
	{"hire_provider", "Hire a provider for a scoped project"},
	{"submit_deliverable", "Submit a deliverable for a project"},
	{"close_project", "Close a project and capture its payment"},
	{"submit_project_review", "Review a closed project"},
	{"list_my_capabilities", "List the capabilities you declared"},
	{"remove_capability", "Remove a declared capability"},
	{"project_update", "Post an update to a project"},
	{"request_info", "Ask a project's other party for information"},
	{"add_project_scope", "Add scope to a project"},
	{"suggest_close_project", "Suggest closing a project"},
	{"dispute_project", "Dispute a project"},
	{"manage_review_visibility", "Show or hide a project review"},
}

// ListMentions suggests what "@" and "/" complete to, from what the caller
// may see (docs/decisions.md "Shared chat and events").
func (s *Service) ListMentions(ctx context.Context, req *switchboardv1.ListMentionsRequest) (*switchboardv1.ListMentionsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetType() == "" {
		return nil, apperr.Invalid("type is required: one of %s", strings.Join(MentionTypes, ", "))
	}
	if err := apperr.OneOf("type", req.GetType(), MentionTypes); err != nil {
		return nil, err
	}
	needle, err := parseQuery(req.GetQ())
	if err != nil {
		return nil, err
	}
	m := matcher{dia: s.DB.Dialect, needle: needle}
	var found []ranked
	switch req.GetType() {
	case "people":
		found, err = s.people(ctx, m, p.UserID)
	case "agents":
		found, err = s.agents(ctx, m, p.UserID)
	case "teams":
		found, err = s.teams(ctx, m, p.UserID)
	case "commands":
		found = commands(m, s.commandList())
	}
	// channels: none exist.
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListMentionsResponse{Results: top(found)}, nil
}

// parseQuery trims q and folds it the way the columns are folded.
func parseQuery(q string) (string, error) {
	q = strings.TrimSpace(q)
	switch {
	case !utf8.ValidString(q):
		return "", apperr.Invalid("q is not valid UTF-8")
	case strings.ContainsRune(q, 0):
		return "", apperr.Invalid("q must not contain NUL characters")
	}
	return db.FoldASCII(q), nil
}

// ranked is a result and its tier: 0 when a leading field (a name or handle)
// starts with q, 1 when q only occurs inside a field.
type ranked struct {
	tier int
	m    *switchboardv1.Mention
}

// tier ranks one result in Go exactly as matcher.order ranks it in SQL.
func tier(needle string, leading ...string) int {
	for _, f := range leading {
		if strings.HasPrefix(db.FoldASCII(f), needle) {
			return 0
		}
	}
	return 1
}

// top orders results by tier, then name and id in code-point order (what the
// SQL sorts by), and keeps the first MentionLimit.
func top(found []ranked) []*switchboardv1.Mention {
	slices.SortFunc(found, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), strings.Compare(a.m.Name, b.m.Name), strings.Compare(a.m.Id, b.m.Id))
	})
	out := make([]*switchboardv1.Mention, 0, min(len(found), MentionLimit))
	for _, r := range found[:min(len(found), MentionLimit)] {
		out = append(out, r.m)
	}
	return out
}

// people are the instance's other accounts, the caller's own contacts and
// the peer users of the caller's active connections (RULINGS "Mentions
// sources"). Each source answers its own first MentionLimit in the final
// order, so the merged first MentionLimit is exact.
func (s *Service) people(ctx context.Context, m matcher, userID string) ([]ranked, error) {
	users, err := s.DB.User.Query().
		Where(user.IDNEQ(userID), m.where(user.FieldName, user.FieldUsername)).
		Order(m.order(user.FieldName, user.FieldID, user.FieldName, user.FieldUsername)).
		Limit(MentionLimit).
		Select(user.FieldID, user.FieldName, user.FieldUsername, user.FieldAvatar).
		All(ctx)
	if err != nil {
		return nil, err
	}
	contacts, err := s.DB.Contact.Query().
		Where(contact.UserID(userID), m.where(contact.FieldName, contact.FieldEmail, contact.FieldCompany)).
		Order(m.order(contact.FieldName, contact.FieldID, contact.FieldName)).
		Limit(MentionLimit).
		Select(contact.FieldID, contact.FieldName, contact.FieldEmail, contact.FieldCompany).
		All(ctx)
	if err != nil {
		return nil, err
	}
	peers, err := s.DB.NetworkConnection.Query().
		Where(networkconnection.UserID(userID), networkconnection.StatusEQ(networkconnection.StatusActive),
			m.where(networkconnection.FieldPeerUserName, networkconnection.FieldPeerUserEmail)).
		Order(m.order(networkconnection.FieldPeerUserName, networkconnection.FieldID, networkconnection.FieldPeerUserName)).
		Limit(MentionLimit).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ranked, 0, len(users)+len(contacts)+len(peers))
	for _, u := range users {
		out = append(out, ranked{tier(m.needle, u.Name, u.Username), &switchboardv1.Mention{
			Id: u.ID, Name: u.Name, Avatar: u.Avatar, Subtitle: ptr("@" + u.Username), Type: "person",
		}})
	}
	for _, c := range contacts {
		out = append(out, ranked{tier(m.needle, c.Name), &switchboardv1.Mention{
			Id: c.ID, Name: c.Name, Subtitle: firstSet(c.Company, c.Email), Type: "person",
		}})
	}
	// A connection's peer: its id is the connection's, its subtitle the
	// peer as user@host.
	for _, c := range peers {
		name := cmp.Or(c.PeerUserName, c.PeerUserEmail)
		out = append(out, ranked{tier(m.needle, name), &switchboardv1.Mention{
			Id: c.ID, Name: name, Subtitle: ptr(handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)), Type: "person",
		}})
	}
	return out, nil
}

// agents are the active store listings the caller owns or has installed.
func (s *Service) agents(ctx context.Context, m matcher, userID string) ([]ranked, error) {
	rows, err := s.DB.StoreAgent.Query().
		Where(storeagent.Or(storeagent.UserID(userID), storeagent.HasInstallsWith(storeinstall.UserID(userID))),
			storeagent.StatusEQ(storeagent.StatusActive),
			m.where(storeagent.FieldName, storeagent.FieldSlug)).
		Order(m.order(storeagent.FieldName, storeagent.FieldID, storeagent.FieldName, storeagent.FieldSlug)).
		Limit(MentionLimit).
		Select(storeagent.FieldID, storeagent.FieldName, storeagent.FieldSlug).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ranked, 0, len(rows))
	for _, a := range rows {
		out = append(out, ranked{tier(m.needle, a.Name, a.Slug), &switchboardv1.Mention{
			Id: a.ID, Name: a.Name, Subtitle: ptr("@" + a.Slug), Type: "agent",
		}})
	}
	return out, nil
}

// teams are the teams the caller sees (RULINGS "Teams, projects, invites,
// profiles": mentions list teams whose visibility allows it): those it is a
// member of, whatever their visibility, and those every signed-in user here
// sees (public and network), by name or handle; each with its member count.
func (s *Service) teams(ctx context.Context, m matcher, userID string) ([]ranked, error) {
	rows, err := s.DB.Team.Query().
		Where(team.Or(profiles.TeamsSeen(profiles.Network), team.HasMembersWith(teammember.UserID(userID))),
			m.where(team.FieldName, team.FieldHandle)).
		Order(m.order(team.FieldName, team.FieldID, team.FieldName, team.FieldHandle)).
		Limit(MentionLimit).
		All(ctx)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, t := range rows {
		ids[i] = t.ID
	}
	var counts []struct {
		TeamID string `json:"team_id"`
		Count  int    `json:"count"`
	}
	if err := s.DB.TeamMember.Query().Where(teammember.TeamIDIn(ids...)).GroupBy(teammember.FieldTeamID).
		Aggregate(ent.Count()).Scan(ctx, &counts); err != nil {
		return nil, err
	}
	members := map[string]int32{}
	for _, c := range counts {
		members[c.TeamID] = int32(c.Count)
	}
	out := make([]ranked, 0, len(rows))
	for _, t := range rows {
		n := members[t.ID]
		out = append(out, ranked{tier(m.needle, t.Name, t.Handle), &switchboardv1.Mention{
			Id: t.ID, Name: t.Name, Avatar: t.AvatarURL, Subtitle: ptr("@" + t.Handle), Type: "team", MemberCount: &n,
		}})
	}
	return out, nil
}

// commandList is the action tags the mention list offers.
func (s *Service) commandList() []Command {
	if s.Available == nil {
		return Commands
	}
	return s.Available()
}

// commands matches the action-tag list by name and description.
func commands(m matcher, list []Command) []ranked {
	var out []ranked
	for _, c := range list {
		if !strings.Contains(c.Name, m.needle) && !strings.Contains(db.FoldASCII(c.Description), m.needle) {
			continue
		}
		out = append(out, ranked{tier(m.needle, c.Name), &switchboardv1.Mention{
			Id: c.Name, Name: c.Name, Subtitle: ptr(c.Description), Type: "command",
		}})
	}
	return out
}

func ptr(s string) *string { return &s }

// firstSet answers the first value that is set and not empty, or nil.
func firstSet(vals ...*string) *string {
	for _, v := range vals {
		if v != nil && *v != "" {
			return v
		}
	}
	return nil
}

// matcher writes the SQL of one folded needle: ASCII case folding on both
// databases, the needle always a bound parameter (no LIKE wildcards).
type matcher struct{ dia, needle string }

func (m matcher) pg() bool { return m.dia == dialect.Postgres }

// position writes the 1-based position of the needle in the folded column, 0
// when absent.
func (m matcher) position(b *sql.Builder, col string) { db.FoldedPosition(b, m.dia, col, m.needle) }

// where keeps rows where any of cols contains the needle (every row when
// the needle is empty). NULL columns never match.
func (m matcher) where(cols ...string) func(*sql.Selector) {
	return db.ContainsFolded(m.dia, m.needle, cols...)
}

// order sorts by tier (any of leading starts with the needle first), then
// name and id in code-point order, as top does.
func (m matcher) order(name, id string, leading ...string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if m.needle != "" {
			// ExprFunc, not OrderExprFunc, which drops the bound needle.
			s.OrderExpr(sql.ExprFunc(func(b *sql.Builder) {
				b.WriteString("CASE WHEN ")
				for i, c := range leading {
					if i > 0 {
						b.WriteString(" OR ")
					}
					m.position(b, s.C(c))
					b.WriteString(" = 1")
				}
				b.WriteString(" THEN 0 ELSE 1 END")
			}))
		}
		collate := ""
		if m.pg() {
			collate = ` COLLATE "C"`
		}
		s.OrderExpr(sql.Expr(s.C(name)+collate), sql.Expr(s.C(id)+collate))
	}
}
