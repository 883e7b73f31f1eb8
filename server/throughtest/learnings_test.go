package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/behaviorsignal"
	"github.com/switchboard-hq/switchboard/ent/learning"
	"github.com/switchboard-hq/switchboard/ent/notification"
	"github.com/switchboard-hq/switchboard/ent/periodicrun"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/learnings"
	learningrules "github.com/switchboard-hq/switchboard/server/learnings/rules"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Spec: document 2 "Behavior signals, learnings, board analysis"; RULINGS
// "The proactive layer" and its Details (Signals, Learnings).

func signalCount(t *testing.T, s *servertest.Server, userID string) int {
	t.Helper()
	n, err := s.DB.BehaviorSignal.Query().Where(behaviorsignal.UserID(userID)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A signal is stored with the caller's timezone's hour and day by default,
// hourOfDay stands for hour, and every refusal is 400 with nothing written.
func TestBehaviorSignalsRecordAndRefuse(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	// 2026-11-29 is a Sunday; 23:30 UTC is 08:30 Monday in Tokyo.
	s.Clock.Advance(time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC).Sub(s.Clock.Now()))
	res := ann.Session.Do(http.MethodPost, "/api/behavior-signals", map[string]any{"action": "approve", "context": map[string]any{"view": "queue"}, "duration": 1200})
	servertest.WantStatus(t, res, http.StatusCreated)
	sig := res.JSON(t)["signal"].(map[string]any)
	if sig["hour"] != float64(23) || sig["dayOfWeek"] != float64(0) || sig["duration"] != "1200" && sig["duration"] != float64(1200) ||
		sig["context"].(map[string]any)["view"] != "queue" {
		t.Errorf("signal in UTC: %v", sig)
	}
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"timezone": "Asia/Tokyo"}), http.StatusOK)
	servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"timezone": "Mars/Olympus"}), http.StatusBadRequest)
	sig = ann.Session.Do(http.MethodPost, "/api/behavior-signals", map[string]any{"action": "move"}).JSON(t)["signal"].(map[string]any)
	if sig["hour"] != float64(8) || sig["dayOfWeek"] != float64(1) {
		t.Errorf("signal in Tokyo: %v, want hour 8 on Monday", sig)
	}
	sig = ann.Session.Do(http.MethodPost, "/api/behavior-signals", map[string]any{"action": "open_view", "hourOfDay": 5, "dayOfWeek": 6}).JSON(t)["signal"].(map[string]any)
	if sig["hour"] != float64(5) || sig["dayOfWeek"] != float64(6) {
		t.Errorf("hourOfDay: %v", sig)
	}
	before := signalCount(t, s, ann.ID)
	for name, body := range map[string]map[string]any{
		"no action":       {},
		"empty action":    {"action": ""},
		"long action":     {"action": strings.Repeat("a", 101)},
		"hour 24":         {"action": "a", "hour": 24},
		"hour -1":         {"action": "a", "hour": -1},
		"hourOfDay 24":    {"action": "a", "hourOfDay": 24},
		"day 7":           {"action": "a", "dayOfWeek": 7},
		"context > 4 KB":  {"action": "a", "context": map[string]any{"text": strings.Repeat("x", 4100)}},
		"context a list":  {"action": "a", "context": []any{1}},
		"negative length": {"action": "a", "duration": -1},
	} {
		if res := ann.Session.Do(http.MethodPost, "/api/behavior-signals", body); res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, res.Status, res.Body)
		}
	}
	for _, q := range []string{"days=0", "days=366", "days=-1"} {
		servertest.WantError(t, ann.Session.Do(http.MethodGet, "/api/behavior-signals?"+q, nil), http.StatusBadRequest)
	}
	if after := signalCount(t, s, ann.ID); after != before {
		t.Errorf("refusals wrote %d signals", after-before)
	}
	// Over Connect: the same refusal, and a signal.
	client := switchboardv1connect.NewBehaviorSignalServiceClient(&http.Client{Jar: ann.Jar}, s.URL)
	_, err := client.RecordBehaviorSignal(context.Background(), &switchboardv1.RecordBehaviorSignalRequest{Action: "a", Hour: ptr(int32(30))})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	out, err := client.RecordBehaviorSignal(context.Background(), &switchboardv1.RecordBehaviorSignalRequest{Action: "reject"})
	if err != nil || out.GetSignal().GetAction() != "reject" || out.GetSignal().GetHour() != 8 {
		t.Fatalf("Connect signal: %v %v", out, err)
	}
	// The list, newest first, and the aggregate on both transports.
	list := ann.Session.Do(http.MethodGet, "/api/behavior-signals?limit=2", nil).JSON(t)
	if sigs := list["signals"].([]any); len(sigs) != 2 || list["pagination"].(map[string]any)["total"] != float64(4) {
		t.Errorf("list: %v", list)
	}
	agg := ann.Session.Do(http.MethodGet, "/api/behavior-signals?days=30", nil).JSON(t)
	if agg["totalSignals"] != float64(4) || len(agg["byHour"].([]any)) != 24 || len(agg["byDay"].([]any)) != 7 ||
		agg["peakHour"] != float64(8) || agg["peakDay"] != float64(1) || agg["byAction"].(map[string]any)["approve"] != float64(1) {
		t.Errorf("aggregate: %v", agg)
	}
	if _, ok := agg["signals"]; ok {
		t.Errorf("aggregate carries a page: %v", agg)
	}
	a, err := client.ListBehaviorSignals(context.Background(), &switchboardv1.ListBehaviorSignalsRequest{Days: ptr(int32(7))})
	if err != nil || a.GetTotalSignals() != 4 || a.GetByDay()[1] != 2 {
		t.Errorf("Connect aggregate: %v %v", a, err)
	}
}

// seedSignals records n signals of action at hour on day.
func seedSignals(t *testing.T, c *servertest.Caller, action string, hour, day, n int) {
	t.Helper()
	for range n {
		servertest.WantStatus(t, c.Do(http.MethodPost, "/api/behavior-signals", map[string]any{"action": action, "hour": hour, "dayOfWeek": day}), http.StatusCreated)
	}
}

// The analysis of a seeded history: the expected learnings with their
// confidence, a notification and an activity entry for each; a second run
// duplicates nothing; a dismissed one is not raised again; another
// account's learning is 404.
func TestLearningsAnalyze(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	ctx := context.Background()
	seedSignals(t, ann.Session, "approve", 9, 2, 12)
	seedSignals(t, ann.Session, "move", 14, 1, 4)
	// Five items approved unedited through the queue.
	key := ann.NewKey("agent", "queue")
	for range 5 {
		it := s.WithKey(key).Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Send the report"})
		servertest.WantStatus(t, it, http.StatusCreated)
		id := it.JSON(t)["item"].(map[string]any)["id"].(string)
		servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"action": "approve"}), http.StatusOK)
	}
	res := ann.Session.Do(http.MethodPost, "/api/learnings/analyze", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	body := res.JSON(t)
	want := map[string]float64{
		"Most active between 09:00 and 10:00": 0.71,
		"Most active on Tuesdays":             0.71,
		`Often does "approve"`:                0.71,
		"Approves task items without editing them: consider auto-approving them": 0.5,
	}
	got := map[string]float64{}
	for _, l := range body["created"].([]any) {
		m := l.(map[string]any)
		got[m["content"].(string)] = m["confidence"].(float64)
	}
	for content, conf := range want {
		if got[content] != conf {
			t.Errorf("learning %q: confidence %v, want %v (all: %v)", content, got[content], conf, got)
		}
	}
	created := len(got)
	if body["signalsAnalyzed"] != float64(16) {
		t.Errorf("signalsAnalyzed %v", body["signalsAnalyzed"])
	}
	notes, _ := s.DB.Notification.Query().Where(notification.UserID(ann.ID), notification.TypeEQ("learning_generated")).Count(ctx)
	acts, _ := s.DB.ActivityEntry.Query().Where(activityentry.UserID(ann.ID), activityentry.Action("learning_generated")).Count(ctx)
	if notes != created || acts != created {
		t.Errorf("%d learnings, %d notifications, %d activity entries", created, notes, acts)
	}
	list := ann.Session.Do(http.MethodGet, "/api/notifications", nil).JSON(t)
	if n := list["notifications"].([]any); len(n) != created || n[0].(map[string]any)["type"] != "learning_generated" {
		t.Errorf("notifications: %v", list)
	}
	// Twice: refreshed, nothing new.
	client := switchboardv1connect.NewLearningServiceClient(&http.Client{Jar: ann.Jar}, s.URL)
	again, err := client.AnalyzeLearnings(ctx, &switchboardv1.AnalyzeLearningsRequest{})
	if err != nil || len(again.GetCreated()) != 0 || len(again.GetRefreshed()) != created {
		t.Fatalf("second analysis: %v %v", again, err)
	}
	if n, _ := s.DB.Learning.Query().Where(learning.UserID(ann.ID)).Count(ctx); n != created {
		t.Errorf("%d learnings after two runs, want %d", n, created)
	}
	// Dismiss one: hidden from the list, kept with includeDismissed, not raised again.
	var id string
	for _, l := range ann.Session.Do(http.MethodGet, "/api/learnings", nil).JSON(t)["learnings"].([]any) {
		if m := l.(map[string]any); m["content"] == `Often does "approve"` {
			id = m["id"].(string)
		}
	}
	if id == "" {
		t.Fatal("no behavior learning listed")
	}
	// Another account's id is 404 on both transports and changes nothing.
	servertest.WantError(t, bob.Session.Do(http.MethodPatch, "/api/learnings/"+id, map[string]any{"dismissed": true}), http.StatusNotFound)
	servertest.WantError(t, bob.Session.Do(http.MethodDelete, "/api/learnings/"+id, nil), http.StatusNotFound)
	_, err = switchboardv1connect.NewLearningServiceClient(&http.Client{Jar: bob.Jar}, s.URL).DeleteLearning(ctx, &switchboardv1.DeleteLearningRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/learnings/"+id, map[string]any{}), http.StatusBadRequest)
	servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/learnings/"+id, map[string]any{"content": ""}), http.StatusBadRequest)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/learnings/"+id, map[string]any{"dismissed": true}), http.StatusOK)
	if n := len(ann.Session.Do(http.MethodGet, "/api/learnings", nil).JSON(t)["learnings"].([]any)); n != created-1 {
		t.Errorf("list after dismissing: %d, want %d", n, created-1)
	}
	if n := len(ann.Session.Do(http.MethodGet, "/api/learnings?includeDismissed=true", nil).JSON(t)["learnings"].([]any)); n != created {
		t.Errorf("list with dismissed: %d, want %d", n, created)
	}
	seedSignals(t, ann.Session, "approve", 9, 2, 3)
	third := ann.Session.Do(http.MethodPost, "/api/learnings/analyze", map[string]any{}).JSON(t)
	if len(third["created"].([]any)) != 0 || len(third["refreshed"].([]any)) != created-1 {
		t.Errorf("after dismissing: %v", third)
	}
	if l, _ := s.DB.Learning.Get(ctx, id); !l.Dismissed {
		t.Errorf("dismissed learning raised again: %+v", l)
	}
	// The A2A playbook lists the active ones.
	a2aKey := ann.NewKey("a2a", "a2a")
	pb := s.WithKey(a2aKey).Do(http.MethodGet, "/api/a2a/playbook", nil)
	servertest.WantStatus(t, pb, http.StatusOK)
	if learnings, _ := pb.JSON(t)["playbook"].(map[string]any)["preferences"].(map[string]any)["learnings"].([]any); len(learnings) != created-1 {
		t.Errorf("playbook learnings: %v", learnings)
	}
	// Manual create and delete; a bad category is 400.
	servertest.WantError(t, ann.Session.Do(http.MethodPost, "/api/learnings", map[string]any{"category": "mood", "content": "x"}), http.StatusBadRequest)
	servertest.WantError(t, ann.Session.Do(http.MethodPost, "/api/learnings", map[string]any{"category": "behavior", "content": "x", "confidence": 1.5}), http.StatusBadRequest)
	mine := ann.Session.Do(http.MethodPost, "/api/learnings", map[string]any{"category": "behavior", "content": "Works mornings"})
	servertest.WantStatus(t, mine, http.StatusCreated)
	l := mine.JSON(t)["learning"].(map[string]any)
	if l["source"] != "manual" || l["confidence"] != float64(1) {
		t.Errorf("manual learning: %v", l)
	}
	servertest.WantStatus(t, ann.Session.Do(http.MethodDelete, "/api/learnings/"+l["id"].(string), nil), http.StatusOK)
}

// The daily timer analyzes every account on the injected clock, and the
// retention deletes signals older than 180 days (181 days old gone, 179
// kept).
func TestLearningsDailyTimerAndRetention(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	ctx := context.Background()
	seedSignals(t, ann.Session, "approve", 9, 2, 10)
	// Ages at the run, a day and a minute from now.
	now := s.Clock.Now().Add(24*time.Hour + time.Minute)
	for _, age := range []int{181, 179} {
		at := now.AddDate(0, 0, -age)
		if err := s.DB.BehaviorSignal.Create().SetUserID(ann.ID).SetAction("old").SetHour(1).SetDayOfWeek(1).
			SetCreatedAt(at).SetUpdatedAt(at).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	old := func() int {
		n, _ := s.DB.BehaviorSignal.Query().Where(behaviorsignal.UserID(ann.ID), behaviorsignal.Action("old")).Count(ctx)
		return n
	}
	if old() != 2 {
		t.Fatalf("seeded %d old signals", old())
	}
	// The timers' rows are written one period ahead at start: a day on, both run.
	servertest.WaitFor(t, "the timers' rows", func() bool {
		n, _ := s.DB.PeriodicRun.Query().Where(periodicrun.IDIn(learnings.TimerAnalysis, learnings.TimerRetention)).Count(ctx)
		return n == 2
	})
	s.Clock.Advance(24*time.Hour + time.Minute)
	s.App.Learnings.Wake()
	servertest.WaitFor(t, "the daily analysis", func() bool {
		n, _ := s.DB.Learning.Query().Where(learning.UserID(ann.ID)).Count(ctx)
		return n > 0 && old() == 1
	})
	rows, _ := s.DB.BehaviorSignal.Query().Where(behaviorsignal.UserID(ann.ID), behaviorsignal.Action("old")).All(ctx)
	if len(rows) != 1 || now.Sub(rows[0].CreatedAt) > 180*24*time.Hour {
		t.Errorf("kept %v, want the 179-day-old signal", rows)
	}
}

// The admin's workflows: a sequence three users share is listed with its
// counts and marked reviewed; another account is 403, an unknown id 404.
func TestAdminWorkflows(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	owner, ann, bob := s.SignUp("owner"), s.SignUp("ann"), s.SignUp("bob")
	for _, a := range []*servertest.Account{owner, ann, bob} {
		for _, action := range []string{"open_view", "approve", "move"} {
			servertest.WantStatus(t, a.Session.Do(http.MethodPost, "/api/behavior-signals", map[string]any{"action": action}), http.StatusCreated)
		}
	}
	id := learningrules.WorkflowID([]string{"open_view", "approve", "move"})
	list := owner.Session.Do(http.MethodGet, "/api/admin/workflows", nil)
	servertest.WantStatus(t, list, http.StatusOK)
	wfs := list.JSON(t)["workflows"].([]any)
	if len(wfs) != 1 || wfs[0].(map[string]any)["id"] != id || wfs[0].(map[string]any)["users"] != float64(3) ||
		wfs[0].(map[string]any)["count"] != float64(3) || wfs[0].(map[string]any)["reviewed"] != false {
		t.Fatalf("workflows: %v", wfs)
	}
	servertest.WantError(t, ann.Session.Do(http.MethodGet, "/api/admin/workflows", nil), http.StatusForbidden)
	servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/admin/workflows/"+id, map[string]any{}), http.StatusForbidden)
	servertest.WantError(t, owner.Session.Do(http.MethodPatch, "/api/admin/workflows/wf_0000000000000000", map[string]any{}), http.StatusNotFound)
	res := owner.Session.Do(http.MethodPatch, "/api/admin/workflows/"+id, map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	if w := res.JSON(t)["workflow"].(map[string]any); w["reviewed"] != true || w["reviewedAt"] == nil {
		t.Errorf("reviewed: %v", w)
	}
	// An admin's key with settings reads it, the mark kept.
	key := owner.NewKey("ops", "settings")
	wfs = s.WithKey(key).Do(http.MethodGet, "/api/admin/workflows", nil).JSON(t)["workflows"].([]any)
	if len(wfs) != 1 || wfs[0].(map[string]any)["reviewed"] != true {
		t.Errorf("by key: %v", wfs)
	}
	client := switchboardv1connect.NewWorkflowServiceClient(&http.Client{Jar: owner.Jar}, s.URL)
	out, err := client.ReviewWorkflow(context.Background(), &switchboardv1.ReviewWorkflowRequest{Id: id, Reviewed: ptr(false)})
	if err != nil || out.GetWorkflow().GetReviewed() {
		t.Errorf("Connect unreview: %v %v", out, err)
	}
}
