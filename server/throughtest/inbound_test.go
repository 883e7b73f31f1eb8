package throughtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/document"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/inbound/rules"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// hook is one created inbound webhook as its creation answered it.
type hook struct{ id, url, path, secret string }

func createHook(t *testing.T, a *servertest.Account, kind, name string, extra ...any) hook {
	t.Helper()
	body := map[string]any{"kind": kind, "name": name}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	res := a.Session.Do(http.MethodPost, "/api/webhooks/inbound", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create hook: %d %s", res.Status, res.Body)
	}
	m := res.JSON(t)
	h := hook{id: m["id"].(string), url: m["url"].(string), secret: m["secret"].(string)}
	h.path = "/api/webhooks/" + kind + "/" + h.id
	if !strings.HasSuffix(h.url, h.path) || !strings.HasPrefix(h.secret, "whsec_") {
		t.Fatalf("create hook answered %s", res.Body)
	}
	return h
}

// deliver posts body to h signed with secret (Standard Webhooks, computed
// here) at the server's clock shifted by skew seconds.
func deliverTo(t *testing.T, s *servertest.Server, h hook, secret, msgID string, skew int64, body string) *servertest.Response {
	t.Helper()
	key, err := rules.Key(secret)
	if err != nil {
		t.Fatal(err)
	}
	ts := s.Clock.Now().Unix() + skew
	return s.Anonymous().Do(http.MethodPost, h.path, body, "webhook-id", msgID,
		"webhook-timestamp", strconv.FormatInt(ts, 10), "webhook-signature", "v1,"+rules.Sign(key, msgID, ts, []byte(body)))
}

func itemsFrom(t *testing.T, s *servertest.Server, source string) int {
	t.Helper()
	n, err := s.DB.QueueItem.Query().Where(queueitem.Source(source)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func wantStatus(t *testing.T, what string, res *servertest.Response, status int) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, res.Status, res.Body, status)
	}
}

func TestInboundGenericDeliveries(t *testing.T) {
	s := servertest.New(t)
	a := s.SignUp("ada")
	h := createHook(t, a, "generic", "alerts")
	ctx := context.Background()

	first := `{"alert":{"summary":"Disk full","urgency":"sev1"},"title":"","details":{"body":"on db-1"},"deadline":"2026-12-24"}`
	res := deliverTo(t, s, h, h.secret, "msg_1", 0, first)
	wantStatus(t, "valid", res, http.StatusAccepted)
	if string(res.Body) != "{\"received\":true}\n" {
		t.Fatalf("valid answered %s", res.Body)
	}
	it, err := s.DB.QueueItem.Query().Where(queueitem.Source("webhook:alerts")).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if it.Title != "Disk full" || string(it.Priority) != "urgent" || it.Description == nil || *it.Description != "on db-1" {
		t.Fatalf("item %q %s %v", it.Title, it.Priority, it.Description)
	}
	var meta map[string]any
	_ = json.Unmarshal([]byte(it.Metadata), &meta)
	if meta["dueAt"] != "2026-12-24T00:00:00Z" || meta["body"].(map[string]any)["deadline"] != "2026-12-24" {
		t.Fatalf("metadata %v", meta)
	}
	if c, err := s.DB.Card.Query().Where(card.ID(*it.CardID)).Only(ctx); err != nil || c.DueDate == nil || c.DueDate.Format("2006-01-02") != "2026-12-24" {
		t.Fatalf("card due: %v %v", c, err)
	}

	// The mapping learned from the first body, shown in the list.
	list := a.Session.Do(http.MethodGet, "/api/webhooks/inbound", nil)
	wantStatus(t, "list", list, http.StatusOK)
	if strings.Contains(string(list.Body), "whsec_") {
		t.Fatal("the list shows a secret")
	}
	hooks := list.JSON(t)["webhooks"].([]any)
	mapping := hooks[0].(map[string]any)["mapping"].(map[string]any)
	if mapping["title"] != "alert.summary" || mapping["priority"] != "alert.urgency" || mapping["description"] != "details.body" || mapping["due"] != "deadline" {
		t.Fatalf("learned mapping %v", mapping)
	}

	// Applied to a second body with other values: the learned fields win
	// over the other candidates.
	second := `{"alert":{"summary":"CPU hot","urgency":"p1"},"subject":"ignored","details":{"body":"on web-2"},"deadline":"2027-01-02T10:00:00Z"}`
	wantStatus(t, "second", deliverTo(t, s, h, h.secret, "msg_2", 0, second), http.StatusAccepted)
	it2, err := s.DB.QueueItem.Query().Where(queueitem.Source("webhook:alerts"), queueitem.Title("CPU hot")).Only(ctx)
	if err != nil || string(it2.Priority) != "high" {
		t.Fatalf("second item: %v %v", it2, err)
	}

	// Replay: 202 and nothing more.
	wantStatus(t, "replay", deliverTo(t, s, h, h.secret, "msg_1", 0, first), http.StatusAccepted)
	if n := itemsFrom(t, s, "webhook:alerts"); n != 2 {
		t.Fatalf("%d items after a replay, want 2", n)
	}

	// Refusals: nothing written but the log.
	other := "whsec_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	wantStatus(t, "stale", deliverTo(t, s, h, h.secret, "msg_3", -301, first), http.StatusUnauthorized)
	wantStatus(t, "ahead", deliverTo(t, s, h, h.secret, "msg_3", 301, first), http.StatusUnauthorized)
	wantStatus(t, "wrong secret", deliverTo(t, s, h, other, "msg_3", 0, first), http.StatusUnauthorized)
	key, _ := rules.Key(h.secret)
	now := strconv.FormatInt(s.Clock.Now().Unix(), 10)
	res = s.Anonymous().Do(http.MethodPost, h.path, strings.Replace(first, "Disk", "Disc", 1), "webhook-id", "msg_3",
		"webhook-timestamp", now, "webhook-signature", "v1,"+rules.Sign(key, "msg_3", s.Clock.Now().Unix(), []byte(first)))
	wantStatus(t, "tampered", res, http.StatusUnauthorized)
	wantStatus(t, "unsigned", s.Anonymous().Do(http.MethodPost, h.path, first), http.StatusUnauthorized)
	wantStatus(t, "not JSON", deliverTo(t, s, h, h.secret, "msg_3", 0, "title=x"), http.StatusBadRequest)
	wantStatus(t, "not an object", deliverTo(t, s, h, h.secret, "msg_3", 0, "[1]"), http.StatusBadRequest)
	big := `{"title":"` + strings.Repeat("x", 1<<20) + `"}`
	wantStatus(t, "too large", deliverTo(t, s, h, h.secret, "msg_3", 0, big), http.StatusRequestEntityTooLarge)
	wantStatus(t, "unknown hook", deliverTo(t, s, hook{path: "/api/webhooks/generic/nohook"}, h.secret, "msg_3", 0, first), http.StatusNotFound)
	wantStatus(t, "other kind", deliverTo(t, s, hook{path: "/api/webhooks/email/" + h.id}, h.secret, "msg_3", 0, first), http.StatusNotFound)
	noID := s.Anonymous().Do(http.MethodPost, "/api/webhooks/generic", first)
	wantStatus(t, "no id", noID, http.StatusNotFound)
	if !strings.Contains(string(noID.Body), "/api/webhooks/generic/<id>") {
		t.Fatalf("no id answered %s", noID.Body)
	}
	if n := itemsFrom(t, s, "webhook:alerts"); n != 2 {
		t.Fatalf("%d items after refusals, want 2", n)
	}
	// A refused delivery's id may come again validly.
	wantStatus(t, "msg_3 valid", deliverTo(t, s, h, h.secret, "msg_3", 0, `{"title":"Third"}`), http.StatusAccepted)
	if n := itemsFrom(t, s, "webhook:alerts"); n != 3 {
		t.Fatalf("%d items, want 3", n)
	}
	// Title fallback: nothing the mapping or the candidates name.
	wantStatus(t, "no title", deliverTo(t, s, h, h.secret, "msg_4", 0, `{"foo":"bar"}`), http.StatusAccepted)
	if _, err := s.DB.QueueItem.Query().Where(queueitem.Title("Webhook alerts")).Only(ctx); err != nil {
		t.Fatalf("fallback title: %v", err)
	}

	// Another account's hook is not found; the owner's patch, rotate and
	// disable work.
	b := s.SignUp("bob")
	wantStatus(t, "other's patch", b.Session.Do(http.MethodPatch, "/api/webhooks/inbound/"+h.id, map[string]any{"enabled": false}), http.StatusNotFound)
	wantStatus(t, "other's rotate", b.Session.Do(http.MethodPost, "/api/webhooks/inbound/"+h.id+"/rotate", nil), http.StatusNotFound)
	wantStatus(t, "other's delete", b.Session.Do(http.MethodDelete, "/api/webhooks/inbound/"+h.id, nil), http.StatusNotFound)
	rot := a.Session.Do(http.MethodPost, "/api/webhooks/inbound/"+h.id+"/rotate", nil)
	wantStatus(t, "rotate", rot, http.StatusOK)
	fresh := rot.JSON(t)["secret"].(string)
	wantStatus(t, "old secret", deliverTo(t, s, h, h.secret, "msg_5", 0, first), http.StatusUnauthorized)
	wantStatus(t, "new secret", deliverTo(t, s, h, fresh, "msg_5", 0, first), http.StatusAccepted)
	patch := a.Session.Do(http.MethodPatch, "/api/webhooks/inbound/"+h.id, map[string]any{"enabled": false,
		"mapping": map[string]any{"title": "headline"}})
	wantStatus(t, "disable", patch, http.StatusOK)
	wantStatus(t, "disabled", deliverTo(t, s, h, fresh, "msg_6", 0, first), http.StatusNotFound)
	wantStatus(t, "enable", a.Session.Do(http.MethodPatch, "/api/webhooks/inbound/"+h.id, map[string]any{"enabled": true}), http.StatusOK)
	wantStatus(t, "edited mapping", deliverTo(t, s, h, fresh, "msg_6", 0, `{"headline":"Edited","title":"not this"}`), http.StatusAccepted)
	if _, err := s.DB.QueueItem.Query().Where(queueitem.Title("Edited")).Only(ctx); err != nil {
		t.Fatalf("edited mapping: %v", err)
	}

	// The log: every delivery with its outcome, newest first.
	hooks = a.Session.Do(http.MethodGet, "/api/webhooks/inbound", nil).JSON(t)["webhooks"].([]any)
	log := hooks[0].(map[string]any)["deliveries"].([]any)
	if len(log) != 10 {
		t.Fatalf("%d deliveries shown, want 10", len(log))
	}
	top := log[0].(map[string]any)
	if top["outcome"] != "accepted" || top["webhookId"] != "msg_6" || top["status"] != float64(202) {
		t.Fatalf("newest delivery %v", top)
	}
	if d := log[1].(map[string]any); d["outcome"] != "disabled" || d["status"] != float64(404) {
		t.Fatalf("disabled delivery %v", d)
	}

	// Unsigned deliveries once the hook takes them; delete ends the URL.
	wantStatus(t, "accept unsigned", a.Session.Do(http.MethodPatch, "/api/webhooks/inbound/"+h.id, map[string]any{"acceptUnsigned": true}), http.StatusOK)
	wantStatus(t, "unsigned taken", s.Anonymous().Do(http.MethodPost, h.path, `{"headline":"Unsigned"}`), http.StatusAccepted)
	wantStatus(t, "delete", a.Session.Do(http.MethodDelete, "/api/webhooks/inbound/"+h.id, nil), http.StatusOK)
	wantStatus(t, "deleted", s.Anonymous().Do(http.MethodPost, h.path, `{"headline":"Gone"}`), http.StatusNotFound)
}

// Concurrent deliveries of one webhook-id all answer 202 and make one item.
func TestInboundConcurrentDeliveries(t *testing.T) {
	s := servertest.New(t)
	a := s.SignUp("ada")
	h := createHook(t, a, "generic", "burst")
	body := `{"title":"Once only"}`
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = deliverTo(t, s, h, h.secret, "msg_same", 0, body).Status
		}()
	}
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusAccepted {
			t.Fatalf("delivery %d answered %d", i, st)
		}
	}
	if n := itemsFrom(t, s, "webhook:burst"); n != 1 {
		t.Fatalf("%d items from concurrent deliveries of one id, want 1", n)
	}
}

func inboundActions(t *testing.T, s *servertest.Server, userID, action string) int {
	t.Helper()
	n, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(userID), activityentry.Action(action)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestInboundEmailAndTranscript(t *testing.T) {
	s := servertest.New(t)
	a := s.SignUp("ada")
	ctx := context.Background()
	wantStatus(t, "contact", a.Session.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Sam", "email": "sam@example.com"}), http.StatusCreated)
	e := createHook(t, a, "email", "inbox")
	// A newsletter from a stranger: a comms message, no item.
	wantStatus(t, "newsletter", deliverTo(t, s, e, e.secret, "e1", 0,
		`{"from":"news@example.org","to":"ada@example.com","subject":"Weekly digest","text":"All the news.","messageId":"<n1@example.org>"}`), http.StatusAccepted)
	// A question from a stranger: message and item.
	wantStatus(t, "question", deliverTo(t, s, e, e.secret, "e2", 0,
		`{"from":"Pat <pat@example.org>","to":"ada@example.com","subject":"Can you review the contract","text":"Thanks","messageId":"<q1@example.org>"}`), http.StatusAccepted)
	// A contact's reply to that question: threaded, comms_replied, an item.
	wantStatus(t, "contact reply", deliverTo(t, s, e, e.secret, "e3", 0,
		`{"from":"Sam <SAM@example.com>","to":"ada@example.com","subject":"Re: contract","text":"Done.","messageId":"<r1@example.com>","inReplyTo":"<q1@example.org>"}`), http.StatusAccepted)
	msgs, err := s.DB.ChatMessage.Query().Where(chatmessage.UserID(a.ID), chatmessage.MetadataType("email")).All(ctx)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("%d email messages, want 3 (%v)", len(msgs), err)
	}
	if n := itemsFrom(t, s, "webhook:inbox"); n != 2 {
		t.Fatalf("%d items from emails, want 2", n)
	}
	// Every comms message is created (reconciliation 20); the threaded one is a reply too.
	if c, r := inboundActions(t, s, a.ID, "comms_created"), inboundActions(t, s, a.ID, "comms_replied"); c != 3 || r != 1 {
		t.Fatalf("comms_created %d, comms_replied %d; want 3 and 1", c, r)
	}
	var q string
	for _, m := range msgs {
		if strings.Contains(m.Metadata, "q1@example.org") && !strings.Contains(m.Metadata, "inReplyTo") {
			q = m.ID
		}
	}
	if _, err := s.DB.ChatMessage.Query().Where(chatmessage.MetadataContains(`"replyToMessageId":"` + q + `"`)).Only(ctx); q == "" || err != nil {
		t.Fatalf("the reply is not threaded to %q: %v", q, err)
	}
	wantStatus(t, "email without from", deliverTo(t, s, e, e.secret, "e4", 0, `{"subject":"x","messageId":"m"}`), http.StatusBadRequest)

	tr := createHook(t, a, "transcript", "meetings")
	wantStatus(t, "transcript", deliverTo(t, s, tr, tr.secret, "t1", 0, `{"title":"Planning call","participants":["ada","sam"],`+
		`"recordedAt":"2026-11-29T10:00:00Z","text":"We met.\nAction: send the deck\n- [ ] book the room\nTODO: call legal\nDone."}`), http.StatusAccepted)
	d, err := s.DB.Document.Query().Where(document.UserID(a.ID), document.Title("Planning call")).Only(ctx)
	if err != nil || !strings.Contains(d.Content, "book the room") {
		t.Fatalf("transcript document: %v", err)
	}
	if n := itemsFrom(t, s, "webhook:meetings"); n != 3 {
		t.Fatalf("%d action items, want 3", n)
	}
	if c, p, doc := inboundActions(t, s, a.ID, "recording_created"), inboundActions(t, s, a.ID, "recording_processed"), inboundActions(t, s, a.ID, "document_created"); c != 1 || p != 1 || doc != 0 {
		t.Fatalf("recording_created %d, recording_processed %d, document_created %d; want 1, 1, 0", c, p, doc)
	}
}

func TestInboundCalendar(t *testing.T) {
	s := servertest.New(t)
	a := s.SignUp("ada")
	ctx := context.Background()
	c := createHook(t, a, "calendar", "work calendar")
	start := s.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	end := s.Clock.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)
	ev := func(title, status string) string {
		b, _ := json.Marshal(map[string]any{"externalId": "evt-1", "title": title, "startsAt": start, "endsAt": end,
			"status": status, "attendees": []any{map[string]any{"email": "sam@example.com", "name": "Sam"}}})
		return string(b)
	}
	wantStatus(t, "create", deliverTo(t, s, c, c.secret, "c1", 0, ev("Standup", "confirmed")), http.StatusAccepted)
	wantStatus(t, "update", deliverTo(t, s, c, c.secret, "c2", 0, ev("Standup moved", "confirmed")), http.StatusAccepted)
	evs, err := s.DB.CalendarEvent.Query().All(ctx)
	if err != nil || len(evs) != 1 || evs[0].Title != "Standup moved" {
		t.Fatalf("events after upserts: %v %v", evs, err)
	}
	wantStatus(t, "cancel", deliverTo(t, s, c, c.secret, "c3", 0, ev("Standup moved", "cancelled")), http.StatusAccepted)
	if n, _ := s.DB.CalendarEvent.Query().Count(ctx); n != 0 {
		t.Fatalf("%d events after the cancellation, want 0", n)
	}
	if cr, up, del := inboundActions(t, s, a.ID, "event_created"), inboundActions(t, s, a.ID, "event_updated"), inboundActions(t, s, a.ID, "event_deleted"); cr != 1 || up != 1 || del != 1 {
		t.Fatalf("event activity %d %d %d, want 1 each", cr, up, del)
	}
	wantStatus(t, "no externalId", deliverTo(t, s, c, c.secret, "c4", 0, `{"title":"x"}`), http.StatusBadRequest)
}

// RULINGS "The proactive layer": a transcript's action items are the
// provider's extraction when one is configured (asked before the delivery's
// unit of work, the transcript given as data), and its action lines when
// there is none or it fails.
func TestInboundTranscriptByProvider(t *testing.T) {
	t.Parallel()
	provider := llmtest.New(t)
	s := servertest.New(t, servertest.WithLLM(provider.URL))
	a := s.SignUp("ada")
	tr := createHook(t, a, "transcript", "calls")
	provider.Chat(llmtest.Reply{Tokens: []string{`{"actionItems":["Send the budget to Sam","  Book the   venue ","send the budget to sam",""]}`}})
	wantStatus(t, "extracted", deliverTo(t, s, tr, tr.secret, "p1", 0,
		`{"title":"Planning call","text":"Sam: I need the budget by Friday. Ada: I will send it, and book the venue.","participants":["ada","sam"]}`), http.StatusAccepted)
	titles := func() []string {
		rows, err := s.DB.QueueItem.Query().Where(queueitem.Source("webhook:calls")).Order(ent.Asc(queueitem.FieldCreatedAt), ent.Asc(queueitem.FieldID)).All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Title)
		}
		return out
	}
	if got := titles(); !slices.Equal(got, []string{"Send the budget to Sam", "Book the venue"}) {
		t.Fatalf("items from the provider's extraction: %q", got)
	}
	reqs := provider.Requests()
	if len(reqs) != 1 || !strings.Contains(fmt.Sprint(reqs[0].JSON["messages"]), "<transcript>\nSam: I need the budget") {
		t.Fatalf("the provider was not given the transcript as data: %v", reqs)
	}
	// A replay changes nothing and does not ask the provider again.
	wantStatus(t, "replayed", deliverTo(t, s, tr, tr.secret, "p1", 0,
		`{"title":"Planning call","text":"Sam: I need the budget by Friday. Ada: I will send it, and book the venue.","participants":["ada","sam"]}`), http.StatusAccepted)
	if n := len(provider.Requests()); n != 1 || len(titles()) != 2 {
		t.Fatalf("after a replay: %d provider requests, items %q", n, titles())
	}
	// The provider fails: the action lines make the items.
	provider.Chat(llmtest.Reply{Status: http.StatusInternalServerError})
	wantStatus(t, "fallback", deliverTo(t, s, tr, tr.secret, "p2", 0,
		`{"title":"Bank call","text":"We talked.\nTODO: Call the bank back"}`), http.StatusAccepted)
	if got := titles(); len(got) != 3 || got[2] != "Call the bank back" {
		t.Fatalf("items after the provider failed: %q", got)
	}
}
