package throughtest

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 31, "Everything live": the dashboard's stream.

type dashStream = connect.ServerStreamForClient[switchboardv1.StreamEventsResponse]

// openDashboard opens acc's dashboard stream (EventService.StreamEvents with
// the session) after lastID ("" for now) and reads its connected event.
func openDashboard(t *testing.T, s *servertest.Server, acc *servertest.Account, lastID string) *dashStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	t.Cleanup(cancel)
	hc := &http.Client{Jar: acc.Jar, Transport: s.HTTP.Transport}
	st, err := switchboardv1connect.NewEventServiceClient(hc, s.URL).
		StreamEvents(ctx, &switchboardv1.StreamEventsRequest{LastEventId: lastID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if m := receive(t, st); m.GetEvent().GetType() != events.TypeConnected {
		t.Fatalf("first event = %v", m)
	}
	return st
}

// untilType reads st until an event of type typ and answers it with the
// types read before it.
func untilType(t *testing.T, st *dashStream, typ vocab.StreamEvent) (*switchboardv1.StreamEventsResponse, []string) {
	t.Helper()
	var before []string
	for {
		m := receive(t, st)
		if m.GetEvent().GetType() == string(typ) {
			return m, before
		}
		before = append(before, m.GetEvent().GetType())
	}
}

// wantRecord checks a dashboard event's record.
func wantRecord(t *testing.T, m *switchboardv1.StreamEventsResponse, id, change string) *switchboardv1.RecordChange {
	t.Helper()
	rc := m.GetEvent().GetRecord()
	if m.Id == nil || rc.GetId() != id || rc.GetChange() != change {
		t.Fatalf("%s: want record %s %s with an event id, got %v", m.GetEvent().GetType(), id, change, m)
	}
	return rc
}

func noDashboardKinds(t *testing.T, where string, types []string) {
	t.Helper()
	if i := slices.IndexFunc(types, events.DashboardOnly); i >= 0 {
		t.Fatalf("%s received the dashboard's %s (all: %v)", where, types[i], types)
	}
}

// A card and a contact made over REST with a key reach the owner's
// dashboard stream (its session's Connect stream) as card_changed and
// contact_changed, with the record's id, stored so last_event_id resumes
// them; the agents' SSE chat stream, a Connect stream opened with a key and
// another account's dashboard stream never carry them (RULINGS "Onboarding …
// details", Live; reconciliation 12).
func TestDashboardKindsReachOnlyTheOwnersDashboardStream(t *testing.T) {
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	key := ann.NewKey("Scout", "chat", "kanban", "contacts")
	api := s.WithKey(key)

	dash := openDashboard(t, s, ann, "")
	bobDash := openDashboard(t, s, bob, "")
	sse := api.Stream(streamPath)
	sse.NextOf("connected")
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	keyed, err := switchboardv1connect.NewEventServiceClient(s.Client("connect+proto"), s.URL,
		connect.WithInterceptors(streamHeaders("Authorization", "Bearer "+key))).
		StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	defer keyed.Close()
	receive(t, keyed) // connected

	res := api.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Call the printer"})
	servertest.WantStatus(t, res, http.StatusCreated)
	cardID := res.JSON(t)["card"].(map[string]any)["id"].(string)
	res = api.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Grace Hopper"})
	servertest.WantStatus(t, res, http.StatusCreated)
	contactID := res.JSON(t)["contact"].(map[string]any)["id"].(string)

	card, _ := untilType(t, dash, vocab.StreamEventCardChanged)
	if rc := wantRecord(t, card, cardID, "created"); rc.GetBrief() == "" {
		t.Fatalf("card_changed without a brief: %v", rc)
	}
	contact, _ := untilType(t, dash, vocab.StreamEventContactChanged)
	wantRecord(t, contact, contactID, "created")
	res = api.Do(http.MethodPut, "/api/v2/contacts/"+contactID, map[string]any{"company": "Navy"})
	servertest.WantStatus(t, res, http.StatusOK)
	changed, _ := untilType(t, dash, vocab.StreamEventContactChanged)
	wantRecord(t, changed, contactID, "updated")

	// A message after them is the mark: every other stream has had
	// whatever came before it.
	sentinel := func(c *servertest.Caller, content string) {
		t.Helper()
		servertest.WantStatus(t, c.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": content}), http.StatusCreated)
	}
	sentinel(api, "after the card")
	_, before := untilType(t, keyed, vocab.StreamEventNewMessage)
	noDashboardKinds(t, "a key's Connect stream", before)
	var sseTypes []string
	for ev := sse.Next(); ev.Event != "new_message"; ev = sse.Next() {
		sseTypes = append(sseTypes, ev.Event)
	}
	noDashboardKinds(t, "the agents' SSE stream", sseTypes)
	sentinel(bob.Session, "bob's own")
	_, before = untilType(t, bobDash, vocab.StreamEventNewMessage)
	noDashboardKinds(t, "another account's dashboard stream", before)

	// Resumed after the card's event: the contact's two, then the message,
	// in order. The SSE stream resumed from the same point skips them.
	again := openDashboard(t, s, ann, card.GetId())
	var got []string
	for len(got) == 0 || got[len(got)-1] != events.TypeNewMessage {
		m := receive(t, again)
		if typ := m.GetEvent().GetType(); typ != events.TypeHeartbeat && typ != events.TypeQueueUpdated {
			got = append(got, typ)
		}
	}
	if want := []string{string(vocab.StreamEventContactChanged), string(vocab.StreamEventContactChanged), events.TypeNewMessage}; !slices.Equal(got, want) {
		t.Fatalf("resumed after %s: %v, want %v", card.GetId(), got, want)
	}
	resumed := api.Stream(streamPath, "Last-Event-ID", card.GetId())
	resumed.NextOf("connected")
	var replayed []string
	for ev := resumed.Next(); ev.Event != "new_message"; ev = resumed.Next() {
		replayed = append(replayed, ev.Event)
	}
	noDashboardKinds(t, "the SSE stream resumed", replayed)
}

func waitingOf(t *testing.T, acc *servertest.Account) map[string]any {
	t.Helper()
	res := acc.Session.Do(http.MethodGet, "/api/dashboard/waiting", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	return res.JSON(t)
}

// Two instances: B's dashboard hears A's connection request live and its
// waiting count has it; A's hears the acceptance; B's hears A's relay
// delivered, and A's hears B's ack of it. Each only on its own account.
func TestDashboardNetworkKinds(t *testing.T) {
	a, b := servertest.New(t, networktest.Options()...), servertest.New(t, networktest.Options()...)
	ann, bob := a.SignUp("ann"), b.SignUp("bob")
	carol := b.SignUp("carol")
	aDash, bDash := openDashboard(t, a, ann, ""), openDashboard(t, b, bob, "")

	res := ann.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": b.URL, "peerUserEmail": bob.Email, "message": "hello"})
	servertest.WantStatus(t, res, http.StatusCreated)
	aConn := res.JSON(t)["connection"].(map[string]any)["id"].(string)

	req, _ := untilType(t, bDash, vocab.StreamEventConnectionRequested)
	rc := req.GetEvent().GetRecord()
	if rc.GetState() != string(vocab.ConnectionStatusPending) || rc.GetConnectionId() != rc.GetId() || rc.GetId() == "" {
		t.Fatalf("connection_requested = %v", rc)
	}
	bConn := rc.GetId()
	if w := waitingOf(t, bob); w["connectionRequests"] != 1.0 || w["total"] != 1.0 {
		t.Fatalf("bob's waiting = %v", w)
	}
	// The asker waits for nothing; another account of B's sees none of it.
	if w := waitingOf(t, ann); w["connectionRequests"] != 0.0 {
		t.Fatalf("ann's waiting = %v", w)
	}
	if w := waitingOf(t, carol); w["total"] != 0.0 {
		t.Fatalf("carol's waiting = %v", w)
	}

	servertest.WantStatus(t, bob.Session.Do(http.MethodPost, "/api/federation/connections/"+bConn+"/accept", map[string]any{}), http.StatusOK)
	acc, _ := untilType(t, aDash, vocab.StreamEventConnectionAccepted)
	if rc := wantRecord(t, acc, aConn, "updated"); rc.GetState() != string(vocab.ConnectionStatusActive) {
		t.Fatalf("connection_accepted = %v", rc)
	}
	if w := waitingOf(t, bob); w["connectionRequests"] != 0.0 {
		t.Fatalf("bob's waiting after accepting = %v", w)
	}

	res = ann.Session.Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": aConn, "subject": "Send the deck", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	aRelay := res.JSON(t)["relay"].(map[string]any)["id"].(string)
	got, _ := untilType(t, bDash, vocab.StreamEventRelayDelivered)
	if rc := wantRecord(t, got, got.GetEvent().GetRecord().GetId(), "created"); rc.GetBrief() != "Send the deck" || rc.GetConnectionId() != bConn {
		t.Fatalf("relay_delivered = %v", rc)
	}

	item := b.DB.QueueItem.Query().Where(queueitem.UserID(bob.ID)).OnlyX(t.Context())
	servertest.WantStatus(t, bob.Session.Do(http.MethodPost, "/api/queue/confirm",
		map[string]any{"id": item.ID, "action": "approve"}), http.StatusOK)
	ack, _ := untilType(t, aDash, vocab.StreamEventRelayAcked)
	if rc := wantRecord(t, ack, aRelay, "updated"); rc.GetState() != string(vocab.RelayStateAccepted) || rc.GetConnectionId() != aConn {
		t.Fatalf("relay_acked = %v", rc)
	}

	// Another of A's users asks; bob declines, and his dashboard hears it
	// (the peer is not told).
	dan := a.SignUp("dan")
	servertest.WantStatus(t, dan.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": b.URL, "peerUserEmail": bob.Email}), http.StatusCreated)
	again, _ := untilType(t, bDash, vocab.StreamEventConnectionRequested)
	second := again.GetEvent().GetRecord().GetId()
	servertest.WantStatus(t, bob.Session.Do(http.MethodPost, "/api/federation/connections/"+second+"/decline", map[string]any{}), http.StatusOK)
	declined, _ := untilType(t, bDash, vocab.StreamEventConnectionDeclined)
	if rc := wantRecord(t, declined, second, "updated"); rc.GetState() != string(vocab.ConnectionStatusDeclined) {
		t.Fatalf("connection_declined = %v", rc)
	}
	if w := waitingOf(t, bob); w["connectionRequests"] != 0.0 {
		t.Fatalf("bob's waiting after declining = %v", w)
	}

	// From an untrusted connection a relay is held for bob's review: it
	// waits, and is delivered again once released.
	servertest.WantStatus(t, bob.Session.Do(http.MethodPatch, "/api/federation/connections/"+bConn,
		map[string]any{"trustLevel": "untrusted"}), http.StatusOK)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": aConn, "subject": "Held one", "intent": "get_info"}), http.StatusOK)
	held, _ := untilType(t, bDash, vocab.StreamEventRelayDelivered)
	heldID := held.GetEvent().GetRecord().GetId()
	if w := waitingOf(t, bob); w["relays"] != 1.0 || w["total"] != 1.0 {
		t.Fatalf("bob's waiting with a held relay = %v", w)
	}
	servertest.WantStatus(t, bob.Session.Do(http.MethodPost, "/api/federation/relays/"+heldID+"/release", map[string]any{}), http.StatusOK)
	released, _ := untilType(t, bDash, vocab.StreamEventRelayDelivered)
	wantRecord(t, released, heldID, "created")
	if w := waitingOf(t, bob); w["relays"] != 0.0 {
		t.Fatalf("bob's waiting after the release = %v", w)
	}
}

// GET /api/dashboard/waiting counts, each on its owner only: a project
// invite addressed to bob, a store result waiting for ann's review, and a
// closed engagement each side has yet to review, until it does. The
// engagement's moves reach both sides' dashboards as economy_changed.
func TestWaitingCounts(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	want := func(acc *servertest.Account, kind string, n float64) {
		t.Helper()
		if w := waitingOf(t, acc); w[kind] != n {
			t.Fatalf("%s's %s = %v, want %v (%v)", acc.Username, kind, w[kind], n, w)
		}
	}
	for _, acc := range []*servertest.Account{f.ann, f.bob, f.cat} {
		want(acc, "total", 0)
	}

	pid := wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/projects", map[string]any{"name": "Launch"}), http.StatusCreated)["project"].(map[string]any)["id"].(string)
	inv := wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/projects/"+pid+"/invite", map[string]any{"userId": f.bob.ID, "role": "contributor"}), http.StatusCreated)
	want(f.bob, "invites", 1)
	want(f.ann, "invites", 0)
	wantOK(t, f.bob.Session.Do(http.MethodPatch, "/api/project-invites",
		map[string]any{"inviteId": inv["invite"].(map[string]any)["id"], "action": "accept"}), http.StatusOK)
	want(f.bob, "invites", 0)

	f.s.DB.Execution.Create().SetUserID(f.ann.ID).SetStatus(execution.StatusCompleted).SetInput("Summarise the deck").
		SetReviewStatus(execution.ReviewStatusPendingReview).ExecX(t.Context())
	want(f.ann, "storeReviews", 1)
	want(f.bob, "storeReviews", 0)

	annDash, catDash := openDashboard(t, f.s, f.ann, ""), openDashboard(t, f.s, f.cat, "")
	id := f.hire(t, f.ann, f.cat, 1000)["id"].(string)
	f.move(t, f.cat, id, "accept", nil, http.StatusOK)
	f.move(t, f.cat, id, "deliver", map[string]any{"summary": "Done"}, http.StatusOK)
	f.move(t, f.ann, id, "close", nil, http.StatusOK)
	for _, st := range []*dashStream{annDash, catDash} {
		m, _ := untilType(t, st, vocab.StreamEventEconomyChanged)
		wantRecord(t, m, id, "created") // the offer, first of the moves
	}
	want(f.ann, "contractReviews", 1)
	want(f.cat, "contractReviews", 1)
	f.move(t, f.ann, id, "review", map[string]any{"overall": 4, "communication": 4, "quality": 4, "timeliness": 4}, http.StatusCreated)
	want(f.ann, "contractReviews", 0)
	want(f.cat, "contractReviews", 1)
	if w := waitingOf(t, f.ann); w["total"] != 1.0 {
		t.Fatalf("ann's total = %v", w)
	}
	// A key is no session: the counts are the dashboard's.
	servertest.WantError(t, f.s.WithKey(f.ann.NewKey("Scout")).Do(http.MethodGet, "/api/dashboard/waiting", nil), http.StatusForbidden)
}
