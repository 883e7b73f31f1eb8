package throughtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Onboarding, sprite, admin views, the developer portal":
// Onboarding and its Details.

// sessionHTTP is an HTTP client carrying a's session, for Connect clients.
func sessionHTTP(s *servertest.Server, a *servertest.Account) *http.Client {
	return &http.Client{Jar: a.Jar, Transport: s.HTTP.Transport, Timeout: s.HTTP.Timeout}
}

// steps reads an onboarding answer's steps as key → completed.
func steps(t *testing.T, body map[string]any) map[string]bool {
	t.Helper()
	list, _ := body["steps"].([]any)
	if len(list) != len(vocab.OnboardingStepValues()) {
		t.Fatalf("steps: %v", body["steps"])
	}
	out := map[string]bool{}
	for i, s := range list {
		m := s.(map[string]any)
		if m["key"] != string(vocab.OnboardingStepValues()[i]) || m["text"] == "" {
			t.Fatalf("step %d: %v", i, m)
		}
		out[m["key"].(string)] = m["completed"] == true
	}
	return out
}

// onboarding is the caller's GET /api/onboarding.
func onboarding(t *testing.T, acc *servertest.Account) map[string]any {
	t.Helper()
	res := acc.Session.Do(http.MethodGet, "/api/onboarding", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	return res.JSON(t)
}

// done lists the completed steps of acc's checklist, in the checklist's
// order, and checks that its card's items say the same.
func done(t *testing.T, acc *servertest.Account) []string {
	t.Helper()
	body := onboarding(t, acc)
	var out []string
	for k, v := range steps(t, body) {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	card, _ := body["card"].(map[string]any)
	if card == nil {
		t.Fatalf("no card: %v", body)
	}
	var checked []string
	for _, it := range card["checklist"].([]any) {
		if it := it.(map[string]any); it["completed"] == true {
			checked = append(checked, it["text"].(string))
		}
	}
	if len(checked) != len(out) {
		t.Errorf("the card has %d items checked (%v), the steps %d (%v)", len(checked), checked, len(out), out)
	}
	return out
}

// actions are acc's activity entries of the settings category, oldest
// first, as "action: summary".
func settingsActivity(t *testing.T, acc *servertest.Account) []string {
	t.Helper()
	res := acc.Session.Do(http.MethodGet, "/api/activity?category=settings&limit=100", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	var out []string
	for _, e := range res.JSON(t)["data"].([]any) {
		e := e.(map[string]any)
		out = append(out, e["action"].(string)+": "+e["summary"].(string))
	}
	slices.Reverse(out)
	return out
}

func countPrefix(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func sorted(keys ...vocab.OnboardingStep) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k)
	}
	slices.Sort(out)
	return out
}

// Each of the six real actions, through its own route, completes its item
// on the checklist and the card; the settings save writes setup_action; the
// sixth sets onboardingComplete and writes onboarding_completed, once.
func TestOnboardingStepsCompleteByTheirActions(t *testing.T) {
	t.Parallel()
	provider := llmtest.New(t)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"ok"}`))
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, append(networktest.Options(), servertest.WithLLM(provider.URL))...)
	peer := servertest.New(t, networktest.Options()...)
	ann, dora := srv.SignUp("ann"), srv.SignUp("dora")
	pat := peer.SignUp("pat")
	res := dora.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Deep Research", "endpointUrl": agent.URL,
		"pricingModel": "free", "taskTypes": []string{"research"}})
	servertest.WantStatus(t, res, http.StatusCreated)
	agentID := res.JSON(t)["agent"].(map[string]any)["id"].(string)

	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/onboarding/intro", map[string]any{}), http.StatusOK)
	res = ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	body := res.JSON(t)
	if card := body["card"].(map[string]any); card["title"] != "Getting started" || len(card["checklist"].([]any)) != 6 {
		t.Fatalf("setup-project's card: %v", card)
	}
	project := body["project"].(map[string]any)
	if project["name"] != "Getting started" || body["card"].(map[string]any)["projectId"] != project["id"] {
		t.Fatalf("setup-project's project: %v (card %v)", project, body["card"])
	}
	for k, v := range steps(t, body) {
		if v {
			t.Errorf("step %s completed before any action", k)
		}
	}

	var want []vocab.OnboardingStep
	act := func(step vocab.OnboardingStep, do func()) {
		t.Helper()
		do()
		want = append(want, step)
		if got := done(t, ann); !slices.Equal(got, sorted(want...)) {
			t.Fatalf("after the %s action: done %v, want %v", step, got, sorted(want...))
		}
	}
	act(vocab.OnboardingStepAPIKey, func() { ann.NewKey("my agent") })
	act(vocab.OnboardingStepAutoApprove, func() {
		servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"queueAutoApprove": true}), http.StatusOK)
	})
	act(vocab.OnboardingStepContact, func() {
		servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Grace"}), http.StatusCreated)
	})
	act(vocab.OnboardingStepStore, func() {
		servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/marketplace/"+agentID+"/install", map[string]any{}), http.StatusCreated)
	})
	act(vocab.OnboardingStepNetwork, func() { networktest.Connect(t, srv, ann, peer, pat) })
	if onboarding(t, ann)["onboardingComplete"] == true {
		t.Fatal("complete after five steps")
	}
	act(vocab.OnboardingStepAssistant, func() {
		provider.Chat(llmtest.Reply{Tokens: []string{"Hello!"}})
		all(t, send(ann, "hi"))
	})

	body = onboarding(t, ann)
	if body["onboardingComplete"] != true || body["onboardingPhase"] != float64(6) {
		t.Errorf("after the sixth: %v", body)
	}
	if card := body["card"].(map[string]any); card["status"] != string(vocab.CardStatusCompleted) {
		t.Errorf("the card with every item checked: %v", card["status"])
	}
	if s := ann.Session.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t); s["onboardingComplete"] != true {
		t.Errorf("settings: %v", s)
	}
	log := settingsActivity(t, ann)
	if countPrefix(log, "setup_action: ") != 1 || !strings.Contains(log[slices.IndexFunc(log, func(s string) bool { return strings.HasPrefix(s, "setup_action") })], "auto-approve") {
		t.Errorf("one setup_action for the settings save: %v", log)
	}
	// The intro's and five actions' progress, then the end.
	if countPrefix(log, "onboarding_progress: ") != 6 || countPrefix(log, "onboarding_completed: ") != 1 || !strings.HasPrefix(log[len(log)-1], "onboarding_completed: ") {
		t.Errorf("settings activity: %v", log)
	}
	// A step done again changes nothing.
	ann.NewKey("another")
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"queueAutoApprove": true}), http.StatusOK)
	if again := settingsActivity(t, ann); countPrefix(again, "onboarding_") != countPrefix(log, "onboarding_") || countPrefix(again, "setup_action") != 1 {
		t.Errorf("after the checklist was complete: %v", again)
	}
	// Dora's checklist is her own: none yet, six steps open.
	if b := onboarding(t, dora); b["card"] != nil || b["project"] != nil || b["onboardingComplete"] == true {
		t.Errorf("dora's onboarding: %v", b)
	}
}

// A custom pack, made by its creator, is installed for them: the store step.
// A settings save without auto-approve completes nothing.
func TestOnboardingCustomPackCompletesTheStoreStep(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{}), http.StatusOK)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"bio": "hello"}), http.StatusOK)
	if got := done(t, ann); len(got) != 0 {
		t.Fatalf("a settings save without auto-approve: %v", got)
	}
	res := ann.Session.Do(http.MethodPost, "/api/marketplace-capabilities", map[string]any{
		"action": "create", "name": "Follow-ups", "prompt": "Write to {{recipient}}", "editableFields": `[{"name":"recipient"}]`})
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		t.Fatalf("create a pack: %d %s", res.Status, res.Body)
	}
	if got := done(t, ann); !slices.Equal(got, sorted(vocab.OnboardingStepStore)) {
		t.Errorf("after the custom pack: %v", got)
	}
}

// Joining a hub completes the network step of the admin who joined.
func TestOnboardingHubJoinCompletesTheNetworkStep(t *testing.T) {
	t.Parallel()
	hub := servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints())
	spoke := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints())
	hubAdmin, admin := hub.SignUp("owner"), spoke.SignUp("owner")
	servertest.WantStatus(t, admin.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{}), http.StatusOK)
	res := hubAdmin.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "instance"})
	servertest.WantStatus(t, res, http.StatusCreated)
	token := res.JSON(t)["token"].(map[string]any)["token"].(string)
	servertest.WantStatus(t, admin.Session.Do(http.MethodPost, "/api/federation/join",
		map[string]any{"hubUrl": hub.URL, "connectToken": token}), http.StatusOK)
	if got := done(t, admin); !slices.Equal(got, sorted(vocab.OnboardingStepNetwork)) {
		t.Errorf("after joining the hub: %v", got)
	}
}

// Actions done before setup-project complete their steps at once, with
// their progress entries; the rest stay open.
func TestOnboardingActionsBeforeSetupCompleteAtOnce(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	ann.NewKey("early")
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Grace"}), http.StatusCreated)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"queueAutoApprove": true}), http.StatusOK)
	if log := settingsActivity(t, ann); countPrefix(log, "setup_action") != 0 || countPrefix(log, "onboarding_") != 0 {
		t.Errorf("before the checklist: %v", log)
	}
	res := ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	got := steps(t, res.JSON(t))
	for _, k := range vocab.OnboardingStepValues() {
		want := k == vocab.OnboardingStepAPIKey || k == vocab.OnboardingStepContact || k == vocab.OnboardingStepAutoApprove
		if got[string(k)] != want {
			t.Errorf("step %s completed = %t, want %t", k, got[string(k)], want)
		}
	}
	if n := countPrefix(settingsActivity(t, ann), "onboarding_progress"); n != 3 {
		t.Errorf("%d progress entries, want 3", n)
	}
}

// advance completes a step by key (a done one stays done, no new entry);
// an unknown or empty key is 400 and changes nothing; before setup-project
// it is 400; the sixth by hand completes onboarding, over REST and Connect.
func TestOnboardingAdvance(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	res := ann.Session.Do(http.MethodPost, "/api/onboarding/advance", map[string]any{"step": "contact"})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "setup-project")
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{}), http.StatusOK)
	for _, bad := range []string{"contacts", "", "API_KEY"} {
		res := ann.Session.Do(http.MethodPost, "/api/onboarding/advance", map[string]any{"step": bad})
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, "step")
	}
	if got := done(t, ann); len(got) != 0 {
		t.Fatalf("after refused advances: %v", got)
	}
	res = ann.Session.Do(http.MethodPost, "/api/onboarding/advance", map[string]any{"step": "contact"})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := steps(t, res.JSON(t)); !got["contact"] || got["api_key"] || res.JSON(t)["onboardingComplete"] == true {
		t.Errorf("advance contact: %v", res.JSON(t))
	}
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/onboarding/advance", map[string]any{"step": "contact"}), http.StatusOK)
	if n := countPrefix(settingsActivity(t, ann), "onboarding_progress"); n != 1 {
		t.Errorf("advancing a done step wrote: %d progress entries", n)
	}

	client := switchboardv1connect.NewOnboardingServiceClient(sessionHTTP(srv, ann), srv.URL)
	_, err := client.AdvanceOnboarding(context.Background(), &switchboardv1.AdvanceOnboardingRequest{Step: "nope"})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	var last *switchboardv1.AdvanceOnboardingResponse
	for _, k := range []string{"api_key", "auto_approve", "store", "network", "assistant"} {
		if last, err = client.AdvanceOnboarding(context.Background(), &switchboardv1.AdvanceOnboardingRequest{Step: k}); err != nil {
			t.Fatalf("advance %s over Connect: %v", k, err)
		}
	}
	if !last.GetOnboardingComplete() || last.GetCard().GetStatus() != string(vocab.CardStatusCompleted) {
		t.Errorf("the sixth by hand: complete %t, card %s", last.GetOnboardingComplete(), last.GetCard().GetStatus())
	}
	if log := settingsActivity(t, ann); countPrefix(log, "onboarding_completed") != 1 {
		t.Errorf("activity: %v", log)
	}
}

// A second setup-project keeps the one project and card and moves the due
// date; one without dueAt keeps it; a deleted card is made again, its done
// steps checked.
func TestOnboardingSetupTwiceUpdatesTheDueDate(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	first := time.Date(2030, 3, 1, 17, 0, 0, 0, time.UTC)
	res := ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{"dueAt": first.Format(time.RFC3339)})
	servertest.WantStatus(t, res, http.StatusOK)
	card := res.JSON(t)["card"].(map[string]any)
	project := res.JSON(t)["project"].(map[string]any)
	if servertest.At(t, card["dueDate"]) != first {
		t.Fatalf("due date: %v", card["dueDate"])
	}
	second := first.Add(72 * time.Hour)
	res = ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{"dueAt": second.Format(time.RFC3339)})
	servertest.WantStatus(t, res, http.StatusOK)
	again := res.JSON(t)["card"].(map[string]any)
	if again["id"] != card["id"] || res.JSON(t)["project"].(map[string]any)["id"] != project["id"] || servertest.At(t, again["dueDate"]) != second {
		t.Errorf("second call: card %v (was %v), project %v", again, card["id"], res.JSON(t)["project"])
	}
	res = ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{})
	if servertest.At(t, res.JSON(t)["card"].(map[string]any)["dueDate"]) != second {
		t.Errorf("a call without dueAt moved the date: %v", res.JSON(t)["card"])
	}
	list := ann.Session.Do(http.MethodGet, "/api/projects", nil).JSON(t)["projects"].([]any)
	if len(list) != 1 {
		t.Errorf("projects: %v", list)
	}

	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/onboarding/advance", map[string]any{"step": "contact"}), http.StatusOK)
	servertest.WantStatus(t, ann.Session.Do(http.MethodDelete, "/api/v2/kanban/"+card["id"].(string), nil), http.StatusOK)
	if b := onboarding(t, ann); b["card"] != nil || !steps(t, b)["contact"] {
		t.Errorf("with the card deleted: %v", b)
	}
	res = ann.Session.Do(http.MethodPost, "/api/onboarding/setup-project", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	if remade := res.JSON(t)["card"].(map[string]any); remade["id"] == card["id"] || remade["projectId"] != project["id"] {
		t.Errorf("the card made again: %v", remade)
	}
	if got := done(t, ann); !slices.Equal(got, []string{"contact"}) {
		t.Errorf("the remade card's checked items: %v", got)
	}
}

// The intro sets onboardingPhase 6 with one onboarding_progress, however
// often it is called; GET answers the phase and no checklist before
// setup-project.
func TestOnboardingIntro(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	if b := onboarding(t, ann); b["onboardingPhase"] != float64(0) || b["card"] != nil {
		t.Fatalf("before the intro: %v", b)
	}
	for range 2 {
		res := ann.Session.Do(http.MethodPost, "/api/onboarding/intro", map[string]any{})
		servertest.WantStatus(t, res, http.StatusOK)
		if res.JSON(t)["onboardingPhase"] != float64(6) {
			t.Errorf("intro: %s", res.Body)
		}
	}
	if s := ann.Session.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t); s["onboardingPhase"] != float64(6) {
		t.Errorf("settings: %v", s)
	}
	if log := settingsActivity(t, ann); len(log) != 1 || !strings.HasPrefix(log[0], "onboarding_progress: ") {
		t.Errorf("activity: %v", log)
	}
	// A key is refused: session only.
	key := ann.NewKey("agent", "settings")
	servertest.WantStatus(t, srv.WithKey(key).Do(http.MethodPost, "/api/onboarding/intro", map[string]any{}), http.StatusForbidden)
}

// setup-project with a Timestamp over Connect, for the transports' parity.
func TestOnboardingSetupOverConnect(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	client := switchboardv1connect.NewOnboardingServiceClient(sessionHTTP(srv, ann), srv.URL)
	due := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	res, err := client.SetupProject(context.Background(), &switchboardv1.SetupProjectRequest{DueAt: timestamppb.New(due)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.GetCard().GetDueDate().AsTime().Equal(due) || res.GetProject().GetName() != "Getting started" || len(res.GetSteps()) != 6 {
		t.Errorf("setup over Connect: %v", res)
	}
}
