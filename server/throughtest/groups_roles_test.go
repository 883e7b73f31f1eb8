package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The role tables (RULINGS "Teams, projects, invites, profiles", its
// "Details" and Reconciliation 2): every team route for the owner, an admin,
// a member and a non-member, and every project route for the lead, a
// contributor, a reviewer, an observer and a non-member, on REST and on
// Connect. Each cell runs against a fresh team or project, so that what one
// cell changes (a delete, a removal) cannot decide another. A refusal writes
// nothing.

// roleCell is one route of a role table: prepare makes what the call needs
// (as the actor, when it must be the actor's own) and answers the call.
type roleCell struct {
	name string
	call func(t *testing.T, f *groupsFixture, id string, actor *servertest.Account) groupCall
	want []outcome // one per actor, in the table's order
}

var (
	ok200, ok201  = outcome{status: http.StatusOK}, outcome{status: http.StatusCreated}
	bad400        = outcome{status: http.StatusBadRequest}
	forbidden403  = outcome{status: http.StatusForbidden}
	notFound404   = outcome{status: http.StatusNotFound}
	conflict409   = outcome{status: http.StatusConflict}
	groupOutcomes = map[int]outcome{200: ok200, 201: ok201, 400: bad400, 403: forbidden403, 404: notFound404, 409: conflict409}
)

// expect spells a table row's outcomes as statuses.
func expect(statuses ...int) []outcome {
	out := make([]outcome, len(statuses))
	for i, s := range statuses {
		out[i] = groupOutcomes[s]
	}
	return out
}

// newTeamRig is a fresh team: ann its owner, bob an admin, cat and eve
// members; dan is no member.
func (f *groupsFixture) newTeamRig(t *testing.T) string {
	t.Helper()
	id := f.createTeam(t, f.ann, nil)["id"].(string)
	f.addTeamMember(t, f.ann, id, f.bob, "admin")
	f.addTeamMember(t, f.ann, id, f.cat, "member")
	f.addTeamMember(t, f.ann, id, f.eve, "")
	return id
}

func idOf(m map[string]any) string { return m["id"].(string) }

func TestTeamRoleTable(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	actors := []struct {
		role string
		who  *servertest.Account
	}{{"owner", f.ann}, {"admin", f.bob}, {"member", f.cat}, {"non-member", f.dan}}
	team := func(rpc string, extra map[string]any) func(*testing.T, *groupsFixture, string, *servertest.Account) groupCall {
		return func(_ *testing.T, _ *groupsFixture, teamID string, _ *servertest.Account) groupCall {
			msg := map[string]any{"id": teamID}
			for k, v := range extra {
				msg[k] = v
			}
			return groupCall{rpc, msg}
		}
	}
	cells := []roleCell{
		{"get", team("GetTeam", nil), expect(200, 200, 200, 404)},
		{"list invites", team("ListTeamInvites", nil), expect(200, 200, 200, 404)},
		{"list projects", team("ListTeamProjects", nil), expect(200, 200, 200, 404)},
		{"update", team("UpdateTeam", map[string]any{"description": "Changed"}), expect(200, 200, 403, 404)},
		{"update visibility", team("UpdateTeam", map[string]any{"visibility": "private"}), expect(200, 200, 403, 404)},
		// ownerId: owner only, to an admin (bob); an admin sending it is 403.
		{"transfer ownership to the admin", team("UpdateTeam", map[string]any{"ownerId": f.bob.ID}), expect(200, 403, 403, 404)},
		{"delete", team("DeleteTeam", nil), expect(200, 403, 403, 404)},
		{"add a member", team("AddTeamMember", map[string]any{"userId": f.gus.ID}), expect(201, 201, 403, 404)},
		{"add an admin by email", team("AddTeamMember", map[string]any{"email": f.gus.Email, "role": "admin"}), expect(201, 201, 403, 404)},
		{"remove another member", team("RemoveTeamMember", map[string]any{"memberId": f.eve.ID}), expect(200, 200, 403, 404)},
		// A member may remove themselves (leave); the owner cannot be removed.
		{"remove oneself", func(_ *testing.T, _ *groupsFixture, teamID string, actor *servertest.Account) groupCall {
			return groupCall{"RemoveTeamMember", map[string]any{"id": teamID, "memberId": actor.ID}}
		}, expect(403, 200, 200, 404)},
		{"remove the owner", team("RemoveTeamMember", map[string]any{"memberId": f.ann.ID}), expect(403, 403, 403, 404)},
		{"invite by link", team("CreateTeamInvite", nil), expect(201, 201, 403, 404)},
		{"invite by email", team("CreateTeamInvite", map[string]any{"email": f.gus.Email, "role": "admin", "message": "Join us"}), expect(201, 201, 403, 404)},
		{"invite by userId", team("CreateTeamInvite", map[string]any{"userId": f.gus.ID}), expect(201, 201, 403, 404)},
		// The actor leads the project: only the team side decides.
		{"assign a project the actor leads", func(t *testing.T, f *groupsFixture, teamID string, actor *servertest.Account) groupCall {
			p := f.createProject(t, actor, nil)
			return groupCall{"AssignTeamProject", map[string]any{"id": teamID, "projectId": idOf(p)}}
		}, expect(200, 200, 403, 404)},
		// Unassigning needs the same rights: the admin unassigns a project it
		// leads and assigned; the member and the non-member try ann's.
		{"unassign", func(t *testing.T, f *groupsFixture, teamID string, actor *servertest.Account) groupCall {
			lead := f.ann
			if actor == f.bob {
				lead = f.bob
			}
			p := f.createProject(t, lead, nil)
			wantOK(t, lead.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/projects", map[string]any{"projectId": idOf(p)}), http.StatusOK)
			return groupCall{"UnassignTeamProject", map[string]any{"id": teamID, "projectId": idOf(p)}}
		}, expect(200, 200, 403, 404)},
	}
	for _, c := range cells {
		for i, a := range actors {
			for _, tr := range groupTransports {
				t.Run(c.name+"/"+a.role+"/"+tr, func(t *testing.T) {
					teamID := f.newTeamRig(t)
					cl := c.call(t, f, teamID, a.who)
					before := f.groupRows(t)
					c.want[i].check(t, tr, cl, a.who.Session)
					if c.want[i].status >= 400 {
						if after := f.groupRows(t); after != before {
							t.Errorf("the refusal wrote: %s → %s", before, after)
						}
					}
				})
			}
		}
	}
}

// newProjectRig is a fresh project: ann its lead, bob and fay contributors,
// cat a reviewer, dan an observer; eve is no member.
func (f *groupsFixture) newProjectRig(t *testing.T) string {
	t.Helper()
	pid := idOf(f.createProject(t, f.ann, nil))
	f.addProjectMember(t, f.ann, pid, f.bob, "contributor")
	f.addProjectMember(t, f.ann, pid, f.fay, "")
	f.addProjectMember(t, f.ann, pid, f.cat, "reviewer")
	f.addProjectMember(t, f.ann, pid, f.dan, "observer")
	return pid
}

func TestProjectRoleTable(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	actors := []struct {
		role string
		who  *servertest.Account
	}{{"lead", f.ann}, {"contributor", f.bob}, {"reviewer", f.cat}, {"observer", f.dan}, {"non-member", f.eve}}
	project := func(rpc string, extra map[string]any) func(*testing.T, *groupsFixture, string, *servertest.Account) groupCall {
		return func(_ *testing.T, _ *groupsFixture, pid string, _ *servertest.Account) groupCall {
			msg := map[string]any{"id": pid}
			for k, v := range extra {
				msg[k] = v
			}
			return groupCall{rpc, msg}
		}
	}
	// own makes a queue item or a card of the actor's, outside any project.
	own := func(t *testing.T, a *servertest.Account, path, envelope string) string {
		t.Helper()
		return idOf(jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, path, map[string]any{"title": "Mine"}), http.StatusCreated), envelope))
	}
	cells := []roleCell{
		{"get", project("GetProject", nil), expect(200, 200, 200, 200, 404)},
		{"list invites", project("ListProjectInvites", nil), expect(200, 200, 200, 200, 404)},
		{"update", project("UpdateProject", map[string]any{"description": "Changed", "color": "#112233"}), expect(200, 403, 403, 403, 404)},
		{"close", project("UpdateProject", map[string]any{"status": "closed"}), expect(200, 403, 403, 403, 404)},
		{"add a member", project("AddProjectMember", map[string]any{"userId": f.gus.ID}), expect(201, 201, 403, 403, 404)},
		{"add a reviewer by email", project("AddProjectMember", map[string]any{"email": f.gus.Email, "role": "reviewer"}), expect(201, 201, 403, 403, 404)},
		{"invite", project("InviteToProject", map[string]any{"userId": f.gus.ID}), expect(201, 403, 403, 403, 404)},
		{"invite by email", project("InviteToProject", map[string]any{"email": f.gus.Email, "role": "observer", "message": "Come"}), expect(201, 403, 403, 403, 404)},
		{"remove another member", project("RemoveProjectMember", map[string]any{"memberId": f.fay.ID}), expect(200, 403, 403, 403, 404)},
		// Any member may remove themselves; the lead cannot be removed.
		{"remove oneself", func(_ *testing.T, _ *groupsFixture, pid string, actor *servertest.Account) groupCall {
			return groupCall{"RemoveProjectMember", map[string]any{"id": pid, "memberId": actor.ID}}
		}, expect(403, 200, 200, 200, 404)},
		{"remove the lead", project("RemoveProjectMember", map[string]any{"memberId": f.ann.ID}), expect(403, 403, 403, 403, 404)},
		// The project scope on the queue and the board: lead and
		// contributor file work; reviewer and observer 403; others 404.
		{"create a queue item in the project", func(_ *testing.T, _ *groupsFixture, pid string, _ *servertest.Account) groupCall {
			return groupCall{"CreateQueueItem", map[string]any{"title": "Filed", "projectId": pid}}
		}, expect(201, 201, 403, 403, 404)},
		{"create a card in the project", func(_ *testing.T, _ *groupsFixture, pid string, _ *servertest.Account) groupCall {
			return groupCall{"CreateCard", map[string]any{"card": map[string]any{"title": "Filed", "projectId": pid}}}
		}, expect(201, 201, 403, 403, 404)},
		{"move one's queue item into the project", func(t *testing.T, _ *groupsFixture, pid string, actor *servertest.Account) groupCall {
			return groupCall{"UpdateQueueItem", map[string]any{"id": own(t, actor, "/api/v2/queue", "item"), "projectId": pid}}
		}, expect(200, 200, 403, 403, 404)},
		{"move one's card into the project", func(t *testing.T, _ *groupsFixture, pid string, actor *servertest.Account) groupCall {
			return groupCall{"UpdateCard", map[string]any{"id": own(t, actor, "/api/v2/kanban", "card"), "card": map[string]any{"projectId": pid}}}
		}, expect(200, 200, 403, 403, 404)},
	}
	for _, c := range cells {
		for i, a := range actors {
			for _, tr := range groupTransports {
				t.Run(c.name+"/"+a.role+"/"+tr, func(t *testing.T) {
					pid := f.newProjectRig(t)
					cl := c.call(t, f, pid, a.who)
					before := f.groupRows(t)
					c.want[i].check(t, tr, cl, a.who.Session)
					if c.want[i].status >= 400 {
						if after := f.groupRows(t); after != before {
							t.Errorf("the refusal wrote: %s → %s", before, after)
						}
					}
				})
			}
		}
	}
}

// Assigning needs both rights (issue 28, Team ↔ project): owner or admin of
// the team and lead of the project; a project the caller is not in is 404,
// one where it is not the lead 403; a project of another team 409.
func TestAssignTeamProjectNeedsBothRights(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	other := idOf(f.createTeam(t, f.bob, nil))
	bobs := idOf(f.createProject(t, f.bob, nil))
	shared := idOf(f.createProject(t, f.bob, nil))
	f.addProjectMember(t, f.bob, shared, f.ann, "contributor")
	taken := idOf(f.createProject(t, f.bob, nil))
	f.addProjectMember(t, f.bob, taken, f.ann, "contributor")
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/teams/"+other+"/projects", map[string]any{"projectId": taken}), http.StatusOK)
	anns := idOf(f.createProject(t, f.ann, nil))
	wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/projects", map[string]any{"projectId": anns}), http.StatusOK)
	elsewhere := idOf(f.createTeam(t, f.ann, nil))

	for _, c := range []struct {
		name string
		call groupCall
		want outcome
	}{
		{"a project ann is not in", groupCall{"AssignTeamProject", map[string]any{"id": teamID, "projectId": bobs}}, notFound404},
		{"a project ann contributes to", groupCall{"AssignTeamProject", map[string]any{"id": teamID, "projectId": shared}}, forbidden403},
		{"an unknown project", groupCall{"AssignTeamProject", map[string]any{"id": teamID, "projectId": "nosuchproject"}}, notFound404},
		{"a project of another team", groupCall{"AssignTeamProject", map[string]any{"id": elsewhere, "projectId": anns}}, conflict409},
		{"unassign a project of another team", groupCall{"UnassignTeamProject", map[string]any{"id": elsewhere, "projectId": anns}}, notFound404},
		{"create a project for a team ann is not in", groupCall{"CreateProject", map[string]any{"name": "Sneaky", "teamId": other}}, notFound404},
	} {
		for _, tr := range groupTransports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				before := f.groupRows(t)
				c.want.check(t, tr, c.call, f.ann.Session)
				if after := f.groupRows(t); after != before {
					t.Errorf("the refusal wrote: %s → %s", before, after)
				}
			})
		}
	}
	// A team member (not owner or admin) creating a project for the team is 403.
	f.addTeamMember(t, f.ann, teamID, f.cat, "member")
	for _, tr := range groupTransports {
		forbidden403.check(t, tr, groupCall{"CreateProject", map[string]any{"name": "Cat's", "teamId": teamID}}, f.cat.Session)
	}
	if got := f.getProject(t, f.bob, taken)["project"].(map[string]any)["teamId"]; got != other {
		t.Errorf("the refused assignment moved bob's project: teamId %v", got)
	}
}
