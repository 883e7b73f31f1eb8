package throughtest

import (
	"context"
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/server/provenance"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 35 point 1: cards, queue items, checklist items, contacts, packs
// and documents record who created them and who last wrote their text
// (the operator's session, an API key by its id, a peer, the store); a
// key's edit makes the operator's text outside, and only an edit of the
// operator's that replaces the whole text makes it inside again.
func TestRowsRecordTheirWriters(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	ctx := context.Background()
	keyOf := func(label string, scopes ...string) (*servertest.Caller, string) {
		api := s.WithKey(ann.NewKey(label, scopes...))
		for _, k := range ann.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any) {
			if k := k.(map[string]any); k["label"] == label {
				return api, k["id"].(string)
			}
		}
		t.Fatalf("no key %q", label)
		return nil, ""
	}
	id := func(res *servertest.Response, key string) string {
		t.Helper()
		if res.Status != http.StatusCreated && res.Status != http.StatusOK {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		return res.JSON(t)[key].(map[string]any)["id"].(string)
	}
	kanban, kanbanKey := keyOf("board bot", "kanban")
	queue, queueKey := keyOf("queue bot", "queue")
	contacts, contactsKey := keyOf("crm bot", "contacts")
	op, byKey := provenance.Mark{Kind: provenance.Operator}, func(ref string) provenance.Mark {
		return provenance.Mark{Kind: provenance.Key, Ref: ref}
	}
	want := func(what string, created, text provenance.Mark, gotCreated string, gotCreatedRef *string, gotText string, gotTextRef *string) {
		t.Helper()
		if c, x := provenance.Read(gotCreated, gotCreatedRef), provenance.Read(gotText, gotTextRef); c != created || x != text {
			t.Errorf("%s: created by %+v, text by %+v; want %+v, %+v", what, c, x, created, text)
		}
	}

	// A card: the key writes it; the operator's retitling leaves the key's
	// description, so it stays the key's; a rewrite of both is the
	// operator's; the key's later edit is the key's again.
	cardID := id(kanban.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Lead", "description": "from the bot",
		"checklist": []any{map[string]any{"text": "call"}}}), "card")
	c := s.DB.Card.GetX(ctx, cardID)
	want("card by key", byKey(kanbanKey), byKey(kanbanKey), string(c.CreatedBy), c.CreatedByRef, string(c.TextBy), c.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+cardID, map[string]any{"title": "My lead"}), http.StatusOK)
	c = s.DB.Card.GetX(ctx, cardID)
	want("card retitled", byKey(kanbanKey), byKey(kanbanKey), string(c.CreatedBy), c.CreatedByRef, string(c.TextBy), c.TextByRef)
	// One writer per row: a title sent again unchanged is not rewritten,
	// even though the operator wrote it (the safe side).
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+cardID,
		map[string]any{"title": "My lead", "description": "my words"}), http.StatusOK)
	c = s.DB.Card.GetX(ctx, cardID)
	want("card's description rewritten", byKey(kanbanKey), byKey(kanbanKey), string(c.CreatedBy), c.CreatedByRef, string(c.TextBy), c.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+cardID,
		map[string]any{"title": "Our lead", "description": "all my words"}), http.StatusOK)
	c = s.DB.Card.GetX(ctx, cardID)
	want("card rewritten", byKey(kanbanKey), op, string(c.CreatedBy), c.CreatedByRef, string(c.TextBy), c.TextByRef)
	servertest.WantStatus(t, kanban.Do(http.MethodPut, "/api/v2/kanban/"+cardID, map[string]any{"priority": "high"}), http.StatusOK)
	c = s.DB.Card.GetX(ctx, cardID)
	want("card reprioritised by the key", byKey(kanbanKey), op, string(c.CreatedBy), c.CreatedByRef, string(c.TextBy), c.TextByRef)

	// Its checklist item: the key's; a toggle is no text; the operator's
	// new text replaces it all.
	item := s.DB.ChecklistItem.Query().Where(checklistitem.CardID(cardID)).OnlyX(ctx)
	want("checklist item by key", byKey(kanbanKey), byKey(kanbanKey), string(item.CreatedBy), item.CreatedByRef, string(item.TextBy), item.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/kanban/"+cardID+"/checklist/"+item.ID,
		map[string]any{"completed": true}), http.StatusOK)
	item = s.DB.ChecklistItem.GetX(ctx, item.ID)
	want("checklist item ticked", byKey(kanbanKey), byKey(kanbanKey), string(item.CreatedBy), item.CreatedByRef, string(item.TextBy), item.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/kanban/"+cardID+"/checklist/"+item.ID,
		map[string]any{"text": "call back"}), http.StatusOK)
	item = s.DB.ChecklistItem.GetX(ctx, item.ID)
	want("checklist item reworded", byKey(kanbanKey), op, string(item.CreatedBy), item.CreatedByRef, string(item.TextBy), item.TextByRef)

	// A queue item of the operator's: a key's edit makes it the key's, and
	// the card the queue made for it has the item's writer.
	itemID := id(ann.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Pay rent", "description": "by Friday"}), "item")
	it := s.DB.QueueItem.GetX(ctx, itemID)
	want("item by the operator", op, op, string(it.CreatedBy), it.CreatedByRef, string(it.TextBy), it.TextByRef)
	bridged := s.DB.Card.Query().Where(card.ID(*it.CardID)).OnlyX(ctx)
	want("the item's card", op, op, string(bridged.CreatedBy), bridged.CreatedByRef, string(bridged.TextBy), bridged.TextByRef)
	servertest.WantStatus(t, queue.Do(http.MethodPut, "/api/v2/queue/"+itemID, map[string]any{"description": "by Monday"}), http.StatusOK)
	it = s.DB.QueueItem.GetX(ctx, itemID)
	want("item edited by a key", op, byKey(queueKey), string(it.CreatedBy), it.CreatedByRef, string(it.TextBy), it.TextByRef)
	keyItem := id(queue.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "From the bot"}), "item")
	it = s.DB.QueueItem.GetX(ctx, keyItem)
	bridged = s.DB.Card.Query().Where(card.ID(*it.CardID)).OnlyX(ctx)
	want("a key's item's card", byKey(queueKey), byKey(queueKey), string(bridged.CreatedBy), bridged.CreatedByRef,
		string(bridged.TextBy), bridged.TextByRef)

	// A contact: every field a person writes is its text.
	contactID := id(contacts.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Zed", "notes": "met at a fair"}), "contact")
	ct := s.DB.Contact.GetX(ctx, contactID)
	want("contact by key", byKey(contactsKey), byKey(contactsKey), string(ct.CreatedBy), ct.CreatedByRef, string(ct.TextBy), ct.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/v2/contacts/"+contactID, map[string]any{"company": "Acme"}), http.StatusOK)
	ct = s.DB.Contact.GetX(ctx, contactID)
	want("contact partly edited", byKey(contactsKey), byKey(contactsKey), string(ct.CreatedBy), ct.CreatedByRef, string(ct.TextBy), ct.TextByRef)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/v2/contacts/"+contactID,
		map[string]any{"name": "Zed Zee", "notes": "an old friend", "company": "Acme Ltd"}), http.StatusOK)
	ct = s.DB.Contact.GetX(ctx, contactID)
	want("contact rewritten", byKey(contactsKey), op, string(ct.CreatedBy), ct.CreatedByRef, string(ct.TextBy), ct.TextByRef)

	// A document and a pack the operator made.
	docID := id(ann.Session.Do(http.MethodPost, "/api/documents", map[string]any{"title": "Notes", "content": "mine", "mimeType": "text/plain"}), "document")
	d := s.DB.Document.GetX(ctx, docID)
	want("document", op, op, string(d.CreatedBy), d.CreatedByRef, string(d.TextBy), d.TextByRef)
	res := ann.Session.Do(http.MethodPost, "/api/marketplace-capabilities", map[string]any{"action": "create", "name": "Tone",
		"pricingModel": "free", "prompt": "Be warm."})
	servertest.WantStatus(t, res, http.StatusCreated)
	pack := s.DB.CapabilityPack.GetX(ctx, res.JSON(t)["capability"].(map[string]any)["capabilityId"].(string))
	want("pack", op, op, string(pack.CreatedBy), pack.CreatedByRef, string(pack.TextBy), pack.TextByRef)
}
