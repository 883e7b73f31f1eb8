package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGroupsOverTheNetwork: issue 28's two-instance test, two processes
// each with its own database (SQLite, or PostgreSQL on that leg). A's lead
// invites B's owner to a project by connectionId: B gets a pending queue
// item and a project_invite notification; a second invite without force is
// 409 ALREADY_INVITED naming the first; B approves, so A's project lists
// the remote member and B holds a mirror (its item done, the relay
// completed); A relays naming the project: B answers scopeResolved with its
// mirror and files the item and its card there, while a project B never
// joined is dropped; a team invite by connection is accepted the same way.
func TestGroupsOverTheNetwork(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	a := startInstance(t, bin, "a", networkArgs...)
	b := startInstance(t, bin, "b", networkArgs...)
	res := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/connect",
		`{"peerInstanceUrl":"`+b.base+`","peerUserEmail":"owner@b.example"}`)
	connB := res["connection"].(map[string]any)["id"].(string)
	connA := connections(t, b, "pending")[0]["id"].(string)
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/federation/connections/"+connA+"/accept", `{}`)

	project := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/projects",
		`{"name":"Launch","description":"The v2 launch","color":"#AA3355"}`)["project"].(map[string]any)["id"].(string)
	invite := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/projects/"+project+"/invite",
		`{"connectionId":"`+connB+`","role":"contributor","message":"Come help"}`)["invite"].(map[string]any)
	if invite["connectionId"] != connB || invite["status"] != "pending" || invite["relayId"] == nil {
		t.Fatalf("A's invite: %v", invite)
	}
	// A second pending invite of the same peer: 409 naming the first.
	code, dup := a.owner.do(http.MethodPost, "/api/projects/"+project+"/invite", `{"connectionId":"`+connB+`"}`)
	if code != http.StatusConflict || dup["code"] != "ALREADY_INVITED" || dup["inviteId"] != invite["id"] {
		t.Fatalf("a second invite without force: %d %v", code, dup)
	}

	item := pendingInvite(t, b, "project_invite")
	// An invite is not work to track: no card on B's board.
	if item["title"] != "Join project Launch" || item["cardId"] != nil {
		t.Fatalf("B's invite item: %v", item)
	}
	within(t, 30*time.Second, "B's project_invite notification", func() bool {
		list, _ := must(t, b.owner, http.StatusOK, http.MethodGet, "/api/notifications", "")["notifications"].([]any)
		for _, n := range list {
			if n := n.(map[string]any); n["type"] == "project_invite" {
				meta, _ := n["metadata"].(map[string]any)
				return meta["inviteId"] == invite["id"] && meta["projectId"] == project
			}
		}
		return false
	})
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/v2/queue/"+item["id"].(string)+"/confirm", `{"action":"approve"}`)

	// A: the remote member, once B's ack has arrived.
	within(t, 60*time.Second, "A's project lists B's owner", func() bool {
		for _, m := range must(t, a.owner, http.StatusOK, http.MethodGet, "/api/projects/"+project, "")["members"].([]any) {
			if m := m.(map[string]any); m["connectionId"] == connB {
				return m["role"] == "contributor" && m["memberId"] == connB && m["instanceUrl"] == b.base
			}
		}
		return false
	})
	// B: the mirror, listed with the invite's role; the item done.
	mirror := only(t, must(t, b.owner, http.StatusOK, http.MethodGet, "/api/projects", "")["projects"].([]any))
	if mirror["name"] != "Launch" || mirror["role"] != "contributor" || mirror["color"] != "#AA3355" || mirror["id"] == project {
		t.Fatalf("B's mirror: %v", mirror)
	}
	within(t, 30*time.Second, "B's invite item done", func() bool {
		got := must(t, b.owner, http.StatusOK, http.MethodGet, "/api/v2/queue/"+item["id"].(string), "")["item"].(map[string]any)
		return got["status"] == "done_today"
	})
	// A's comms tell the lead the invite's answer.
	answered := must(t, a.owner, http.StatusOK, http.MethodGet, "/api/v2/shared-chat/messages?metadataType=project_invite_answered", "")
	if msgs, _ := answered["messages"].([]any); len(msgs) != 1 {
		t.Fatalf("A's answered-invite messages: %v", answered)
	}
	within(t, 60*time.Second, "A's invite relay completed", func() bool {
		r := must(t, a.owner, http.StatusOK, http.MethodGet, "/api/federation/relays/"+invite["relayId"].(string), "")["relay"].(map[string]any)
		return r["state"] == "completed"
	})

	// A relay naming the project lands in B's mirror; one naming a project
	// B never joined is dropped.
	sent := must(t, a.owner, http.StatusOK, http.MethodPost, "/api/federation/relays",
		`{"connectionId":"`+connB+`","type":"request","intent":"assign_task","subject":"Write the release notes","projectId":"`+project+`"}`)
	answer := sent["answer"].(map[string]any)
	resolved, _ := answer["scopeResolved"].(map[string]any)
	if resolved["projectId"] != mirror["id"] || answer["scopeDropped"] != nil {
		t.Fatalf("the scoped relay's answer: %v", answer)
	}
	if rec := sent["relay"].(map[string]any); rec["scopeResolved"].(map[string]any)["projectId"] != mirror["id"] {
		t.Fatalf("A's record of the scoped relay: %v", rec)
	}
	filed := pendingTitled(t, b, "Write the release notes")
	if filed["projectId"] != mirror["id"] {
		t.Fatalf("B's item of the scoped relay: %v", filed)
	}
	cards := must(t, b.owner, http.StatusOK, http.MethodGet, "/api/projects/"+mirror["id"].(string), "")["cards"].([]any)
	if len(cards) != 1 || cards[0].(map[string]any)["id"] != filed["cardId"] {
		t.Fatalf("the mirror's cards: %v (item %v)", cards, filed)
	}
	other := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/projects", `{"name":"Private"}`)["project"].(map[string]any)["id"].(string)
	dropped := must(t, a.owner, http.StatusOK, http.MethodPost, "/api/federation/relays",
		`{"connectionId":"`+connB+`","type":"request","subject":"Not yours","projectId":"`+other+`"}`)["answer"].(map[string]any)
	if d, _ := dropped["scopeDropped"].(map[string]any); d["projectId"] != other || dropped["scopeResolved"] != nil {
		t.Fatalf("the relay naming a project B never joined: %v", dropped)
	}

	// A team invite by connection, accepted the same way.
	team := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/teams", `{"name":"Night Crew"}`)["team"].(map[string]any)["id"].(string)
	must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/teams/"+team+"/invites", `{"connectionId":"`+connB+`","role":"admin"}`)
	teamItem := pendingInvite(t, b, "team_invite")
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/v2/queue/"+teamItem["id"].(string)+"/confirm", `{"action":"approve"}`)
	within(t, 60*time.Second, "A's team lists B's owner", func() bool {
		for _, m := range must(t, a.owner, http.StatusOK, http.MethodGet, "/api/teams/"+team, "")["members"].([]any) {
			if m := m.(map[string]any); m["connectionId"] == connB {
				return m["role"] == "admin"
			}
		}
		return false
	})
	for _, c := range must(t, b.owner, http.StatusOK, http.MethodGet, "/api/v2/kanban?limit=100", "")["cards"].([]any) {
		if title := c.(map[string]any)["title"].(string); strings.HasPrefix(title, "Join ") {
			t.Errorf("an invite's card on B's board: %v", c)
		}
	}
	// The remote member joins the team's projects through it, and leaves
	// them with it.
	q := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/projects", `{"name":"Docs","teamId":"`+team+`"}`)["project"].(map[string]any)["id"].(string)
	viaTeam := func() string {
		for _, m := range must(t, a.owner, http.StatusOK, http.MethodGet, "/api/projects/"+q, "")["members"].([]any) {
			if m := m.(map[string]any); m["connectionId"] == connB {
				return m["role"].(string) + " via " + m["via"].(string)
			}
		}
		return ""
	}
	if got := viaTeam(); got != "contributor via team" {
		t.Fatalf("B's owner in the team's project: %q", got)
	}
	must(t, a.owner, http.StatusOK, http.MethodDelete, "/api/teams/"+team+"/members?memberId="+connB, "")
	if got := viaTeam(); got != "" {
		t.Fatalf("B's owner in the team's project after leaving the team: %q", got)
	}
	mirrorTeam := only(t, must(t, b.owner, http.StatusOK, http.MethodGet, "/api/teams", "")["teams"].([]any))
	if mirrorTeam["name"] != "Night Crew" || mirrorTeam["role"] != "admin" || mirrorTeam["handle"] != "night-crew" {
		t.Fatalf("B's mirror team: %v", mirrorTeam)
	}
}

// pendingInvite is b's one pending queue item made from an invite relay of
// kind.
func pendingInvite(t *testing.T, in *instance, kind string) map[string]any {
	t.Helper()
	var found map[string]any
	within(t, 30*time.Second, in.name+"'s "+kind+" item", func() bool {
		items := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any)
		for _, it := range items {
			it := it.(map[string]any)
			if meta, ok := it["metadata"].(string); ok && containsKind(meta, kind) {
				found = it
				return true
			}
		}
		return false
	})
	return found
}

func containsKind(meta, kind string) bool {
	return strings.Contains(meta, `"kind":"`+kind+`"`)
}

// pendingTitled is in's pending item with that title.
func pendingTitled(t *testing.T, in *instance, title string) map[string]any {
	t.Helper()
	items := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any)
	for _, it := range items {
		if it := it.(map[string]any); it["title"] == title {
			return it
		}
	}
	t.Fatalf("%s has no pending item %q: %v", in.name, title, items)
	return nil
}

// only is a list's one element.
func only(t *testing.T, list []any) map[string]any {
	t.Helper()
	if len(list) != 1 {
		t.Fatalf("want one, got %s", fmt.Sprint(list))
	}
	return list[0].(map[string]any)
}
