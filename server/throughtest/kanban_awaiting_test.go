package throughtest

import (
	"context"
	"net/http"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// A card the queue bridge made for an item still waiting for approval sits in
// the active column; itemsAwaitingApproval tells the board so (issue 31,
// point 3), on the list and the detail, over REST and Connect, and drops to
// 0 once the item is approved.
func TestCardsCountItemsAwaitingApproval(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("agent"))
	newItem := func(body map[string]any) map[string]any {
		t.Helper()
		res := api.Do(http.MethodPost, "/api/v2/queue", body)
		servertest.WantStatus(t, res, http.StatusCreated)
		return res.JSON(t)["item"].(map[string]any)
	}
	first := newItem(map[string]any{"title": "Renew the domain"})
	if first["status"] != "pending_confirmation" {
		t.Fatalf("item status = %v", first["status"])
	}
	cardID, _ := first["cardId"].(string)
	if cardID == "" {
		t.Fatalf("the bridge linked no card: %v", first)
	}
	second := newItem(map[string]any{"title": "Pay the registrar", "cardId": cardID})
	other := newItem(map[string]any{"title": "Unrelated"})

	awaiting := func(want float64) {
		t.Helper()
		res := api.Do(http.MethodGet, "/api/v2/kanban?status=active", nil)
		servertest.WantStatus(t, res, http.StatusOK)
		found := false
		for _, c := range res.JSON(t)["cards"].([]any) {
			c := c.(map[string]any)
			if c["id"] == cardID {
				found = true
				if c["itemsAwaitingApproval"] != want {
					t.Fatalf("list: itemsAwaitingApproval = %v, want %v", c["itemsAwaitingApproval"], want)
				}
			} else if c["id"] == other["cardId"] && c["itemsAwaitingApproval"] != float64(1) {
				t.Fatalf("the other card counts %v", c["itemsAwaitingApproval"])
			}
		}
		if !found {
			t.Fatalf("card %s not in the active column: %s", cardID, res.Body)
		}
		res = api.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil)
		if got := res.JSON(t)["card"].(map[string]any)["itemsAwaitingApproval"]; got != want {
			t.Fatalf("detail: itemsAwaitingApproval = %v, want %v", got, want)
		}
		for name := range servertest.Protocols() {
			got, err := sessionClient(s, ann, name).GetCard(context.Background(), &switchboardv1.GetCardRequest{Id: cardID})
			if err != nil || float64(got.GetCard().GetItemsAwaitingApproval()) != want {
				t.Fatalf("%s GetCard = %v, %v; want %v waiting", name, got.GetCard().GetItemsAwaitingApproval(), err, want)
			}
		}
	}
	awaiting(2)
	confirm := func(id string) {
		t.Helper()
		res := api.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"id": id, "action": "approve"})
		servertest.WantStatus(t, res, http.StatusOK)
	}
	confirm(first["id"].(string))
	awaiting(1)
	confirm(second["id"].(string))
	awaiting(0)
}
