package throughtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Team invites (RULINGS "Teams, projects, invites, profiles": a token of 32
// random bytes, stored as a hash, expiring 7 days later on the injected
// clock; a preview holding nothing private) and project invites (a queue item
// and a comms message for a local invitee; Reconciliation 5: answering
// deletes the queue item).

const week = 7 * 24 * time.Hour

// invite makes a team invite as a over REST and answers the whole answer.
func (f *groupsFixture) invite(t *testing.T, a *servertest.Account, teamID string, body map[string]any) map[string]any {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return wantOK(t, a.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", body), http.StatusCreated)
}

// answer answers a team invite's token as a.
func answer(a *servertest.Account, token, action string) *servertest.Response {
	return a.Session.Do(http.MethodPost, "/api/teams/invite/"+token, map[string]any{"action": action})
}

// wantCoded checks a REST refusal with its code.
func wantCoded(t *testing.T, res *servertest.Response, status int, code string) map[string]any {
	t.Helper()
	servertest.WantError(t, res, status)
	b := res.JSON(t)
	if b["code"] != code {
		t.Fatalf("code = %v, want %s: %s", b["code"], code, res.Body)
	}
	return b
}

// inviteStatuses answers the team's invites' statuses by id, as a lists them.
func inviteStatuses(t *testing.T, a *servertest.Account, teamID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, inv := range jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/invites", nil), http.StatusOK), "invites") {
		inv := inv.(map[string]any)
		out[idOf(inv)] = inv["status"].(string)
	}
	return out
}

// issue 28, Team invites: what the invite answers once, what is stored, and
// a preview anyone may read that holds nothing private.
func TestTeamInviteTokenAndPreview(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, map[string]any{"name": "Invite Crew", "visibility": "private"}))
	f.addTeamMember(t, f.ann, teamID, f.bob, "admin")
	made := f.invite(t, f.ann, teamID, map[string]any{"email": "zed@elsewhere.example", "role": "admin", "message": "Come build"})
	token, _ := made["token"].(string)
	inv := jsonObj(t, made, "invite")
	if !tokenShape.MatchString(token) {
		t.Fatalf("token %q is not 32 bytes of base64url", token)
	}
	if made["inviteId"] != inv["id"] || made["url"] != "/#/invite/"+token {
		t.Errorf("inviteId %v, url %v; invite %v", made["inviteId"], made["url"], inv)
	}
	expires := f.s.Clock.Now().Add(week)
	if !servertest.At(t, made["expiresAt"]).Equal(expires) || !servertest.At(t, inv["expiresAt"]).Equal(expires) {
		t.Errorf("expiresAt = %v / %v, want %v", made["expiresAt"], inv["expiresAt"], expires)
	}
	for k, want := range map[string]any{"teamId": teamID, "role": "admin", "status": "pending", "email": "zed@elsewhere.example",
		"userId": nil, "invitedBy": f.ann.ID, "message": "Come build", "answeredAt": nil} {
		if inv[k] != want {
			t.Errorf("invite %s = %v, want %v", k, inv[k], want)
		}
	}
	if _, has := inv["token"]; has {
		t.Errorf("the invite object carries a token: %v", inv)
	}
	// Stored only as its SHA-256 (in any of the usual encodings).
	row := f.s.DB.TeamInvite.Query().Where(teaminvite.ID(idOf(inv))).OnlyX(context.Background())
	sum := sha256.Sum256([]byte(token))
	if h := row.TokenHash; h != hex.EncodeToString(sum[:]) && h != base64.RawURLEncoding.EncodeToString(sum[:]) && h != base64.StdEncoding.EncodeToString(sum[:]) {
		t.Errorf("token_hash %q is not the SHA-256 of the token", h)
	}

	// The preview: no credential, exactly the six fields, nothing private.
	res := f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+token, nil)
	p := wantOK(t, res, http.StatusOK)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"expiresAt", "inviterName", "message", "role", "teamHandle", "teamName"}; !slices.Equal(keys, want) {
		t.Errorf("preview keys = %v, want %v", keys, want)
	}
	for k, want := range map[string]any{"teamName": "Invite Crew", "teamHandle": "invite-crew", "inviterName": "Ann", "role": "admin", "message": "Come build"} {
		if p[k] != want {
			t.Errorf("preview %s = %v, want %v", k, p[k], want)
		}
	}
	if !servertest.At(t, p["expiresAt"]).Equal(expires) {
		t.Errorf("preview expiresAt = %v", p["expiresAt"])
	}
	for _, private := range []string{"@", f.ann.ID, f.bob.ID, "Bob", `"bob"`, "zed", teamID, idOf(inv)} {
		if strings.Contains(string(res.Body), private) {
			t.Errorf("the preview shows %q: %s", private, res.Body)
		}
	}
	for name, opts := range servertest.Protocols() {
		pv, err := switchboardv1connect.NewTeamServiceClient(f.s.Client(name), f.s.URL, opts...).
			PreviewTeamInvite(context.Background(), &switchboardv1.PreviewTeamInviteRequest{Token: token})
		if err != nil || pv.GetTeamName() != "Invite Crew" || pv.GetInviterName() != "Ann" || pv.GetRole() != "admin" || !pv.GetExpiresAt().AsTime().Equal(expires) {
			t.Errorf("%s preview: %v %v", name, pv, err)
		}
	}
	// Unknown tokens are 404, previewed or answered.
	unknown := strings.Repeat("A", 43)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+unknown, nil), http.StatusNotFound)
	servertest.WantError(t, answer(f.cat, unknown, "accept"), http.StatusNotFound)

	// The list shows the invite to members, never its token; a non-member 404.
	for _, a := range []*servertest.Account{f.ann, f.bob} {
		res := a.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/invites", nil)
		listed := jsonList(t, wantOK(t, res, http.StatusOK), "invites")
		if len(listed) != 1 || idOf(listed[0].(map[string]any)) != idOf(inv) || strings.Contains(string(res.Body), token) || strings.Contains(string(res.Body), `"token"`) {
			t.Errorf("%s lists %s", a.Username, res.Body)
		}
	}
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/invites", nil), http.StatusNotFound)
	lst, err := teamClient(f.s, f.bob, "grpcweb").ListTeamInvites(context.Background(), &switchboardv1.ListTeamInvitesRequest{Id: teamID})
	if err != nil || len(lst.GetInvites()) != 1 || strings.Contains(lst.String(), token) {
		t.Errorf("Connect ListTeamInvites: %v %v", lst, err)
	}
}

// issue 28, Team invites: on the injected clock, an invite is previewable a
// second before its seventh day ends and 410 INVITE_EXPIRED a second after,
// on both transports, and listed as expired.
func TestTeamInviteExpiry(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	made := f.invite(t, f.ann, teamID, map[string]any{"userId": f.bob.ID})
	token, inviteID := made["token"].(string), made["inviteId"].(string)

	f.s.Clock.Advance(week - time.Second)
	wantOK(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+token, nil), http.StatusOK)
	if got := inviteStatuses(t, f.ann, teamID)[inviteID]; got != "pending" {
		t.Errorf("status a second before expiry = %q", got)
	}

	f.s.Clock.Advance(2 * time.Second)
	wantCoded(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+token, nil), http.StatusGone, "INVITE_EXPIRED")
	before := f.groupRows(t)
	wantCoded(t, answer(f.bob, token, "accept"), http.StatusGone, "INVITE_EXPIRED")
	wantCoded(t, answer(f.bob, token, "decline"), http.StatusGone, "INVITE_EXPIRED")
	anon := switchboardv1connect.NewTeamServiceClient(f.s.HTTP, f.s.URL, connect.WithProtoJSON())
	_, err := anon.PreviewTeamInvite(context.Background(), &switchboardv1.PreviewTeamInviteRequest{Token: token})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), "INVITE_EXPIRED") {
		t.Errorf("Connect preview of an expired invite: %v", err)
	}
	_, err = teamClient(f.s, f.bob, "grpc").AnswerTeamInvite(context.Background(), &switchboardv1.AnswerTeamInviteRequest{Token: token, Action: "accept"})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), "INVITE_EXPIRED") {
		t.Errorf("Connect answer of an expired invite: %v", err)
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("answering an expired invite wrote: %s → %s", before, after)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil), http.StatusNotFound)
	if got := inviteStatuses(t, f.ann, teamID)[inviteID]; got != "expired" {
		t.Errorf("status a second after expiry = %q, want expired", got)
	}
	// An expired invite does not block a new one of the same target.
	again := f.invite(t, f.ann, teamID, map[string]any{"userId": f.bob.ID})
	wantOK(t, answer(f.bob, again["token"].(string), "accept"), http.StatusOK)
}

// issue 28, Team invites: who may answer: the target (by userId, or by an
// email that is, or later becomes, a local user's), anyone signed in for an
// open link; accept joins with the invite's role; reuse is 409.
func TestTeamInviteAnswers(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))

	// For bob by userId: cat is 403 and writes nothing; bob accepts.
	forBob := f.invite(t, f.ann, teamID, map[string]any{"userId": f.bob.ID})["token"].(string)
	before := f.groupRows(t)
	servertest.WantError(t, answer(f.cat, forBob, "accept"), http.StatusForbidden)
	servertest.WantError(t, answer(f.cat, forBob, "decline"), http.StatusForbidden)
	if after := f.groupRows(t); after != before {
		t.Errorf("the wrong user's answer wrote: %s → %s", before, after)
	}
	got := wantOK(t, answer(f.bob, forBob, "accept"), http.StatusOK)
	if inv := jsonObj(t, got, "invite"); inv["status"] != "accepted" || inv["answeredAt"] == nil {
		t.Errorf("accepted invite = %v", inv)
	}
	if tm := jsonObj(t, got, "team"); idOf(tm) != teamID || tm["role"] != "member" {
		t.Errorf("joined team = %v", tm)
	}
	if r := memberRoles(t, jsonList(t, f.getTeam(t, f.bob, teamID), "members")); r[f.bob.ID] != "member" {
		t.Errorf("bob's role = %q", r[f.bob.ID])
	}
	// Reuse after accept: 409 for anyone, before the user check.
	servertest.WantError(t, answer(f.bob, forBob, "accept"), http.StatusConflict)
	servertest.WantError(t, answer(f.cat, forBob, "decline"), http.StatusConflict)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+forBob, nil), http.StatusConflict)

	// For dan by his email: stored as his id; eve 403; dan declines over
	// Connect; reuse after decline 409.
	made := f.invite(t, f.ann, teamID, map[string]any{"email": f.dan.Email, "role": "admin"})
	forDan := made["token"].(string)
	if inv := jsonObj(t, made, "invite"); inv["userId"] != f.dan.ID {
		t.Errorf("an invite to a local user's email targets %v, want dan's id", inv["userId"])
	}
	servertest.WantError(t, answer(f.eve, forDan, "accept"), http.StatusForbidden)
	dec, err := teamClient(f.s, f.dan, "connect+proto").AnswerTeamInvite(context.Background(), &switchboardv1.AnswerTeamInviteRequest{Token: forDan, Action: "decline"})
	if err != nil || dec.GetInvite().GetStatus() != "declined" || dec.GetTeam() != nil {
		t.Fatalf("decline: %v %v", dec, err)
	}
	servertest.WantError(t, f.dan.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil), http.StatusNotFound)
	servertest.WantError(t, answer(f.dan, forDan, "accept"), http.StatusConflict)
	servertest.WantError(t, answer(f.dan, forDan, "decline"), http.StatusConflict)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+forDan, nil), http.StatusConflict)
	if got := inviteStatuses(t, f.ann, teamID)[made["inviteId"].(string)]; got != "declined" {
		t.Errorf("the declined invite is listed as %q", got)
	}

	// An open link: anyone signed in; the invite's role; a member is 409.
	open := f.invite(t, f.ann, teamID, map[string]any{"role": "admin"})["token"].(string)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodPost, "/api/teams/invite/"+open, map[string]any{"action": "accept"}), http.StatusUnauthorized)
	servertest.WantError(t, answer(f.bob, open, "accept"), http.StatusConflict)
	wantOK(t, answer(f.eve, open, "accept"), http.StatusOK)
	if r := memberRoles(t, jsonList(t, f.getTeam(t, f.eve, teamID), "members")); r[f.eve.ID] != "admin" {
		t.Errorf("eve's role through the open link = %q, want admin", r[f.eve.ID])
	}

	// For an email no one here has yet: whoever signs up with it may answer.
	later := f.invite(t, f.ann, teamID, map[string]any{"email": "fresh@example.com"})["token"].(string)
	servertest.WantError(t, answer(f.gus, later, "accept"), http.StatusForbidden)
	fresh := f.s.SignUp("fresh")
	wantOK(t, answer(fresh, later, "accept"), http.StatusOK)
	wantOK(t, fresh.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil), http.StatusOK)

	// An action that is neither is 400.
	other := f.invite(t, f.ann, teamID, map[string]any{"userId": f.gus.ID})["token"].(string)
	servertest.WantError(t, answer(f.gus, other, "maybe"), http.StatusBadRequest)
}

// issue 28, Team invites: a second pending invite of the same target (by
// userId or by that user's email) is 409 ALREADY_INVITED naming the first;
// force cancels the first; a member cannot be invited.
func TestTeamInviteDuplicates(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.cat, "")
	first := f.invite(t, f.ann, teamID, map[string]any{"userId": f.bob.ID})
	firstID, firstToken := first["inviteId"].(string), first["token"].(string)

	before := f.groupRows(t)
	for name, body := range map[string]map[string]any{
		"same userId":      {"userId": f.bob.ID},
		"the user's email": {"email": f.bob.Email, "role": "admin"},
		"force false":      {"userId": f.bob.ID, "force": false},
		"another message":  {"userId": f.bob.ID, "message": "again"},
	} {
		b := wantCoded(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", body), http.StatusConflict, "ALREADY_INVITED")
		if b["inviteId"] != firstID {
			t.Errorf("%s: inviteId = %v, want %s", name, b["inviteId"], firstID)
		}
	}
	_, err := teamClient(f.s, f.ann, "connect+json").CreateTeamInvite(context.Background(), &switchboardv1.CreateTeamInviteRequest{Id: teamID, Email: proto.String(f.bob.Email)})
	if info := errorInfo(t, err); connect.CodeOf(err) != connect.CodeAlreadyExists || info.GetCode() != "ALREADY_INVITED" || info.GetInviteId() != firstID {
		t.Errorf("Connect duplicate: %v %v", err, info)
	}
	// A role but admin or member, two targets: 400; a connection that is
	// not the caller's: 404.
	for _, body := range []map[string]any{{"userId": f.gus.ID, "role": "owner"}, {"userId": f.gus.ID, "email": f.gus.Email}} {
		servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", body), http.StatusBadRequest)
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", map[string]any{"connectionId": "someconnection"}), http.StatusNotFound)
	// A member is 409 too.
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", map[string]any{"userId": f.cat.ID}), http.StatusConflict)
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", map[string]any{"email": f.cat.Email}), http.StatusConflict)
	if after := f.groupRows(t); after != before {
		t.Errorf("refused invites wrote: %s → %s", before, after)
	}

	// force: the first is cancelled (409 to preview and answer), the second works.
	second := f.invite(t, f.ann, teamID, map[string]any{"email": f.bob.Email, "force": true})
	secondID := second["inviteId"].(string)
	if secondID == firstID || second["token"] == firstToken {
		t.Fatalf("force answered the old invite: %v", second)
	}
	if got := inviteStatuses(t, f.ann, teamID); got[firstID] != "cancelled" || got[secondID] != "pending" {
		t.Errorf("statuses after force = %v", got)
	}
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+firstToken, nil), http.StatusConflict)
	servertest.WantError(t, answer(f.bob, firstToken, "accept"), http.StatusConflict)
	wantOK(t, answer(f.bob, second["token"].(string), "accept"), http.StatusOK)
	// Newest first.
	lst := jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/invites", nil), http.StatusOK), "invites")
	if len(lst) != 2 || idOf(lst[0].(map[string]any)) != secondID {
		t.Errorf("invites = %v, want the forced one first", lst)
	}
}

// projectInvite invites to the project as a over REST and answers the invite.
func (f *groupsFixture) projectInvite(t *testing.T, a *servertest.Account, pid string, body map[string]any) map[string]any {
	t.Helper()
	return jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", body), http.StatusCreated), "invite")
}

func answerProject(a *servertest.Account, inviteID, action string) *servertest.Response {
	return a.Session.Do(http.MethodPatch, "/api/project-invites", map[string]any{"inviteId": inviteID, "action": action})
}

func (f *groupsFixture) chatCount(t *testing.T, a *servertest.Account) int {
	t.Helper()
	return f.s.DB.ChatMessage.Query().Where(chatmessage.UserID(a.ID)).CountX(context.Background())
}

// issue 28, Project invites: a local invitee gets a notification queue item
// pending confirmation with the invite's id in its metadata, and a comms
// message; a duplicate is 409 ALREADY_INVITED; force cancels the first and
// deletes its queue item; accepting makes the member and deletes the item.
func TestProjectInviteToALocalUser(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Apollo"}))
	f.addProjectMember(t, f.ann, pid, f.cat, "contributor")
	chats := f.chatCount(t, f.bob)
	inv := f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.bob.ID, "message": "Join?"})
	for k, want := range map[string]any{"projectId": pid, "projectName": "Apollo", "role": "contributor", "userId": f.bob.ID,
		"status": "pending", "invitedBy": f.ann.ID, "message": "Join?"} {
		if inv[k] != want {
			t.Errorf("invite %s = %v, want %v", k, inv[k], want)
		}
	}
	item := inviteItem(t, f.bob, idOf(inv))
	if item == nil {
		t.Fatalf("bob has no queue item for the invite: %v", queueItems(t, f.bob))
	}
	for k, want := range map[string]any{"type": "notification", "status": "pending_confirmation", "title": "Join project Apollo", "id": inv["queueItemId"]} {
		if item[k] != want {
			t.Errorf("queue item %s = %v, want %v", k, item[k], want)
		}
	}
	if n := f.chatCount(t, f.bob); n <= chats {
		t.Errorf("bob got no comms message (%d → %d)", chats, n)
	}
	if acts := groupTeamActivity(t, f.s, f.ann.ID); !slices.Contains(acts, "project_invite_sent") {
		t.Errorf("ann's teams activity = %v, want project_invite_sent", acts)
	}
	// Members list it; so does GetProject.
	for _, a := range []*servertest.Account{f.ann, f.cat} {
		lst := jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/projects/"+pid+"/invite", nil), http.StatusOK), "invites")
		if len(lst) != 1 || idOf(lst[0].(map[string]any)) != idOf(inv) {
			t.Errorf("%s lists %v", a.Username, lst)
		}
	}
	if lst := jsonList(t, f.getProject(t, f.ann, pid), "invites"); len(lst) != 1 {
		t.Errorf("GetProject invites = %v", lst)
	}

	// The same target again, by id or by email: 409 naming the first.
	before := f.groupRows(t)
	for _, body := range []map[string]any{{"userId": f.bob.ID}, {"email": f.bob.Email, "role": "observer"}} {
		b := wantCoded(t, f.ann.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", body), http.StatusConflict, "ALREADY_INVITED")
		if b["inviteId"] != idOf(inv) {
			t.Errorf("inviteId = %v, want %v", b["inviteId"], idOf(inv))
		}
	}
	_, err := projectClient(f.s, f.ann, "grpc").InviteToProject(context.Background(), &switchboardv1.InviteToProjectRequest{Id: pid, Email: proto.String(f.bob.Email)})
	if info := errorInfo(t, err); connect.CodeOf(err) != connect.CodeAlreadyExists || info.GetCode() != "ALREADY_INVITED" || info.GetInviteId() != idOf(inv) {
		t.Errorf("Connect duplicate: %v %v", err, info)
	}
	// A member is 409; lead is no invitable role; one target exactly.
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", map[string]any{"userId": f.cat.ID}), http.StatusConflict)
	for _, body := range []map[string]any{{"userId": f.gus.ID, "role": "lead"}, {}, {"userId": f.gus.ID, "email": f.gus.Email}} {
		servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", body), http.StatusBadRequest)
	}
	// A connection that is not the caller's: 404.
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", map[string]any{"connectionId": "someconnection"}), http.StatusNotFound)
	if after := f.groupRows(t); after != before {
		t.Errorf("refused invites wrote: %s → %s", before, after)
	}

	// force: the first is cancelled and its queue item deleted.
	second := f.projectInvite(t, f.ann, pid, map[string]any{"email": f.bob.Email, "role": "reviewer", "force": true})
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/v2/queue/"+inv["queueItemId"].(string), nil), http.StatusNotFound)
	servertest.WantError(t, answerProject(f.bob, idOf(inv), "accept"), http.StatusConflict)
	item2 := inviteItem(t, f.bob, idOf(second))
	if item2 == nil || item2["id"] != second["queueItemId"] {
		t.Fatalf("the forced invite's queue item = %v (invite %v)", item2, second)
	}

	// Accepting: the membership with the invite's role, the item deleted.
	acc := wantOK(t, answerProject(f.bob, idOf(second), "accept"), http.StatusOK)
	if got := jsonObj(t, acc, "invite"); got["status"] != "accepted" || got["answeredAt"] == nil {
		t.Errorf("accepted invite = %v", got)
	}
	if p := jsonObj(t, acc, "project"); idOf(p) != pid || p["role"] != "reviewer" {
		t.Errorf("joined project = %v", p)
	}
	if got := f.projectMembers(t, f.ann, pid)[f.bob.ID]; got != "reviewer/direct" {
		t.Errorf("bob in the project = %q", got)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/v2/queue/"+item2["id"].(string), nil), http.StatusNotFound)
	servertest.WantError(t, answerProject(f.bob, idOf(second), "accept"), http.StatusConflict)
	servertest.WantError(t, answerProject(f.bob, idOf(second), "decline"), http.StatusConflict)
	if lst := jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects/"+pid+"/invite", nil), http.StatusOK), "invites"); len(lst) != 0 {
		t.Errorf("pending invites after the accept = %v", lst)
	}
	for _, a := range []*servertest.Account{f.ann, f.bob} {
		if acts := groupTeamActivity(t, f.s, a.ID); !slices.Contains(acts, "project_invite_accepted") {
			t.Errorf("%s's teams activity = %v, want project_invite_accepted", a.Username, acts)
		}
	}
}

// issue 28, Project invites: only the invitee answers; decline writes no
// membership; approving the invite's queue item accepts, rejecting or
// deleting it declines; an invite to an email no one has yet waits for
// whoever signs up with it.
func TestProjectInviteAnswers(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Gemini"}))

	// cat: dan is 403, an unknown id 404, cat declines over Connect.
	forCat := f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.cat.ID, "role": "reviewer"})
	before := f.groupRows(t)
	servertest.WantError(t, answerProject(f.dan, idOf(forCat), "accept"), http.StatusForbidden)
	servertest.WantError(t, answerProject(f.dan, "nosuchinvite", "accept"), http.StatusNotFound)
	servertest.WantError(t, answerProject(f.cat, idOf(forCat), "later"), http.StatusBadRequest)
	if after := f.groupRows(t); after != before {
		t.Errorf("refused answers wrote: %s → %s", before, after)
	}
	dec, err := projectClient(f.s, f.cat, "grpcweb").AnswerProjectInvite(context.Background(),
		&switchboardv1.AnswerProjectInviteRequest{InviteId: idOf(forCat), Action: "decline"})
	if err != nil || dec.GetInvite().GetStatus() != "declined" || dec.GetProject() != nil {
		t.Fatalf("decline: %v %v", dec, err)
	}
	if _, in := f.projectMembers(t, f.ann, pid)[f.cat.ID]; in {
		t.Errorf("the declined invitee is a member")
	}
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/v2/queue/"+forCat["queueItemId"].(string), nil), http.StatusNotFound)
	servertest.WantError(t, answerProject(f.cat, idOf(forCat), "accept"), http.StatusConflict)
	for _, a := range []*servertest.Account{f.ann, f.cat} {
		if acts := groupTeamActivity(t, f.s, a.ID); !slices.Contains(acts, "project_invite_declined") {
			t.Errorf("%s's teams activity = %v, want project_invite_declined", a.Username, acts)
		}
	}

	// dan approves the queue item: he joins as the invite's observer, and
	// the item is gone (Reconciliation 5).
	forDan := f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.dan.ID, "role": "observer"})
	itemID := forDan["queueItemId"].(string)
	wantOK(t, f.dan.Session.Do(http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"id": itemID, "action": "approve"}), http.StatusOK)
	if got := f.projectMembers(t, f.ann, pid)[f.dan.ID]; got != "observer/direct" {
		t.Errorf("dan after approving = %q, want observer/direct", got)
	}
	servertest.WantError(t, answerProject(f.dan, idOf(forDan), "decline"), http.StatusConflict)
	servertest.WantError(t, f.dan.Session.Do(http.MethodGet, "/api/v2/queue/"+itemID, nil), http.StatusNotFound)

	// eve rejects hers, fay deletes hers: both decline.
	forEve := f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.eve.ID})
	eveItem := forEve["queueItemId"].(string)
	wantOK(t, f.eve.Session.Do(http.MethodPost, "/api/v2/queue/"+eveItem+"/confirm", map[string]any{"id": eveItem, "action": "reject"}), http.StatusOK)
	forFay := f.projectInvite(t, f.ann, pid, map[string]any{"email": f.fay.Email})
	wantOK(t, f.fay.Session.Do(http.MethodDelete, "/api/v2/queue/"+forFay["queueItemId"].(string), nil), http.StatusOK)
	members := f.projectMembers(t, f.ann, pid)
	for _, a := range []*servertest.Account{f.eve, f.fay} {
		if _, in := members[a.ID]; in {
			t.Errorf("%s is a member after declining through the queue", a.Username)
		}
	}
	servertest.WantError(t, answerProject(f.eve, idOf(forEve), "accept"), http.StatusConflict)
	servertest.WantError(t, answerProject(f.fay, idOf(forFay), "accept"), http.StatusConflict)

	// An email no one here has: no queue item; the user who signs up with it answers.
	waiting := f.projectInvite(t, f.ann, pid, map[string]any{"email": "newbie@example.com"})
	if q, has := waiting["queueItemId"]; has && q != nil {
		t.Errorf("an invite to an unknown email has queue item %v", q)
	}
	servertest.WantError(t, answerProject(f.gus, idOf(waiting), "accept"), http.StatusForbidden)
	newbie := f.s.SignUp("newbie")
	wantOK(t, answerProject(newbie, idOf(waiting), "accept"), http.StatusOK)
	if got := f.projectMembers(t, f.ann, pid)[newbie.ID]; got != "contributor/direct" {
		t.Errorf("newbie = %q, want contributor/direct", got)
	}
}

// issue 28, Team invites: the url is the instance's public URL and the
// dashboard's invite path.
func TestTeamInviteURLUsesThePublicURL(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL())
	s.SignUp("boss")
	ann := s.SignUp("ann")
	tm := jsonObj(t, wantOK(t, ann.Session.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Linked"}), http.StatusCreated), "team")
	made := wantOK(t, ann.Session.Do(http.MethodPost, "/api/teams/"+idOf(tm)+"/invites", map[string]any{}), http.StatusCreated)
	if token, _ := made["token"].(string); !tokenShape.MatchString(token) || made["url"] != s.URL+"/#/invite/"+token {
		t.Errorf("url = %v, want %s/#/invite/<token> (token %q)", made["url"], s.URL, token)
	}
}
