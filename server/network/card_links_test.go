package network_test

import (
	"context"
	"fmt"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func (in *instance) card(t *testing.T, id string) map[string]any {
	t.Helper()
	res := in.user.Session.Do(http.MethodGet, "/api/v2/kanban/"+id, nil)
	return object(t, res, "card")
}

// TestCardLinkStatusReachesPeer: RULINGS "The operator network" (Card links
// across instances: a card sent as a relay is linked to the card the relay
// became; status and priority changes on either side go to the other as a
// card-status update through the outbox and accumulate silently in the
// receiving card's change log, at most 20 entries).
func TestCardLinkStatusReachesPeer(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Linked plan", "status": "leads"}), http.StatusCreated)
	k, err := p.a.DB.Card.Query().Where(card.Title("Linked plan")).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := p.send(t, map[string]any{"subject": "Linked plan", "intent": "assign_task", "type": "request", "cardId": k.ID})
	servertest.WantStatus(t, res, http.StatusOK)
	bCard := object(t, res, "answer")["cardId"].(string)
	if got := p.a.card(t, k.ID); got["externalCardId"] != bCard || got["externalInstanceUrl"] != p.b.URL || len(got["changeLog"].([]any)) != 0 {
		t.Fatalf("A's card: %v", got)
	}
	if got := p.b.card(t, bCard); got["externalCardId"] != k.ID || got["externalInstanceUrl"] != p.a.URL {
		t.Fatalf("B's card: %v", got)
	}

	// B moves its card and raises its priority: A's card hears it, and
	// only its change log changes.
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPut, "/api/v2/kanban/"+bCard,
		map[string]any{"status": "proposal", "priority": "high"}), http.StatusOK)
	var log []any
	servertest.WaitFor(t, "B's change in A's change log", func() bool {
		log = p.a.card(t, k.ID)["changeLog"].([]any)
		return len(log) == 1
	})
	if e := log[0].(map[string]any); e["newStatus"] != "proposal" || e["newPriority"] != "high" || e["externalCardId"] != bCard ||
		e["from"] != "bob@"+host(p.b.URL) || e["changeLog"] == "" {
		t.Fatalf("entry: %v", e)
	}
	if got := p.a.card(t, k.ID); got["status"] != "leads" {
		t.Fatalf("A's card moved: %v", got["status"])
	}
	// A's next briefing shows the change as a digest, once: the briefing
	// after it has nothing new.
	briefing := func() map[string]any {
		res := p.a.user.Session.Do(http.MethodGet, "/api/federation/briefing", nil)
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)
	}
	b := briefing()
	digest := b["linkedCardChanges"].([]any)
	if n := b["counts"].(map[string]any)["linkedCardChanges"]; n != float64(1) || len(digest) != 1 {
		t.Fatalf("A's briefing digest: %v", b)
	}
	if d := digest[0].(map[string]any); d["id"] != k.ID || len(d["changeLog"].([]any)) != 1 ||
		d["changeLog"].([]any)[0].(map[string]any)["newStatus"] != "proposal" {
		t.Fatalf("digest entry: %v", d)
	}
	if b := briefing(); len(b["linkedCardChanges"].([]any)) != 0 {
		t.Fatalf("the next briefing repeats the digest: %v", b["linkedCardChanges"])
	}
	// The card digest's timer tells it as a comms message an hour after the
	// change, once (RULINGS "The proactive layer": digests on time).
	p.a.App.Digests.Wake()
	if n := len(comms(t, p.a, "linked_card_digest")); n != 0 {
		t.Fatalf("a card digest before its hour: %d", n)
	}
	p.a.Clock.Advance(time.Hour)
	p.a.App.Digests.Wake()
	servertest.WaitFor(t, "the card digest", func() bool { return len(comms(t, p.a, "linked_card_digest")) == 1 })
	if m := comms(t, p.a, "linked_card_digest")[0]; !strings.Contains(m.Content, "Linked plan") || !strings.Contains(m.Content, "proposal") {
		t.Fatalf("card digest: %q", m.Content)
	}

	// A's change goes the other way.
	servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPut, "/api/v2/kanban/"+k.ID, map[string]any{"priority": "low"}), http.StatusOK)
	servertest.WaitFor(t, "A's change in B's change log", func() bool {
		return len(p.b.card(t, bCard)["changeLog"].([]any)) == 1
	})

	// 21 more from B: 20 kept, the oldest dropped.
	post := func(body map[string]any) *servertest.Response {
		return p.a.Anonymous().Do(http.MethodPost, "/api/federation/card-status", body, "X-Federation-Token", p.tokenAtA)
	}
	for i := range 21 {
		servertest.WantStatus(t, post(map[string]any{"cardId": bCard, "externalCardId": k.ID, "newStatus": "active",
			"newPriority": "high", "changeLog": fmt.Sprintf("step %d", i)}), http.StatusOK)
	}
	log = p.a.card(t, k.ID)["changeLog"].([]any)
	if len(log) != 20 || log[0].(map[string]any)["changeLog"] != "step 1" || log[19].(map[string]any)["changeLog"] != "step 20" {
		t.Fatalf("change log of %d: first %v", len(log), log[0])
	}
	// The next card digest tells only what came after the last one.
	p.a.Clock.Advance(time.Hour)
	p.a.App.Digests.Wake()
	servertest.WaitFor(t, "the second card digest", func() bool { return len(comms(t, p.a, "linked_card_digest")) == 2 })
	if m := comms(t, p.a, "linked_card_digest")[1]; strings.Contains(m.Content, "proposal") || strings.Count(m.Content, "\n- ") != 20 {
		t.Fatalf("second card digest: %q", m.Content)
	}
	// A card not linked to the sender's, and a bad body, write nothing.
	servertest.WantError(t, post(map[string]any{"cardId": "other", "externalCardId": k.ID, "changeLog": "x"}), http.StatusNotFound)
	servertest.WantError(t, post(map[string]any{"cardId": bCard, "externalCardId": k.ID, "changeLog": "a\x00b"}), http.StatusBadRequest)
	servertest.WantError(t, post(map[string]any{"externalCardId": k.ID, "changeLog": "x"}), http.StatusBadRequest)
	servertest.WantError(t, post(map[string]any{"cardId": bCard, "externalCardId": k.ID, "changeLog": strings.Repeat("x", 100001)}), http.StatusBadRequest)
	servertest.WantError(t, p.a.Anonymous().Do(http.MethodPost, "/api/federation/card-status", map[string]any{"cardId": bCard, "externalCardId": k.ID}), http.StatusUnauthorized)
	if got := p.a.card(t, k.ID)["changeLog"].([]any); got[19].(map[string]any)["changeLog"] != "step 20" {
		t.Fatalf("a refused update was written: %v", got[19])
	}
	// RULINGS "Federation" (audit): the direct ones (the outbox's update is
	// at its procedure, below).
	if n := p.a.audited(t, federationauditlog.DirectionInbound, "/api/federation/card-status"); n < 26 {
		t.Fatalf("audited card-status calls: %d", n)
	}
	// Each side's outbox call is audited outbound where it left (B's one
	// move, A's one change) and inbound where it arrived.
	// Between Switchboards the outbox speaks Connect (ReceiveCardStatus's
	// procedure).
	proc := switchboardv1connect.NetworkSharePeerServiceReceiveCardStatusProcedure
	servertest.WaitFor(t, "the outbox's card-status calls audited on both sides", func() bool {
		return p.b.audited(t, federationauditlog.DirectionOutbound, proc) == 1 &&
			p.a.audited(t, federationauditlog.DirectionOutbound, proc) == 1 &&
			p.b.audited(t, federationauditlog.DirectionInbound, proc) == 1 &&
			p.a.audited(t, federationauditlog.DirectionInbound, proc) == 1
	})
}

// TestCardDigestAtTheNextConversation: RULINGS "The proactive layer" (the
// linked-card digest is delivered at the next conversation, not only by
// its timer): the operator's turn with the assistant tells it at once,
// before its hour, and the turn after that has nothing more to tell.
func TestCardDigestAtTheNextConversation(t *testing.T) {
	t.Parallel()
	provider := llmtest.New(t)
	p := newRelayPair(t, servertest.WithLLM(provider.URL))
	servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Shared launch", "status": "leads"}), http.StatusCreated)
	k, err := p.a.DB.Card.Query().Where(card.Title("Shared launch")).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := p.send(t, map[string]any{"subject": "Shared launch", "intent": "assign_task", "type": "request", "cardId": k.ID})
	servertest.WantStatus(t, res, http.StatusOK)
	bCard := object(t, res, "answer")["cardId"].(string)
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPut, "/api/v2/kanban/"+bCard, map[string]any{"status": "proposal"}), http.StatusOK)
	servertest.WaitFor(t, "B's change in A's change log", func() bool { return len(p.a.card(t, k.ID)["changeLog"].([]any)) == 1 })
	if n := len(comms(t, p.a, "linked_card_digest")); n != 0 {
		t.Fatalf("a card digest before the conversation: %d", n)
	}
	turn := func() {
		t.Helper()
		st := p.a.user.Session.StreamPost("/api/chat/send", `{"message":"what is new?"}`)
		if st.Response.StatusCode != http.StatusOK || !st.Ended(servertest.StreamTimeout) {
			t.Fatalf("chat send: %d", st.Response.StatusCode)
		}
	}
	turn()
	digest := comms(t, p.a, "linked_card_digest")
	if len(digest) != 1 || !strings.Contains(digest[0].Content, "Shared launch") {
		t.Fatalf("the card digest after the turn: %v", digest)
	}
	turn()
	if n := len(comms(t, p.a, "linked_card_digest")); n != 1 {
		t.Fatalf("card digests after a second turn: %d", n)
	}
}
