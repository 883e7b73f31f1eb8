package server_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/contract"
	learningrules "github.com/switchboard-hq/switchboard/server/learnings/rules"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The access matrix, generated from the contract: every RPC over Connect and
// over each of its REST bindings, called anonymously, with a key of the wrong
// scope, and, where its path names a row, with another account's row. Spec:
// RULINGS "Accounts, keys, sessions" (401 missing key, 403 wrong scope, another
// account's id is 404, never 403). A new RPC joins the matrix by itself; a new
// route naming a row must say below which row it names, or the test fails.

// rowOf names the kind of row each path variable (or reference field carried
// beside it) of an RPC refers to.
var rowOf = map[string]map[string]string{
	"/switchboard.v1.QueueService/GetQueueItem":          {"id": "queue"},
	"/switchboard.v1.QueueService/UpdateQueueItem":       {"id": "queue"},
	"/switchboard.v1.QueueService/DeleteQueueItem":       {"id": "queue"},
	"/switchboard.v1.QueueService/ConfirmQueueItem":      {"id": "queue"},
	"/switchboard.v1.QueueService/ReportQueueResult":     {"id": "queue"},
	"/switchboard.v1.QueueService/GetQueueResult":        {"id": "queue"},
	"/switchboard.v1.QueueService/UpdateQueueItemStatus": {"id": "queue"},
	"/switchboard.v1.KanbanService/GetCard":              {"id": "card"},
	"/switchboard.v1.KanbanService/UpdateCard":           {"id": "card"},
	"/switchboard.v1.KanbanService/DeleteCard":           {"id": "card"},
	"/switchboard.v1.KanbanService/UpdateChecklistItem":  {"card_id": "card", "id": "checklist"},
	"/switchboard.v1.KanbanService/ListCardActivity":     {"id": "card"},
	// A card link is between two of one account's cards.
	"/switchboard.v1.CardLinkService/LinkCards":           {"card_id": "card", "to_card_id": "card"},
	"/switchboard.v1.CardLinkService/ListCardLinks":       {"card_id": "card"},
	"/switchboard.v1.CardLinkService/UnlinkCards":         {"card_id": "card", "id": "card_link"},
	"/switchboard.v1.ContactService/GetContact":           {"id": "contact"},
	"/switchboard.v1.ContactService/UpdateContact":        {"id": "contact"},
	"/switchboard.v1.ContactService/DeleteContact":        {"id": "contact"},
	"/switchboard.v1.CalendarService/UpdateCalendarEvent": {"id": "calendar_event"},
	"/switchboard.v1.CalendarService/DeleteCalendarEvent": {"id": "calendar_event"},
	"/switchboard.v1.KeyService/DeleteKey":                {"id": "key"},
	// An inbound webhook's settings (the deliveries are a door of their own).
	"/switchboard.v1.InboundWebhookService/UpdateInboundWebhook":       {"id": "inbound_webhook"},
	"/switchboard.v1.InboundWebhookService/RotateInboundWebhookSecret": {"id": "inbound_webhook"},
	"/switchboard.v1.InboundWebhookService/DeleteInboundWebhook":       {"id": "inbound_webhook"},
	"/switchboard.v1.BoardCortexService/UpdateBoardInsight":            {"id": "insight"},
	// A profile names a user or a team (shared below).
	"/switchboard.v1.ProfileService/GetProfile":     {"user_id": "user"},
	"/switchboard.v1.ProfileService/GetTeamProfile": {"id": "team"},
	// A team or project is its members' alone (issue 28): a non-member's
	// id is 404 on every route.
	"/switchboard.v1.TeamService/GetTeam":                {"id": "team"},
	"/switchboard.v1.TeamService/UpdateTeam":             {"id": "team"},
	"/switchboard.v1.TeamService/DeleteTeam":             {"id": "team"},
	"/switchboard.v1.TeamService/AddTeamMember":          {"id": "team"},
	"/switchboard.v1.TeamService/RemoveTeamMember":       {"id": "team", "member_id": "absent"},
	"/switchboard.v1.TeamService/CreateTeamInvite":       {"id": "team"},
	"/switchboard.v1.TeamService/ListTeamInvites":        {"id": "team"},
	"/switchboard.v1.TeamService/AssignTeamProject":      {"id": "team", "project_id": "project"},
	"/switchboard.v1.TeamService/ListTeamProjects":       {"id": "team"},
	"/switchboard.v1.TeamService/UnassignTeamProject":    {"id": "team", "project_id": "project"},
	"/switchboard.v1.TeamService/SubscribeTeam":          {"id": "team"},
	"/switchboard.v1.ProjectService/GetProject":          {"id": "project"},
	"/switchboard.v1.ProjectService/UpdateProject":       {"id": "project"},
	"/switchboard.v1.ProjectService/InviteToProject":     {"id": "project"},
	"/switchboard.v1.ProjectService/ListProjectInvites":  {"id": "project"},
	"/switchboard.v1.ProjectService/AddProjectMember":    {"id": "project"},
	"/switchboard.v1.ProjectService/RemoveProjectMember": {"id": "project", "member_id": "absent"},
	// A project filed under another's team is 404 as the team's own routes
	// are; the invites' tokens and ids are shared (below) with real rows.
	"/switchboard.v1.ProjectService/CreateProject":       {"team_id": "team"},
	"/switchboard.v1.TeamService/PreviewTeamInvite":      {"token": "team_invite"},
	"/switchboard.v1.TeamService/AnswerTeamInvite":       {"token": "team_invite"},
	"/switchboard.v1.ProjectService/AnswerProjectInvite": {"invite_id": "project_invite"},
	// A document is its account's alone (the raw and multipart routes beside
	// these: TestDocumentPlainRoutes).
	"/switchboard.v1.DocumentService/UpdateDocument":     {"id": "document"},
	"/switchboard.v1.DocumentService/DeleteDocument":     {"id": "document"},
	"/switchboard.v1.DocumentService/GetDocumentContent": {"id": "document"},
	// A pack is seen by every account; its installation is the caller's own.
	"/switchboard.v1.CapabilityService/CustomizeCapability": {"id": "capability"},
	"/switchboard.v1.CapabilityService/UninstallCapability": {"id": "capability"},
	// Only the owner changes a listing.
	"/switchboard.v1.StoreService/UpdateStoreAgent": {"id": "listing"},
	"/switchboard.v1.StoreService/DeleteStoreAgent": {"id": "listing"},
	// Another account's execution of a listing anyone may use.
	"/switchboard.v1.StoreService/RateStoreExecution":         {"id": "listing", "execution_id": "execution"},
	"/switchboard.v1.StoreExecutionService/DecideStoreQuote":  {"id": "listing", "execution_id": "execution"},
	"/switchboard.v1.StoreExecutionService/ExecuteStoreAgent": {"id": "absent"},
	// The queue item whose widget is answered.
	"/switchboard.v1.WidgetService/RespondToWidget": {"item_id": "queue"},
	// An operator-network connection is its local user's alone.
	"/switchboard.v1.NetworkService/AcceptConnection":  {"id": "connection"},
	"/switchboard.v1.NetworkService/DeclineConnection": {"id": "connection"},
	"/switchboard.v1.NetworkService/RemoveConnection":  {"id": "connection"},
	"/switchboard.v1.NetworkService/UpdateConnection":  {"id": "connection"},
	"/switchboard.v1.NetworkService/RotateConnection":  {"id": "connection"},
	// What connections exchange: the caller's own notifications, jobs,
	// provider capabilities and connections.
	"/switchboard.v1.NetworkExchangeService/SendNotification":         {"connection_id": "connection"},
	"/switchboard.v1.NetworkExchangeService/ReadNotification":         {"id": "notification"},
	"/switchboard.v1.NetworkExchangeService/RefreshPeerPatterns":      {"id": "connection"},
	"/switchboard.v1.NetworkExchangeService/CloseJob":                 {"id": "job"},
	"/switchboard.v1.NetworkExchangeService/RemoveProviderCapability": {"id": "provider_capability"},
	// A relay, sent or received, is its local user's alone.
	"/switchboard.v1.NetworkRelayService/GetRelay":     {"id": "relay"},
	"/switchboard.v1.NetworkRelayService/ReleaseRelay": {"id": "relay"},
	"/switchboard.v1.NetworkRelayService/DiscardRelay": {"id": "relay"},
	// A contract is its two sides' alone (issue 29): another account's is
	// 404 on every move, whatever amendment its path names; a review is its
	// reviewer's. A dispute's id is its contract's (shared below: the
	// instance admin's).
	"/switchboard.v1.EconomyService/GetContract":          {"id": "contract"},
	"/switchboard.v1.EconomyService/AcceptContract":       {"id": "contract"},
	"/switchboard.v1.EconomyService/DeclineContract":      {"id": "contract"},
	"/switchboard.v1.EconomyService/WithdrawContract":     {"id": "contract"},
	"/switchboard.v1.EconomyService/DeliverContract":      {"id": "contract"},
	"/switchboard.v1.EconomyService/CloseContract":        {"id": "contract"},
	"/switchboard.v1.EconomyService/DisputeContract":      {"id": "contract"},
	"/switchboard.v1.EconomyService/PostContractUpdate":   {"id": "contract"},
	"/switchboard.v1.EconomyService/AskContractQuestion":  {"id": "contract"},
	"/switchboard.v1.EconomyService/ProposeContractScope": {"id": "contract"},
	"/switchboard.v1.EconomyService/AcceptContractScope":  {"id": "contract", "n": "amendment"},
	"/switchboard.v1.EconomyService/DeclineContractScope": {"id": "contract", "n": "amendment"},
	"/switchboard.v1.EconomyService/SuggestCloseContract": {"id": "contract"},
	"/switchboard.v1.EconomyService/ReviewContract":       {"id": "contract"},
	"/switchboard.v1.EconomyService/SetReviewVisibility":  {"id": "contract_review"},
	"/switchboard.v1.EconomyAdminService/ResolveDispute":  {"id": "contract"},
	// A job's {id} is the job as its viewer's board shows it (issue 29,
	// point 5). Its award is its owner's alone: another account's job is
	// 404 even with a real pending application of it. Its applications are
	// its owner's; anyone else reads only their own and 404 with none, so
	// the job named here is one the other account never applied to
	// (decisions "The task economy: jobs"). Applying names another job of
	// the same account (shared below): an application there would be one
	// the list answers.
	"/switchboard.v1.JobMarketService/AwardJob":            {"id": "job", "application_id": "job_application"},
	"/switchboard.v1.JobMarketService/ListJobApplications": {"id": "job"},
	"/switchboard.v1.JobMarketService/ApplyToJob":          {"id": "open_job"},
	// A learning is its account's alone; a workflow is the instance's
	// (shared below: the admin's).
	"/switchboard.v1.LearningService/UpdateLearning": {"id": "learning"},
	"/switchboard.v1.LearningService/DeleteLearning": {"id": "learning"},
	"/switchboard.v1.WorkflowService/ReviewWorkflow": {"id": "workflow"},

	// The developer portal: another account's key, token, template or
	// agent is 404, as is a user who is no member of the caller's team.
	"/switchboard.v1.DeveloperPortalService/RevokeDeveloperKey":        {"id": "developer_key"},
	"/switchboard.v1.DeveloperPortalService/RevokeConnectToken":        {"id": "connect_token"},
	"/switchboard.v1.DeveloperPortalService/RemoveDeveloperTeamMember": {"user_id": "user"},
	"/switchboard.v1.DeveloperPortalService/GetPortalAgent":            {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/UpdatePortalAgent":         {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/DeletePortalAgent":         {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/ListPortalAgentTestRuns":   {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/RunPortalAgentTest":        {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/ListPortalAgentExecutions": {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/GetPortalAgentEarnings":    {"id": "listing"},
	"/switchboard.v1.DeveloperPortalService/GetWidgetTemplate":         {"id": "widget_template"},
	"/switchboard.v1.DeveloperPortalService/ReplaceWidgetTemplate":     {"id": "widget_template"},
	"/switchboard.v1.DeveloperPortalService/DeleteWidgetTemplate":      {"id": "widget_template"},
}

// shared lists the RPCs whose path names a row that other accounts may use by
// design, with the reason; they are called with another account's row and must
// not fail on the server's side.
var shared = map[string]string{
	"/switchboard.v1.CapabilityService/GetCapability":                     "every account sees every pack",
	"/switchboard.v1.StoreService/GetStoreAgent":                          "an active listing is public in the store",
	"/switchboard.v1.StoreService/SubscribeStoreAgent":                    "subscribing to another's listing is the point",
	"/switchboard.v1.StoreService/UnsubscribeStoreAgent":                  "the caller's own subscription",
	"/switchboard.v1.StoreService/InstallStoreAgent":                      "installing another's listing is the point",
	"/switchboard.v1.StoreService/UninstallStoreAgent":                    "the caller's own installation",
	"/switchboard.v1.StoreService/UnlockStoreAgent":                       "unlocking another's listing is the point",
	"/switchboard.v1.DeveloperService/RunDeveloperAgentTest":              "authenticated by the agent's own token",
	"/switchboard.v1.DeveloperService/ApproveStoreAgent":                  "an instance admin decides on any listing",
	"/switchboard.v1.DeveloperService/RejectStoreAgent":                   "an instance admin decides on any listing",
	"/switchboard.v1.DeveloperService/DisableStoreAgent":                  "an instance admin decides on any listing",
	"/switchboard.v1.StoreExecutionService/ExecuteStoreAgent":             "executing another's listing is the point",
	"/switchboard.v1.FederationAdminService/DeactivateFederationInstance": "a hub admin manages every instance (and a standalone serves none)",
	"/switchboard.v1.FederationAdminService/ReactivateFederationInstance": "a hub admin manages every instance (and a standalone serves none)",
	"/switchboard.v1.FederationResultService/DeliverFederationResult":     "a spoke's platform token and the execution's own callback token, not an account (a standalone serves none)",
	"/switchboard.v1.FederationMarketService/ReviewGlobalExecution":       "a platform token reviews its own instance's users' global executions; another instance's or requester's is 404 (TestSpokeConfirmsGlobalExecution)",
	"/switchboard.v1.FederationHubService/PutSyncedAgent":                 "a platform token's remote ids are its instance's own; another instance's is 404 (TestSyncedAgentByRemoteID)",
	"/switchboard.v1.FederationHubService/GetSyncedAgent":                 "a platform token's remote ids are its instance's own; another instance's is 404 (TestSyncedAgentByRemoteID)",
	"/switchboard.v1.FederationHubService/DeleteSyncedAgent":              "a platform token's remote ids are its instance's own; another instance's is 404 (TestSyncedAgentByRemoteID)",
	"/switchboard.v1.TeamService/PreviewTeamInvite":                       "the token is the credential: whoever holds it may preview (TestTeamInvite…)",
	"/switchboard.v1.TeamService/AnswerTeamInvite":                        "the token is the credential; an invite made for another user is 403 (RULINGS reconciliation 2)",
	"/switchboard.v1.ProjectService/AnswerProjectInvite":                  "an invite made for another user is 403 (RULINGS reconciliation 2)",
	"/switchboard.v1.ProfileService/GetProfile":                           "a profile is read by others as its visibility allows; one it hides is 404 (TestProfileVisibilityByCaller)",
	"/switchboard.v1.ProfileService/GetTeamProfile":                       "a team's profile is read by others as its visibility allows; one it hides is 404 (TestProfileVisibilityByCaller)",
	"/switchboard.v1.EconomyAdminService/ResolveDispute":                  "the instance admin decides any dispute of the instance; another account is 403 before any row is read",
	"/switchboard.v1.WorkflowService/ReviewWorkflow":                      "a workflow recurs across users and is the instance admin's to review; another account is 403 before any row is read",
	"/switchboard.v1.JobMarketService/ApplyToJob":                         "users of one instance apply to each other's posted jobs by id, the point of the market; another account's received job is 404 (TestJobAwardedDirectly, TestJobRefusals)",
}

// bodies are minimal valid bodies, so a refusal comes from access, not input.
var bodies = map[string]map[string]any{
	"/switchboard.v1.QueueService/UpdateQueueItem":               {"title": "Renamed"},
	"/switchboard.v1.QueueService/ConfirmQueueItem":              {"action": "approve"},
	"/switchboard.v1.QueueService/ReportQueueResult":             {"result": "done"},
	"/switchboard.v1.QueueService/UpdateQueueItemStatus":         {"status": "later"},
	"/switchboard.v1.KanbanService/UpdateCard":                   {"card": map[string]any{"title": "Renamed"}},
	"/switchboard.v1.KanbanService/UpdateChecklistItem":          {"completed": true},
	"/switchboard.v1.CardLinkService/LinkCards":                  {"linkType": "related"},
	"/switchboard.v1.TeamService/CreateTeam":                     {"name": "Ann's team"},
	"/switchboard.v1.ProjectService/CreateProject":               {"name": "Ann's project"},
	"/switchboard.v1.TeamService/UpdateTeam":                     {"name": "Renamed"},
	"/switchboard.v1.TeamService/SubscribeTeam":                  {"plan": "starter"},
	"/switchboard.v1.TeamService/AddTeamMember":                  {"email": "nobody@example.com"},
	"/switchboard.v1.TeamService/AnswerTeamInvite":               {"action": "accept"},
	"/switchboard.v1.ProjectService/UpdateProject":               {"name": "Renamed"},
	"/switchboard.v1.ProjectService/InviteToProject":             {"email": "nobody@example.com"},
	"/switchboard.v1.ProjectService/AddProjectMember":            {"email": "nobody@example.com"},
	"/switchboard.v1.ProjectService/AnswerProjectInvite":         {"action": "accept"},
	"/switchboard.v1.ContactService/UpdateContact":               {"contact": map[string]any{"name": "Renamed"}},
	"/switchboard.v1.CalendarService/UpdateCalendarEvent":        {"title": "Renamed"},
	"/switchboard.v1.CapabilityService/CustomizeCapability":      {"customizations": map[string]any{"recipient": "Grace"}},
	"/switchboard.v1.StoreService/UpdateStoreAgent":              {"agent": map[string]any{"description": "Changed"}},
	"/switchboard.v1.StoreService/RateStoreExecution":            {"rating": 5},
	"/switchboard.v1.StoreExecutionService/DecideStoreQuote":     {"action": "approve"},
	"/switchboard.v1.StoreExecutionService/ExecuteStoreAgent":    {"input": "hello"},
	"/switchboard.v1.StoreService/UnlockStoreAgent":              {"accessPassword": "open-sesame-42"},
	"/switchboard.v1.WidgetService/RespondToWidget":              {"widgetId": "0", "action": "approve"},
	"/switchboard.v1.NetworkService/UpdateConnection":            {"trustLevel": "trusted"},
	"/switchboard.v1.DocumentService/CreateDocument":             {"title": "Notes", "content": "text"},
	"/switchboard.v1.DocumentService/UpdateDocument":             {"title": "Renamed"},
	"/switchboard.v1.NetworkExchangeService/SendNotification":    {"type": "mention", "title": "Hello"},
	"/switchboard.v1.EconomyService/DeliverContract":             {"summary": "Done"},
	"/switchboard.v1.EconomyService/DisputeContract":             {"reason": "Not what was agreed"},
	"/switchboard.v1.EconomyService/PostContractUpdate":          {"text": "Halfway there"},
	"/switchboard.v1.EconomyService/AskContractQuestion":         {"question": "Which format?"},
	"/switchboard.v1.EconomyService/ProposeContractScope":        {"item": "One more chart", "priceCents": 500},
	"/switchboard.v1.EconomyService/ReviewContract":              {"overall": 5, "communication": 5, "quality": 5, "timeliness": 5},
	"/switchboard.v1.EconomyService/SetReviewVisibility":         {"visibility": "hidden"},
	"/switchboard.v1.EconomyAdminService/ResolveDispute":         {"outcome": "refund"},
	"/switchboard.v1.JobMarketService/ApplyToJob":                {"message": "I can do it", "priceCents": 1000, "etaDays": 3},
	"/switchboard.v1.BehaviorSignalService/RecordBehaviorSignal": {"action": "open_view"},
	"/switchboard.v1.LearningService/CreateLearning":             {"category": "behavior", "content": "Works mornings"},
	"/switchboard.v1.LearningService/UpdateLearning":             {"dismissed": true},
	"/switchboard.v1.BoardCortexService/UpdateBoardInsight":      {"status": "dismissed"},

	// The developer portal's.
	"/switchboard.v1.DeveloperPortalService/UpdatePortalAgent":     {"agent": map[string]any{"description": "Changed"}},
	"/switchboard.v1.DeveloperPortalService/ReplaceWidgetTemplate": {"name": "Mine", "widget": portalWidget},
}

// portalWidget is a widget template's widget that holds together.
var portalWidget = map[string]any{"type": "info_card", "title": "Summary", "items": []any{map[string]any{"id": "1", "label": "Finding"}}}

var pathVariable = regexp.MustCompile(`\{([a-z_]+)\}`)

// request is one call of an RPC on one transport.
type request struct {
	transport    string // "connect" or "REST"
	method, path string
	body         any
}

// requests builds the Connect call and each REST call of p, with its path
// variables set from vars.
func requests(p *contract.Procedure, vars map[string]string) []request {
	msg := map[string]any{}
	for k, v := range bodies[p.Name] {
		msg[k] = v
	}
	for k, v := range vars {
		msg[jsonName(k)] = v
	}
	reqs := []request{{transport: "connect", method: http.MethodPost, path: p.Name, body: msg}}
	for _, b := range p.Bindings {
		path := pathVariable.ReplaceAllStringFunc(b.Template, func(m string) string {
			if v, ok := vars[m[1:len(m)-1]]; ok {
				return v
			}
			return "unknown-" + m[1:len(m)-1]
		})
		var body any
		switch b.Body {
		case "":
			// Reference fields outside the path travel in the query.
			q := url.Values{}
			for k, v := range vars {
				if !strings.Contains(b.Template, "{"+k+"}") {
					q.Set(jsonName(k), v)
				}
			}
			if len(q) > 0 {
				path += "?" + q.Encode()
			}
		case "*":
			rest := map[string]any{}
			for k, v := range bodies[p.Name] {
				rest[k] = v
			}
			for k, v := range vars { // what the route does not carry in its path
				if !strings.Contains(b.Template, "{"+k+"}") {
					rest[jsonName(k)] = v
				}
			}
			body = rest
		default:
			body = bodies[p.Name][jsonName(b.Body)]
			if body == nil {
				body = map[string]any{}
			}
		}
		reqs = append(reqs, request{transport: "REST", method: b.Method, path: path, body: body})
	}
	return reqs
}

func jsonName(field string) string {
	parts := strings.Split(field, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	owner := s.SignUp("owner") // the instance admin; the two below are ordinary accounts
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	annKey, wrong := ann.NewKey("ann's agent"), scopedKeys(ann)
	rows := makeRows(t, s, bob, owner)
	table := contract.MustLoad()
	for _, p := range table.All() {
		if p.Descriptor.IsStreamingServer() || p.Descriptor.IsStreamingClient() {
			continue // TestAccessMatrixStreams
		}
		t.Run(strings.TrimPrefix(p.Name, "/switchboard.v1."), func(t *testing.T) {
			vars := map[string]string{}
			for _, b := range p.Bindings {
				for _, m := range pathVariable.FindAllStringSubmatch(b.Template, -1) {
					vars[m[1]] = "unknown-" + m[1]
				}
			}
			for v := range rowOf[p.Name] { // reference fields outside the path too
				vars[v] = "unknown-" + v
			}
			for _, r := range requests(p, vars) {
				checkAnonymous(t, s, p, r)
				checkWrongScope(t, s, p, wrong, r)
			}
			if len(vars) == 0 {
				return
			}
			if reason, ok := shared[p.Name]; ok {
				for _, r := range requests(p, foreignVars(t, p, vars, rows)) {
					if res := as(s, p, ann, annKey).Do(r.method, r.path, r.body); res.Status >= 500 {
						t.Errorf("%s %s %s (%s) with another account's row: %d %s", r.transport, r.method, r.path, reason, res.Status, res.Body)
					}
				}
				return
			}
			for _, r := range requests(p, foreignVars(t, p, vars, rows)) {
				res := as(s, p, ann, annKey).Do(r.method, r.path, r.body)
				if res.Status != http.StatusNotFound {
					t.Errorf("%s %s %s with another account's row: %d %s, want 404", r.transport, r.method, r.path, res.Status, res.Body)
				}
			}
		})
	}
}

// as picks the caller with every right but the row: the key, or the session
// for session-only procedures.
func as(s *servertest.Server, p *contract.Procedure, a *servertest.Account, key string) *servertest.Caller {
	if p.AcceptKey {
		return s.WithKey(key)
	}
	return a.Session
}

func checkAnonymous(t *testing.T, s *servertest.Server, p *contract.Procedure, r request) {
	t.Helper()
	res := s.Anonymous().Do(r.method, r.path, r.body)
	switch {
	case res.Status >= 500:
		t.Errorf("%s %s %s anonymously: %d %s", r.transport, r.method, r.path, res.Status, res.Body)
	case !p.Public && res.Status != http.StatusUnauthorized:
		t.Errorf("%s %s %s anonymously: %d %s, want 401", r.transport, r.method, r.path, res.Status, res.Body)
	}
}

// checkWrongScope calls with a valid key that lacks the procedure's scope (or
// any key, on a session-only procedure): 403.
func checkWrongScope(t *testing.T, s *servertest.Server, p *contract.Procedure, keys map[string]string, r request) {
	t.Helper()
	if p.Public {
		return
	}
	scope := "settings"
	if slices.Contains(p.Scopes, scope) {
		scope = "queue"
	}
	res := s.WithKey(keys[scope]).Do(r.method, r.path, r.body)
	if res.Status != http.StatusForbidden {
		t.Errorf("%s %s %s with a %q key: %d %s, want 403", r.transport, r.method, r.path, scope, res.Status, res.Body)
	}
}

// scopedKeys makes a key of each scope checkWrongScope uses.
func scopedKeys(a *servertest.Account) map[string]string {
	return map[string]string{"settings": a.NewKey("settings only", "settings"), "queue": a.NewKey("queue only", "queue")}
}

// foreignVars sets each path variable to the other account's row it names.
func foreignVars(t *testing.T, p *contract.Procedure, vars, rows map[string]string) map[string]string {
	t.Helper()
	kinds, ok := rowOf[p.Name]
	if !ok {
		if _, ok := shared[p.Name]; !ok {
			t.Fatalf("%s has path variables %v: say in rowOf which rows they name, or in shared why another account may use them", p.Name, vars)
		}
	}
	out := map[string]string{}
	for v := range vars {
		kind := kinds[v]
		if kind == "" {
			kind = "listing" // the store's shared routes name a listing
		}
		id, ok := rows[kind]
		if !ok {
			t.Fatalf("%s: no row of kind %q", p.Name, kind)
		}
		out[v] = id
	}
	return out
}

// makeRows creates one row of each kind in a's account and answers their ids;
// provider is a third account a hires.
func makeRows(t *testing.T, s *servertest.Server, a, provider *servertest.Account) map[string]string {
	t.Helper()
	key := a.NewKey("bob's agent")
	c := s.WithKey(key)
	rows := map[string]string{"absent": ids.New(), "execution": ids.New(), "user": a.ID}
	created := func(res *servertest.Response, envelope string) map[string]any {
		t.Helper()
		if res.Status != http.StatusOK && res.Status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", envelope, res.Status, res.Body)
		}
		m, _ := res.JSON(t)[envelope].(map[string]any)
		return m
	}
	rows["queue"], _ = created(c.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Bob's task"}), "item")["id"].(string)
	card := created(c.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Bob's card", "checklist": []any{map[string]any{"text": "step"}}}), "card")
	rows["card"], _ = card["id"].(string)
	if list, _ := card["checklist"].([]any); len(list) == 1 {
		rows["checklist"], _ = list[0].(map[string]any)["id"].(string)
	}
	other, _ := created(c.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Bob's other card"}), "card")["id"].(string)
	rows["card_link"], _ = created(c.Do(http.MethodPost, "/api/v2/kanban/"+rows["card"]+"/links",
		map[string]any{"toCardId": other, "linkType": "blocks"}), "link")["id"].(string)
	rows["contact"], _ = created(c.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Bob's contact"}), "contact")["id"].(string)
	rows["listing"], _ = created(c.Do(http.MethodPost, "/api/marketplace", map[string]any{
		"name": "Bob's agent", "endpointUrl": "https://agents.example.com/bob", "category": "research",
		"pricingModel": "free", "authMethod": "none",
	}), "agent")["id"].(string)
	rows["capability"], _ = created(c.Do(http.MethodPost, "/api/marketplace-capabilities", map[string]any{
		"action": "create", "name": "Bob's pack", "prompt": "Write to {{recipient}}", "editableFields": `[{"name":"recipient"}]`,
	}), "capability")["capabilityId"].(string)
	rows["team"], _ = created(a.Session.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Bob's team"}), "team")["id"].(string)
	rows["project"], _ = created(c.Do(http.MethodPost, "/api/projects", map[string]any{"name": "Bob's project"}), "project")["id"].(string)
	// An invite to each for the instance's owner (signed up first): the
	// other account holds the token or the id but is not the invitee, so its
	// answer is 403 and changes nothing.
	inv := a.Session.Do(http.MethodPost, "/api/teams/"+rows["team"]+"/invites", map[string]any{"email": "owner@example.com"})
	if inv.Status != http.StatusCreated {
		t.Fatalf("team invite: %d %s", inv.Status, inv.Body)
	}
	rows["team_invite"], _ = inv.JSON(t)["token"].(string)
	rows["project_invite"], _ = created(a.Session.Do(http.MethodPost, "/api/projects/"+rows["project"]+"/invite",
		map[string]any{"email": "owner@example.com"}), "invite")["id"].(string)
	rows["document"], _ = created(a.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "Bob's notes", "content": "private"}), "document")["id"].(string)
	rows["calendar_event"], _ = created(a.Session.Do(http.MethodPost, "/api/calendar/events", map[string]any{"title": "Bob's meeting",
		"startsAt": "2030-01-01T10:00:00Z", "endsAt": "2030-01-01T11:00:00Z"}), "event")["id"].(string)
	rows["learning"], _ = created(a.Session.Do(http.MethodPost, "/api/learnings", map[string]any{"category": "behavior", "content": "Bob's habit"}), "learning")["id"].(string)
	rows["workflow"] = learningrules.WorkflowID([]string{"open_view", "approve", "move"})
	keys := a.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)
	rows["key"], _ = keys[0].(map[string]any)["id"].(string)
	rows["inbound_webhook"], _ = a.Session.Do(http.MethodPost, "/api/webhooks/inbound",
		map[string]any{"kind": "generic", "name": "Bob's alerts"}).JSON(t)["id"].(string)
	// The developer portal's rows: a developer key, a connect token, a
	// widget template.
	created(a.Session.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": "Bob's CI"}), "key")
	rows["developer_key"], _ = a.Session.Do(http.MethodGet, "/api/developer/keys", nil).JSON(t)["keys"].([]any)[0].(map[string]any)["id"].(string)
	created(a.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{}), "token")
	rows["connect_token"], _ = a.Session.Do(http.MethodGet, "/api/developer/connect-tokens", nil).JSON(t)["tokens"].([]any)[0].(map[string]any)["id"].(string)
	rows["widget_template"], _ = created(a.Session.Do(http.MethodPost, "/api/developer/widget-templates",
		map[string]any{"name": "Bob's summary", "widget": portalWidget}), "template")["id"].(string)
	// A request from a peer, as the handshake records it (the handshake
	// itself needs a second instance: server/network's tests).
	conn, err := s.DB.NetworkConnection.Create().SetUserID(a.ID).SetPeerInstanceURL("https://peer.example").
		SetPeerUserEmail("pat@peer.example").SetDirection(networkconnection.DirectionInbound).Save(context.Background())
	if err != nil {
		t.Fatalf("connection: %v", err)
	}
	rows["connection"] = conn.ID
	// The exchange's rows, as a peer's calls and the routes write them.
	ctx := context.Background()
	note, err := s.DB.Notification.Create().SetUserID(a.ID).SetType("mention").SetTitle("Hi").
		SetFromUserEmail("pat@peer.example").SetFromInstanceURL("https://peer.example").Save(ctx)
	if err != nil {
		t.Fatalf("notification: %v", err)
	}
	rows["notification"] = note.ID
	offer, err := s.DB.ProviderCapability.Create().SetUserID(a.ID).SetTaskType("review").Save(ctx)
	if err != nil {
		t.Fatalf("provider capability: %v", err)
	}
	rows["provider_capability"] = offer.ID
	// A board insight, as the scan writes it.
	in, err := s.DB.BoardInsight.Create().SetUserID(a.ID).SetType("stale_card").SetConfidence(1).
		SetReason("stale").SetSourceID(rows["card"]).Save(ctx)
	if err != nil {
		t.Fatalf("insight: %v", err)
	}
	rows["insight"] = in.ID
	// A quarantined relay from that peer (relays need two instances too).
	rel, err := s.DB.Relay.Create().SetUserID(a.ID).SetConnectionID(conn.ID).SetRelayID("peer-relay-1").
		SetDirection(relay.DirectionInbound).SetType(relay.TypeRequest).SetQuarantined(true).Save(context.Background())
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	rows["relay"] = rel.ID
	makeContract(t, c, provider, rows)
	makeJobs(t, c, provider, rows)
	for kind, id := range rows {
		if id == "" {
			t.Fatalf("no %s row made", kind)
		}
	}
	return rows
}

// makeContract hires provider through the API as c's account and takes the
// contract to its end, so that it has an amendment and its client's review:
// rows "contract", "amendment" (its number) and "contract_review".
func makeContract(t *testing.T, c *servertest.Caller, provider *servertest.Account, rows map[string]string) {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/economy/contracts", map[string]any{"provider": map[string]any{"userId": provider.ID},
		"taskType": "research", "title": "Bob's engagement", "priceCents": 1000})
	if res.Status != http.StatusCreated {
		t.Fatalf("hire: %d %s", res.Status, res.Body)
	}
	id, _ := res.JSON(t)["contract"].(map[string]any)["id"].(string)
	rows["contract"] = id
	for _, step := range []struct {
		by         *servertest.Caller
		move       string
		body       map[string]any
		wantStatus int
	}{
		{provider.Session, "accept", map[string]any{}, http.StatusOK},
		{c, "scope", map[string]any{"item": "One more chart", "priceCents": 500}, http.StatusOK},
		{provider.Session, "deliver", map[string]any{"summary": "Done"}, http.StatusOK},
		{c, "close", map[string]any{}, http.StatusOK},
		{c, "review", map[string]any{"overall": 4, "communication": 5, "quality": 4, "timeliness": 5}, http.StatusCreated},
	} {
		if res := step.by.Do(http.MethodPost, "/api/economy/contracts/"+id+"/"+step.move, step.body); res.Status != step.wantStatus {
			t.Fatalf("contract %s: %d %s", step.move, res.Status, res.Body)
		}
	}
	detail := c.Do(http.MethodGet, "/api/economy/contracts/"+id, nil).JSON(t)
	if list, _ := detail["amendments"].([]any); len(list) == 1 {
		if n, ok := list[0].(map[string]any)["n"].(float64); ok {
			rows["amendment"] = strconv.Itoa(int(n))
		}
	}
	if list, _ := detail["reviews"].([]any); len(list) == 1 {
		rows["contract_review"], _ = list[0].(map[string]any)["id"].(string)
	}
}

// makeJobs posts two direct jobs through the API as c's account, on its
// board only (it has no active connection), and has provider apply to the
// first: rows "job" and "job_application" (that pending application), and
// "open_job", the one other accounts apply to.
func makeJobs(t *testing.T, c *servertest.Caller, provider *servertest.Account, rows map[string]string) {
	t.Helper()
	post := func(title string) string {
		t.Helper()
		res := c.Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{"title": title, "description": "Port it to Go",
			"taskType": "technical", "requiredSkills": []string{"go"}})
		if res.Status != http.StatusCreated {
			t.Fatalf("post job: %d %s", res.Status, res.Body)
		}
		job, _ := res.JSON(t)["job"].(map[string]any)
		if job["mode"] != "direct" || job["status"] != "open" {
			t.Fatalf("post job: %v, want an open direct job", job)
		}
		id, _ := job["id"].(string)
		return id
	}
	rows["job"], rows["open_job"] = post("Bob's job"), post("Bob's other job")
	res := provider.Session.Do(http.MethodPost, "/api/federation/jobs/"+rows["job"]+"/apply",
		map[string]any{"message": "Mine", "priceCents": 1500, "etaDays": 2})
	if res.Status != http.StatusCreated {
		t.Fatalf("apply: %d %s", res.Status, res.Body)
	}
	rows["job_application"], _ = res.JSON(t)["application"].(map[string]any)["id"].(string)
}

// The streaming procedures over the Connect protocols: anonymous is
// unauthenticated; a key of another scope (StreamEvents) or any key
// (SendChat, session only) permission denied.
func TestAccessMatrixStreams(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	a := s.SignUp("ann")
	streams := 0
	for _, p := range contract.MustLoad().All() {
		if p.Descriptor.IsStreamingServer() {
			streams++
		}
	}
	if streams != 2 {
		t.Fatalf("the contract has %d streaming RPCs; this test knows EventService.StreamEvents and AssistantChatService.SendChat only: add the new one", streams)
	}
	type opener func(hc *http.Client, opts []connect.ClientOption) error
	drain := func(err error, receive func() bool, end func() error) error {
		if err != nil {
			return err
		}
		for receive() {
		}
		return end()
	}
	openers := map[string]opener{
		"StreamEvents": func(hc *http.Client, opts []connect.ClientOption) error {
			st, err := switchboardv1connect.NewEventServiceClient(hc, s.URL, opts...).StreamEvents(context.Background(), &switchboardv1.StreamEventsRequest{})
			if err != nil {
				return err
			}
			defer st.Close()
			return drain(nil, st.Receive, st.Err)
		},
		"SendChat": func(hc *http.Client, opts []connect.ClientOption) error {
			st, err := switchboardv1connect.NewAssistantChatServiceClient(hc, s.URL, opts...).SendChat(context.Background(), &switchboardv1.SendChatRequest{Message: "hi"})
			if err != nil {
				return err
			}
			defer st.Close()
			return drain(nil, st.Receive, st.Err)
		},
	}
	keys := scopedKeys(a)
	keys["default"] = a.NewKey("default scopes")
	for name, opts := range servertest.Protocols() {
		for rpc, open := range openers {
			for _, tc := range []struct {
				key  string
				want connect.Code
			}{
				{"", connect.CodeUnauthenticated},
				{keys["settings"], connect.CodePermissionDenied},
			} {
				if rpc == "SendChat" && tc.key == keys["settings"] {
					tc.key = keys["default"] // session only: no key at all
				}
				opts := opts
				if tc.key != "" {
					opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(tc.key)))
				}
				if err := open(s.Client(name), opts); connect.CodeOf(err) != tc.want {
					t.Errorf("%s %s, with key %v: %v, want %v", name, rpc, tc.key != "", err, tc.want)
				}
			}
		}
	}
}

// The document routes that are not RPCs (server/app.go mountDocuments),
// admitted as their twins: anonymous 401, any API key 403, another
// account's document 404.
func TestDocumentPlainRoutes(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	rows := map[string]string{}
	res := bob.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "Bob's", "content": "private"})
	rows["document"], _ = res.JSON(t)["document"].(map[string]any)["id"].(string)
	raw := "/api/documents/" + rows["document"] + "/raw"
	form := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--b--\r\n"
	multipart := []string{"Content-Type", "multipart/form-data; boundary=b"}
	for _, tc := range []struct {
		name   string
		caller *servertest.Caller
		want   int
	}{
		{"anonymous", s.Anonymous(), http.StatusUnauthorized},
		{"API key", s.WithKey(ann.NewKey("agent")), http.StatusForbidden},
	} {
		if res := tc.caller.Do(http.MethodGet, raw, nil); res.Status != tc.want {
			t.Errorf("raw, %s: %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
		if res := tc.caller.Do(http.MethodPost, "/api/documents", form, multipart...); res.Status != tc.want {
			t.Errorf("upload, %s: %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
	}
	if res := ann.Session.Do(http.MethodGet, raw, nil); res.Status != http.StatusNotFound {
		t.Errorf("raw of another account's document: %d %s, want 404", res.Status, res.Body)
	}
	if res := bob.Session.Do(http.MethodGet, raw, nil); res.Status != http.StatusOK || string(res.Body) != "private" {
		t.Errorf("raw of one's own document: %d %s", res.Status, res.Body)
	}
	if res := ann.Session.Do(http.MethodPost, "/api/documents", form, multipart...); res.Status != http.StatusCreated {
		t.Errorf("upload with a session: %d %s", res.Status, res.Body)
	}
}
