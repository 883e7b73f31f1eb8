package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/cardlink"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// cortexCard makes a card over REST with ann's session and answers its id.
func cortexCard(t *testing.T, a *servertest.Account, body map[string]any) string {
	t.Helper()
	res := a.Session.Do(http.MethodPost, "/api/v2/kanban", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["card"].(map[string]any)["id"].(string)
}

func countActivity(t *testing.T, s *servertest.Server, userID, action string) int {
	t.Helper()
	n, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(userID), activityentry.Action(action)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func insightsOf(t *testing.T, body map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, _ := body["insights"].([]any)
	for _, x := range list {
		in := x.(map[string]any)
		out[in["type"].(string)+":"+in["sourceId"].(string)] = in
	}
	return out
}

// The full scan: each rule's insight once, the escalated card urgent with
// card_updated and one cortex_scan entry; a second scan raises nothing; a
// dismissed insight is not raised again; the digest counts what is active.
func TestBoardScanRaisesEachInsightOnce(t *testing.T) {
	s := servertest.New(t)
	s.App.BoardScan.Close() // the 6-hour scan would run as the clock moves
	ann := s.SignUp("ann")
	ctx := context.Background()
	stale := cortexCard(t, ann, map[string]any{"title": "Quarterly tax filing"})
	s.Clock.Advance(14 * 24 * time.Hour)
	older := cortexCard(t, ann, map[string]any{"title": "Launch plan for Berlin", "checklist": []map[string]any{{"text": "book the venue hall"}}})
	newer := cortexCard(t, ann, map[string]any{"title": "launch plan for berlin!", "checklist": []map[string]any{{"text": "Book the venue halls"}}})
	due := cortexCard(t, ann, map[string]any{"title": "Grant application", "dueDate": s.Clock.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339),
		"checklist": []map[string]any{{"text": "draft", "completed": false}, {"text": "budget"}, {"text": "letters"}, {"text": "submit"}}})

	res := ann.Session.Do(http.MethodPost, "/api/board/cortex", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("scan: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	if body["scanned"] != float64(4) || body["insightsCreated"] != float64(4) {
		t.Fatalf("scan answered %s", res.Body)
	}
	if esc := body["escalated"].([]any); len(esc) != 1 || esc[0] != due {
		t.Fatalf("escalated %v, want [%s]", esc, due)
	}
	got := insightsOf(t, body)
	for _, k := range []string{"merge_suggestion:" + newer, "duplicate_tasks:" + newer, "stale_card:" + stale, "auto_escalate:" + due} {
		if got[k] == nil {
			t.Errorf("no %s in %s", k, res.Body)
		}
	}
	if m := got["merge_suggestion:"+newer]; m != nil && m["targetId"] != older {
		t.Errorf("merge target %v, want the older card %s", m["targetId"], older)
	}
	if c := s.DB.Card.GetX(ctx, due); c.Priority != card.PriorityUrgent {
		t.Errorf("escalated card is %s", c.Priority)
	}
	if n := countActivity(t, s, ann.ID, "card_updated"); n != 1 {
		t.Errorf("card_updated entries %d, want 1", n)
	}
	if n := countActivity(t, s, ann.ID, "cortex_scan"); n != 1 {
		t.Errorf("cortex_scan entries %d, want 1", n)
	}

	// Again: nothing new, and the urgent card is not escalated twice.
	again := ann.Session.Do(http.MethodPost, "/api/board/cortex", map[string]any{}).JSON(t)
	if again["insightsCreated"] != float64(0) || len(again["escalated"].([]any)) != 0 || len(again["insights"].([]any)) != 4 {
		t.Fatalf("second scan %v", again)
	}

	// Dismissed stays dismissed.
	id := got["stale_card:"+stale]["id"].(string)
	res = ann.Session.Do(http.MethodPatch, "/api/board/insights/"+id, map[string]any{"status": "dismissed"})
	if res.Status != http.StatusOK || res.JSON(t)["insight"].(map[string]any)["status"] != "dismissed" {
		t.Fatalf("dismiss: %d %s", res.Status, res.Body)
	}
	s.Clock.Advance(24 * time.Hour)
	third := ann.Session.Do(http.MethodPost, "/api/board/cortex", map[string]any{}).JSON(t)
	if third["insightsCreated"] != float64(0) {
		t.Fatalf("a dismissed insight came back: %v", third)
	}
	if n := countActivity(t, s, ann.ID, "cortex_scan"); n != 3 {
		t.Errorf("cortex_scan entries %d, want 3", n)
	}

	// The digest: counts of the active ones, stale and escalated cards now.
	res = ann.Session.Do(http.MethodGet, "/api/board/cortex", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("digest: %d %s", res.Status, res.Body)
	}
	d := res.JSON(t)
	counts := d["counts"].(map[string]any)
	if counts["stale_card"] != float64(0) || counts["merge_suggestion"] != float64(1) || counts["auto_escalate"] != float64(1) {
		t.Errorf("digest counts %v", counts)
	}
	if sc := d["staleCards"].([]any); len(sc) != 1 || sc[0].(map[string]any)["id"] != stale {
		t.Errorf("staleCards %v", sc)
	}
	if ec := d["escalatedCards"].([]any); len(ec) != 1 || ec[0].(map[string]any)["id"] != due {
		t.Errorf("escalatedCards %v", ec)
	}

	// Another account's insight is 404; a bad status is 400; an insight no
	// longer active is 400.
	bob := s.SignUp("bob")
	if res := bob.Session.Do(http.MethodPatch, "/api/board/insights/"+id, map[string]any{"status": "applied"}); res.Status != http.StatusNotFound {
		t.Errorf("bob's patch: %d %s", res.Status, res.Body)
	}
	if res := ann.Session.Do(http.MethodPatch, "/api/board/insights/"+id, map[string]any{"status": "active"}); res.Status != http.StatusBadRequest {
		t.Errorf("status active: %d %s", res.Status, res.Body)
	}
	if res := ann.Session.Do(http.MethodPatch, "/api/board/insights/"+id, map[string]any{"status": "applied"}); res.Status != http.StatusBadRequest {
		t.Errorf("applying a dismissed one: %d %s", res.Status, res.Body)
	}
}

// Applying a merge moves the source's checklist, contacts and links onto
// the target and archives the source, with activity; an archive candidate
// is archived when applied.
func TestBoardApplyMergeMovesEverything(t *testing.T) {
	s := servertest.New(t)
	s.App.BoardScan.Close() // the 6-hour scan would run as the clock moves
	ann := s.SignUp("ann")
	// A key with kanban: the session would expire as the clock moves.
	api := s.WithKey(ann.NewKey("cortex", "kanban"))
	ctx := context.Background()
	target := cortexCard(t, ann, map[string]any{"title": "Website redesign", "checklist": []map[string]any{{"text": "wireframes"}}})
	source := cortexCard(t, ann, map[string]any{"title": "Website redesign 2", "checklist": []map[string]any{{"text": "pick fonts", "completed": true}, {"text": "logo"}}})
	third := cortexCard(t, ann, map[string]any{"title": "Hosting"})
	done := cortexCard(t, ann, map[string]any{"title": "Old thing", "status": "completed"})
	now := s.Clock.Now()
	contact := s.DB.Contact.Create().SetUserID(ann.ID).SetName("Vera").SaveX(ctx)
	s.DB.CardContact.Create().SetUserID(ann.ID).SetCardID(source).SetContactID(contact.ID).SetCreatedAt(now).SaveX(ctx)
	s.DB.CardLink.Create().SetUserID(ann.ID).SetFromCardID(source).SetToCardID(third).SetLinkType("blocks").SetCreatedAt(now).SaveX(ctx)
	s.DB.CardLink.Create().SetUserID(ann.ID).SetFromCardID(target).SetToCardID(source).SetLinkType("related").SetCreatedAt(now).SaveX(ctx)
	s.Clock.Advance(30 * 24 * time.Hour)

	body := api.Do(http.MethodPost, "/api/board/cortex", map[string]any{}).JSON(t)
	got := insightsOf(t, body)
	merge, archive := got["merge_suggestion:"+source], got["archive_candidate:"+done]
	if merge == nil || archive == nil {
		t.Fatalf("scan %v", body)
	}
	res := api.Do(http.MethodPatch, "/api/board/insights/"+merge["id"].(string), map[string]any{"status": "applied"})
	if res.Status != http.StatusOK || res.JSON(t)["insight"].(map[string]any)["status"] != "applied" {
		t.Fatalf("apply: %d %s", res.Status, res.Body)
	}
	items := s.DB.ChecklistItem.Query().Where(checklistitem.CardID(target)).Order(checklistitem.ByOrder()).AllX(ctx)
	var texts []string
	for _, it := range items {
		texts = append(texts, fmt.Sprintf("%s:%v", it.Text, it.Completed))
	}
	if fmt.Sprint(texts) != "[wireframes:false pick fonts:true logo:false]" {
		t.Errorf("target checklist %v", texts)
	}
	if n := s.DB.ChecklistItem.Query().Where(checklistitem.CardID(source)).CountX(ctx); n != 0 {
		t.Errorf("source keeps %d items", n)
	}
	if !s.DB.CardContact.Query().Where(cardcontact.CardID(target), cardcontact.ContactID(contact.ID)).ExistX(ctx) {
		t.Error("contact not moved")
	}
	if !s.DB.CardLink.Query().Where(cardlink.FromCardID(target), cardlink.ToCardID(third), cardlink.LinkTypeEQ("blocks")).ExistX(ctx) {
		t.Error("link not moved")
	}
	if n := s.DB.CardLink.Query().Where(cardlink.Or(cardlink.FromCardID(source), cardlink.ToCardID(source))).CountX(ctx); n != 0 {
		t.Errorf("source keeps %d links", n)
	}
	if c := s.DB.Card.GetX(ctx, source); !c.IsArchived {
		t.Error("source not archived")
	}
	if res := api.Do(http.MethodPatch, "/api/board/insights/"+archive["id"].(string), map[string]any{"status": "applied"}); res.Status != http.StatusOK {
		t.Fatalf("apply archive: %d %s", res.Status, res.Body)
	}
	if c := s.DB.Card.GetX(ctx, done); !c.IsArchived {
		t.Error("archive candidate not archived")
	}
	// The merged card's insights leave the list.
	after := api.Do(http.MethodGet, "/api/board/cortex", nil).JSON(t)
	for k := range insightsOf(t, after) {
		if k == "merge_suggestion:"+source {
			t.Errorf("applied merge still listed")
		}
	}
}

func TestCronScanSecret(t *testing.T) {
	closed := servertest.New(t)
	for _, hdr := range [][]string{nil, {"X-Cron-Secret", "anything"}, {"Authorization", "Bearer anything"}} {
		if res := closed.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan", map[string]any{}, hdr...); res.Status != http.StatusNotFound {
			t.Errorf("unset secret, %v: %d %s", hdr, res.Status, res.Body)
		}
	}
	const secret = "cron-secret-0123456789"
	s := servertest.New(t, servertest.WithCronSecret(secret))
	s.App.BoardScan.Close()
	ann := s.SignUp("ann")
	bob := s.SignUp("bob")
	cortexCard(t, ann, map[string]any{"title": "Alpha launch"})
	cortexCard(t, ann, map[string]any{"title": "alpha launch"})
	cortexCard(t, bob, map[string]any{"title": "Solo"})
	for _, hdr := range [][]string{nil, {"X-Cron-Secret", "wrong"}, {"Authorization", "Bearer wrong"}, {"X-Cron-Secret", secret + "x"}} {
		if res := s.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan", "not json", hdr...); res.Status != http.StatusUnauthorized {
			t.Errorf("%v: %d %s (401 before the body)", hdr, res.Status, res.Body)
		}
	}
	res := s.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan", map[string]any{}, "X-Cron-Secret", secret)
	if res.Status != http.StatusOK {
		t.Fatalf("cron: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	if body["success"] != true || body["scanned"] != float64(2) {
		t.Fatalf("cron answered %s", res.Body)
	}
	first := body["results"].([]any)[0].(map[string]any)
	if first["userId"] != ann.ID || first["userName"] != "Ann" || first["cardCount"] != float64(2) || first["insightsFound"] != float64(1) ||
		first["details"].(map[string]any)["merge_suggestion"] != float64(1) {
		t.Errorf("ann's result %v", first)
	}
	res = s.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan?userId="+bob.ID, map[string]any{}, "Authorization", "Bearer "+secret)
	if res.Status != http.StatusOK || res.JSON(t)["scanned"] != float64(1) {
		t.Fatalf("bob only: %d %s", res.Status, res.Body)
	}
	if res := s.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan?userId=nobody", map[string]any{}, "X-Cron-Secret", secret); res.Status != http.StatusNotFound {
		t.Errorf("unknown user: %d %s", res.Status, res.Body)
	}
	if n := countActivity(t, s, ann.ID, "cortex_scan"); n != 1 {
		t.Errorf("ann's cortex_scan entries %d, want 1", n)
	}
}

// The cron route's own rate class: 10 a minute per client IP.
func TestCronScanRateClass(t *testing.T) {
	s := servertest.New(t, servertest.WithCronSecret("s3cret-for-cron"), func(c *server.Config) { c.Limits.Cron = 10 })
	for i := range 11 {
		res := s.Anonymous().Do(http.MethodPost, "/api/cron/cortex-scan", map[string]any{}, "X-Cron-Secret", "wrong")
		want := http.StatusUnauthorized
		if i == 10 {
			want = http.StatusTooManyRequests
		}
		if res.Status != want {
			t.Fatalf("call %d: %d, want %d", i+1, res.Status, want)
		}
	}
}

// Two servers on one database (the PostgreSQL leg's database, or one SQLite
// file): the 6-hour scan runs once per period across them.
func TestBoardScanTimerOnceAcrossReplicas(t *testing.T) {
	dsn := dbtest.DSN(t)
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var servers []*servertest.Server
	var clocks []*clockwork.FakeClock
	for range 2 {
		d, err := db.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		c := clockwork.NewFakeClockAt(t0)
		clocks = append(clocks, c)
		servers = append(servers, servertest.New(t, servertest.WithDB(d), func(cfg *server.Config) { cfg.Clock = c }))
	}
	ann := servers[0].SignUp("ann")
	bob := servers[1].SignUp("bob")
	cortexCard(t, ann, map[string]any{"title": "One"})
	cortexCard(t, bob, map[string]any{"title": "Two"})
	for i, c := range clocks {
		c.Advance(6*time.Hour + time.Minute)
		servers[i].App.BoardScan.Wake()
	}
	deadline := time.Now().Add(30 * time.Second)
	for countActivity(t, servers[0], ann.ID, "cortex_scan") == 0 || countActivity(t, servers[0], bob.ID, "cortex_scan") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the 6-hour scan did not run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Both loops woke; Close waits for a pass in progress.
	for _, s := range servers {
		s.App.BoardScan.Wake()
		s.App.BoardScan.Close()
	}
	for _, u := range []string{ann.ID, bob.ID} {
		if n := countActivity(t, servers[1], u, "cortex_scan"); n != 1 {
			t.Errorf("user %s: %d cortex_scan entries, want 1", u, n)
		}
	}
}
