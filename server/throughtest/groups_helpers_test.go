package throughtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The teams and projects of issue 28 (server/groups): TeamService and
// ProjectService through the whole server (RULINGS "Teams, projects, invites,
// profiles"; docs/decisions.md, "Teams and projects (issue 28)").

// groupsFixture is a server whose first account (boss, the instance admin) is
// left alone, and seven ordinary accounts: the role tables hand them roles.
type groupsFixture struct {
	s                                 *servertest.Server
	ann, bob, cat, dan, eve, fay, gus *servertest.Account
	seq                               atomic.Int64
}

// newGroups starts the server; call it after t.Parallel(), so that a test
// waiting for its turn holds no server (on PostgreSQL, each holds
// connections of the server's 100).
func newGroups(t *testing.T, opts ...servertest.Option) *groupsFixture {
	t.Helper()
	s := servertest.New(t, opts...)
	s.SignUp("boss") // the instance admin: no account below may owe a right to it
	f := &groupsFixture{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob"), cat: s.SignUp("cat"), dan: s.SignUp("dan"),
		eve: s.SignUp("eve"), fay: s.SignUp("fay"), gus: s.SignUp("gus")}
	return f
}

// name answers a fresh name, so each team gets its own default handle.
func (f *groupsFixture) name(prefix string) string {
	return fmt.Sprintf("%s %d", prefix, f.seq.Add(1))
}

// ok checks a successful REST answer and answers its JSON.
func wantOK(t *testing.T, res *servertest.Response, status int) map[string]any {
	t.Helper()
	servertest.WantStatus(t, res, status)
	return res.JSON(t)
}

// obj walks a JSON answer down keys to an object.
func jsonObj(t *testing.T, v any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		m, isMap := v.(map[string]any)
		if !isMap {
			t.Fatalf("no object at %q in %v", k, v)
		}
		v = m[k]
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		t.Fatalf("not an object at %v: %v", keys, v)
	}
	return m
}

// list walks a JSON answer down keys to an array.
func jsonList(t *testing.T, v any, keys ...string) []any {
	t.Helper()
	for _, k := range keys {
		m, isMap := v.(map[string]any)
		if !isMap {
			t.Fatalf("no object at %q in %v", k, v)
		}
		v = m[k]
	}
	l, isList := v.([]any)
	if !isList {
		t.Fatalf("not an array at %v: %v", keys, v)
	}
	return l
}

// createTeam makes a team as a over REST and answers it.
func (f *groupsFixture) createTeam(t *testing.T, a *servertest.Account, body map[string]any) map[string]any {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	if body["name"] == nil {
		body["name"] = f.name("Team")
	}
	return jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/teams", body), http.StatusCreated), "team")
}

// addTeamMember adds who to the team as a (owner or admin) with role.
func (f *groupsFixture) addTeamMember(t *testing.T, a *servertest.Account, teamID string, who *servertest.Account, role string) map[string]any {
	t.Helper()
	body := map[string]any{"userId": who.ID}
	if role != "" {
		body["role"] = role
	}
	return jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/members", body), http.StatusCreated), "member")
}

// getTeam answers GET /api/teams/{id} as a.
func (f *groupsFixture) getTeam(t *testing.T, a *servertest.Account, id string) map[string]any {
	t.Helper()
	return wantOK(t, a.Session.Do(http.MethodGet, "/api/teams/"+id, nil), http.StatusOK)
}

// createProject makes a project as a over REST and answers it.
func (f *groupsFixture) createProject(t *testing.T, a *servertest.Account, body map[string]any) map[string]any {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	if body["name"] == nil {
		body["name"] = f.name("Project")
	}
	return jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/projects", body), http.StatusCreated), "project")
}

// addProjectMember adds who to the project as a (lead or contributor).
func (f *groupsFixture) addProjectMember(t *testing.T, a *servertest.Account, projectID string, who *servertest.Account, role string) map[string]any {
	t.Helper()
	body := map[string]any{"userId": who.ID}
	if role != "" {
		body["role"] = role
	}
	return jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/projects/"+projectID+"/members", body), http.StatusCreated), "member")
}

// getProject answers GET /api/projects/{id} as a.
func (f *groupsFixture) getProject(t *testing.T, a *servertest.Account, id string) map[string]any {
	t.Helper()
	return wantOK(t, a.Session.Do(http.MethodGet, "/api/projects/"+id, nil), http.StatusOK)
}

// roles maps each member's id to its role (and "via" when the list has it).
func memberRoles(t *testing.T, members []any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range members {
		m := m.(map[string]any)
		r, _ := m["role"].(string)
		if via, has := m["via"].(string); has {
			r += "/" + via
		}
		out[m["memberId"].(string)] = r
	}
	return out
}

// projectMembers answers the project's members as lead sees them: id →
// "role/via".
func (f *groupsFixture) projectMembers(t *testing.T, lead *servertest.Account, id string) map[string]string {
	t.Helper()
	return memberRoles(t, jsonList(t, f.getProject(t, lead, id), "members"))
}

// queueItems answers a's queue as a sees it over REST.
func queueItems(t *testing.T, a *servertest.Account) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/v2/queue?limit=100", nil), http.StatusOK), "data", "items") {
		out = append(out, it.(map[string]any))
	}
	return out
}

// inviteItem answers a's queue item for the project invite, nil if none.
func inviteItem(t *testing.T, a *servertest.Account, inviteID string) map[string]any {
	t.Helper()
	for _, it := range queueItems(t, a) {
		raw, _ := it["metadata"].(string)
		var md map[string]any
		if raw != "" && json.Unmarshal([]byte(raw), &md) == nil && md["projectInviteId"] == inviteID {
			return it
		}
	}
	return nil
}

// groupTeamActivity answers a's activity of the teams category, oldest first.
func groupTeamActivity(t *testing.T, s *servertest.Server, userID string) []string {
	t.Helper()
	es, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(userID), activityentry.Category("teams")).
		Order(ent.Asc(activityentry.FieldCreatedAt), ent.Asc(activityentry.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Action)
	}
	return out
}

// groupRows counts the rows of every table a team or project write may
// touch: a refusal changes none of them.
func (f *groupsFixture) groupRows(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	c := f.s.DB.Client
	n := func(k int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	return fmt.Sprintf("teams=%d teamMembers=%d teamInvites=%d projects=%d projectMembers=%d projectInvites=%d queue=%d cards=%d chat=%d activity=%d",
		n(c.Team.Query().Count(ctx)), n(c.TeamMember.Query().Count(ctx)), n(c.TeamInvite.Query().Count(ctx)),
		n(c.Project.Query().Count(ctx)), n(c.ProjectMember.Query().Count(ctx)), n(c.ProjectInvite.Query().Count(ctx)),
		n(c.QueueItem.Query().Count(ctx)), n(c.Card.Query().Count(ctx)), n(c.ChatMessage.Query().Count(ctx)),
		n(c.ActivityEntry.Query().Count(ctx)))
}

// seen is what accounts see of their teams and projects through the API:
// every list and detail, with their members and invites, as one string.
func (f *groupsFixture) seen(t *testing.T, as ...*servertest.Account) string {
	t.Helper()
	var b strings.Builder
	for _, a := range as {
		teams := jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/teams?limit=100", nil), http.StatusOK), "teams")
		fmt.Fprintf(&b, "%s: %d teams\n", a.Username, len(teams))
		for _, tm := range teams {
			id := tm.(map[string]any)["id"].(string)
			b.Write(a.Session.Do(http.MethodGet, "/api/teams/"+id, nil).Body)
			b.Write(a.Session.Do(http.MethodGet, "/api/teams/"+id+"/invites", nil).Body)
		}
		projects := jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/projects?limit=100", nil), http.StatusOK), "projects")
		fmt.Fprintf(&b, "%s: %d projects\n", a.Username, len(projects))
		for _, p := range projects {
			id := p.(map[string]any)["id"].(string)
			b.Write(a.Session.Do(http.MethodGet, "/api/projects/"+id, nil).Body)
		}
	}
	return b.String()
}

// teamClient and projectClient are Connect clients with a's session cookie.
func teamClient(s *servertest.Server, a *servertest.Account, protocol string) switchboardv1connect.TeamServiceClient {
	hc := &http.Client{Jar: a.Jar, Transport: s.Client(protocol).Transport, Timeout: s.HTTP.Timeout}
	return switchboardv1connect.NewTeamServiceClient(hc, s.URL, servertest.Protocols()[protocol]...)
}

func projectClient(s *servertest.Server, a *servertest.Account, protocol string) switchboardv1connect.ProjectServiceClient {
	hc := &http.Client{Jar: a.Jar, Transport: s.Client(protocol).Transport, Timeout: s.HTTP.Timeout}
	return switchboardv1connect.NewProjectServiceClient(hc, s.URL, servertest.Protocols()[protocol]...)
}

// keyedTeamClient and keyedProjectClient call with an API key.
func keyedTeamClient(s *servertest.Server, key, protocol string) switchboardv1connect.TeamServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewTeamServiceClient(s.Client(protocol), s.URL, opts...)
}

func keyedProjectClient(s *servertest.Server, key, protocol string) switchboardv1connect.ProjectServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewProjectServiceClient(s.Client(protocol), s.URL, opts...)
}

// groupRoute is where an RPC lives on REST: its method, its path template,
// and its body (the whole message "*", one field such as "card", or none: the
// fields outside the path go in the query).
type groupRoute struct {
	service, method, path, body string
}

var groupRoutes = map[string]groupRoute{
	"CreateTeam":          {"TeamService", http.MethodPost, "/api/teams", "*"},
	"ListTeams":           {"TeamService", http.MethodGet, "/api/teams", ""},
	"GetTeam":             {"TeamService", http.MethodGet, "/api/teams/{id}", ""},
	"UpdateTeam":          {"TeamService", http.MethodPut, "/api/teams/{id}", "*"},
	"DeleteTeam":          {"TeamService", http.MethodDelete, "/api/teams/{id}", ""},
	"AddTeamMember":       {"TeamService", http.MethodPost, "/api/teams/{id}/members", "*"},
	"RemoveTeamMember":    {"TeamService", http.MethodDelete, "/api/teams/{id}/members", ""},
	"CreateTeamInvite":    {"TeamService", http.MethodPost, "/api/teams/{id}/invites", "*"},
	"ListTeamInvites":     {"TeamService", http.MethodGet, "/api/teams/{id}/invites", ""},
	"PreviewTeamInvite":   {"TeamService", http.MethodGet, "/api/teams/invite/{token}", ""},
	"AnswerTeamInvite":    {"TeamService", http.MethodPost, "/api/teams/invite/{token}", "*"},
	"AssignTeamProject":   {"TeamService", http.MethodPost, "/api/teams/{id}/projects", "*"},
	"ListTeamProjects":    {"TeamService", http.MethodGet, "/api/teams/{id}/projects", ""},
	"UnassignTeamProject": {"TeamService", http.MethodDelete, "/api/teams/{id}/projects", ""},
	"CreateProject":       {"ProjectService", http.MethodPost, "/api/projects", "*"},
	"ListProjects":        {"ProjectService", http.MethodGet, "/api/projects", ""},
	"GetProject":          {"ProjectService", http.MethodGet, "/api/projects/{id}", ""},
	"UpdateProject":       {"ProjectService", http.MethodPut, "/api/projects/{id}", "*"},
	"InviteToProject":     {"ProjectService", http.MethodPost, "/api/projects/{id}/invite", "*"},
	"ListProjectInvites":  {"ProjectService", http.MethodGet, "/api/projects/{id}/invite", ""},
	"AnswerProjectInvite": {"ProjectService", http.MethodPatch, "/api/project-invites", "*"},
	"AddProjectMember":    {"ProjectService", http.MethodPost, "/api/projects/{id}/members", "*"},
	"RemoveProjectMember": {"ProjectService", http.MethodDelete, "/api/projects/{id}/members", ""},
	// The project scope on the queue and the board.
	"CreateQueueItem": {"QueueService", http.MethodPost, "/api/v2/queue", "*"},
	"UpdateQueueItem": {"QueueService", http.MethodPut, "/api/v2/queue/{id}", "*"},
	"CreateCard":      {"KanbanService", http.MethodPost, "/api/v2/kanban", "card"},
	"UpdateCard":      {"KanbanService", http.MethodPut, "/api/v2/kanban/{id}", "card"},
}

// groupCall is one RPC with its request message as Connect's JSON has it.
type groupCall struct {
	rpc string
	msg map[string]any
}

func (c groupCall) String() string { return fmt.Sprintf("%s %v", c.rpc, c.msg) }

var routeVar = regexp.MustCompile(`\{([a-z_]+)\}`)

// rest sends c over REST: path variables from the message, the rest in the
// body or the query as the route has it.
func (c groupCall) rest(caller *servertest.Caller) *servertest.Response {
	r, known := groupRoutes[c.rpc]
	if !known {
		panic("no REST route for " + c.rpc)
	}
	rest := map[string]any{}
	for k, v := range c.msg {
		rest[k] = v
	}
	path := routeVar.ReplaceAllStringFunc(r.path, func(m string) string {
		k := m[1 : len(m)-1]
		v := fmt.Sprint(rest[k])
		delete(rest, k)
		return url.PathEscape(v)
	})
	switch r.body {
	case "*":
		return caller.Do(r.method, path, rest)
	case "":
		q := url.Values{}
		for k, v := range rest {
			q.Set(k, fmt.Sprint(v))
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		return caller.Do(r.method, path, nil)
	default:
		return caller.Do(r.method, path, rest[r.body])
	}
}

// connectJSON sends c over Connect's unary protocol in JSON, with the
// caller's credentials, and answers the status and the error's code ("" on
// success).
func (c groupCall) connectJSON(t *testing.T, caller *servertest.Caller) (*servertest.Response, string) {
	t.Helper()
	r := groupRoutes[c.rpc]
	res := caller.Do(http.MethodPost, "/switchboard.v1."+r.service+"/"+c.rpc, c.msg, "Connect-Protocol-Version", "1")
	if res.Status == http.StatusOK {
		return res, ""
	}
	var e struct{ Code string }
	if err := json.Unmarshal(res.Body, &e); err != nil || e.Code == "" {
		t.Fatalf("Connect %s: %d %s is no Connect error", c, res.Status, res.Body)
	}
	return res, e.Code
}

// connectCode is the Connect code of a REST status (docs/decisions.md
// "Errors"; RULINGS Reconciliation 10: 410 is failed_precondition).
func connectCode(status int) string {
	switch status {
	case http.StatusOK, http.StatusCreated:
		return ""
	case http.StatusBadRequest:
		return "invalid_argument"
	case http.StatusUnauthorized:
		return "unauthenticated"
	case http.StatusForbidden:
		return "permission_denied"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusConflict:
		return "already_exists"
	case http.StatusGone:
		return "failed_precondition"
	}
	return fmt.Sprintf("status %d", status)
}

// outcome is an expected answer: the REST status and, for a refusal the spec
// gives one, the REST body's code (not checked when empty).
type outcome struct {
	status int
	code   string
}

// check checks c's answer on the transport: REST's status (and the error body
// with its code) or Connect's code.
func (o outcome) check(t *testing.T, transport string, c groupCall, caller *servertest.Caller) *servertest.Response {
	t.Helper()
	if transport == "connect" {
		res, code := c.connectJSON(t, caller)
		if code != connectCode(o.status) {
			t.Errorf("Connect %s: %d %s, want %s", c, res.Status, res.Body, connectCode(o.status))
		}
		if o.code != "" && !strings.Contains(string(res.Body), o.code) {
			t.Errorf("Connect %s: %s lacks %s", c, res.Body, o.code)
		}
		return res
	}
	res := c.rest(caller)
	if res.Status != o.status {
		t.Errorf("REST %s: %d %s, want %d", c, res.Status, res.Body, o.status)
		return res
	}
	if o.status >= 400 {
		b := res.JSON(t)
		if b["success"] != false || b["error"] == nil || b["error"] == "" {
			t.Errorf("REST %s: error body %s", c, res.Body)
		}
		if got, _ := b["code"].(string); o.code != "" && got != o.code {
			t.Errorf("REST %s: code %q, want %q: %s", c, got, o.code, res.Body)
		}
	}
	return res
}

var groupTransports = []string{"REST", "connect"}

// tokenShape is a 32-byte token in base64url without padding.
var tokenShape = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
