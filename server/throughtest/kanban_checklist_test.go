package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func itemPath(cardID, itemID string) string {
	return "/api/v2/kanban/" + cardID + "/checklist/" + itemID
}

// Document 1, "Auto-complete": completing the last open item completes the card.
func TestUpdateChecklistItemAutoCompletes(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	c := b.create(t, map[string]any{"title": "Launch", "checklist": []map[string]any{{"text": "build"}, {"text": "ship"}}})
	id := c["id"].(string)
	build := c["checklist"].([]any)[0].(map[string]any)["id"].(string)
	ship := c["checklist"].([]any)[1].(map[string]any)["id"].(string)

	steps := []struct {
		name          string
		item          string
		body          map[string]any
		completed     bool
		cardCompleted bool
		cardStatus    string
		action        string
	}{
		{"check the first", build, map[string]any{"completed": true}, true, false, "active", "checklist_completed"},
		{"reword the second", ship, map[string]any{"text": "ship it"}, false, false, "active", "card_updated"},
		{"check the last", ship, map[string]any{"completed": true}, true, true, "completed", "card_auto_completed"},
		{"uncheck one", build, map[string]any{"completed": false}, false, false, "completed", "checklist_unchecked"},
		{"check it again (already completed card)", build, map[string]any{"completed": true}, true, false, "completed", "checklist_completed"},
	}
	for _, st := range steps {
		res := b.api.Do(http.MethodPatch, itemPath(id, st.item), st.body)
		servertest.WantStatus(t, res, 200)
		body := res.JSON(t)
		item := body["item"].(map[string]any)
		if item["completed"] != st.completed || body["cardCompleted"] != st.cardCompleted || item["id"] != st.item || item["cardId"] != id {
			t.Errorf("%s: %s", st.name, res.Body)
		}
		if got := b.get(t, id)["status"]; got != st.cardStatus {
			t.Errorf("%s: card status %v, want %v", st.name, got, st.cardStatus)
		}
		if acts := b.actions(t, id); acts[len(acts)-1] != st.action {
			t.Errorf("%s: last action %v, want %s", st.name, acts, st.action)
		}
	}
	// The completed card went to the end of the completed column.
	if got := b.get(t, id); got["order"] != float64(0) {
		t.Errorf("order in completed = %v", got["order"])
	}
	// A PATCH that changes nothing writes nothing.
	n := len(b.actions(t, id))
	servertest.WantStatus(t, b.api.Do(http.MethodPatch, itemPath(id, build), map[string]any{"completed": true, "text": "build"}), 200)
	if len(b.actions(t, id)) != n {
		t.Errorf("no-op PATCH wrote activity")
	}

	// Refusals: nothing to change, blank text, negative order, an item of another card.
	other := b.create(t, map[string]any{"title": "other", "checklist": []map[string]any{{"text": "x"}}})
	otherItem := other["checklist"].([]any)[0].(map[string]any)["id"].(string)
	before := b.count(t)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, build), `{}`), 400)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, build), `{"text":"  "}`), 400)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, build), `{"order":-1}`), 400)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, build), `{"completed":"yes"}`), 400)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, otherItem), `{"completed":true}`), 404)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath(id, "nope"), `{"completed":true}`), 404)
	servertest.WantError(t, b.api.Do(http.MethodPatch, itemPath("nope", build), `{"completed":true}`), 404)
	if after := b.count(t); after != before {
		t.Errorf("refusals wrote: %+v → %+v", before, after)
	}
}

// The same over Connect.
func TestUpdateChecklistItemConnect(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	c := b.client("connect+json")
	created, err := c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
		Title: proto.String("T"), Checklist: []*switchboardv1.ChecklistItemInput{{Text: "only"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	card := created.GetCard()
	item := card.GetChecklist()[0]
	_, err = c.UpdateChecklistItem(ctx, &switchboardv1.UpdateChecklistItemRequest{CardId: card.GetId(), Id: item.GetId()})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	res, err := c.UpdateChecklistItem(ctx, &switchboardv1.UpdateChecklistItemRequest{
		CardId: card.GetId(), Id: item.GetId(), Completed: proto.Bool(true), Order: proto.Int32(4),
	})
	if err != nil || !res.GetCardCompleted() || res.GetItem().GetOrder() != 4 {
		t.Fatalf("UpdateChecklistItem = %v, %v", res, err)
	}
	_, err = c.UpdateChecklistItem(ctx, &switchboardv1.UpdateChecklistItemRequest{CardId: card.GetId(), Id: "nope", Completed: proto.Bool(true)})
	servertest.WantCode(t, err, connect.CodeNotFound)
}

// Document 1: cards with an unchecked queue_review item show the badge.
func TestPendingReview(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	c := b.create(t, map[string]any{"title": "T", "checklist": []map[string]any{{"text": "work"}}})
	id := c["id"].(string)
	if c["pendingReview"] != false {
		t.Fatalf("new card pendingReview = %v", c["pendingReview"])
	}
	review := b.s.DB.ChecklistItem.Create().SetUserID(b.ann.ID).SetCardID(id).SetText("Review result").
		SetSourceType("queue_review").SetSourceLabel("pending_review").SetOrder(1).SaveX(ctx)
	// A completed queue item does not raise the badge.
	b.s.DB.ChecklistItem.Create().SetUserID(b.ann.ID).SetCardID(id).SetText("done task").
		SetSourceType("queue").SetCompleted(true).SetOrder(2).ExecX(ctx)

	list := b.api.Do(http.MethodGet, "/api/v2/kanban", nil).JSON(t)["cards"].([]any)[0].(map[string]any)
	if list["pendingReview"] != true || b.get(t, id)["pendingReview"] != true {
		t.Fatalf("pendingReview not raised: list %v", list["pendingReview"])
	}
	raw := rpc(b.api, "GetCard", map[string]any{"id": id}).JSON(t)["card"].(map[string]any)
	if raw["pendingReview"] != true {
		t.Errorf("RPC pendingReview = %v", raw["pendingReview"])
	}
	servertest.WantStatus(t, b.api.Do(http.MethodPatch, itemPath(id, review.ID), map[string]any{"completed": true}), 200)
	if got := b.get(t, id); got["pendingReview"] != false || got["status"] != "active" {
		t.Errorf("after review: pendingReview %v status %v", got["pendingReview"], got["status"])
	}
}
