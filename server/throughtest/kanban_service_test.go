package throughtest

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Kanban and contacts": a new card is active, medium, human, at the end
// of its column.
func TestCreateDefaultsAndEndOfColumn(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	first := b.create(t, map[string]any{"title": "  Write the brief  "})
	for k, want := range map[string]any{
		"title": "Write the brief", "status": "active", "priority": "medium", "assignee": "human",
		"order": float64(0), "pendingReview": false, "isArchived": false, "userId": b.ann.ID,
	} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v", k, first[k], want)
		}
	}
	// REST: absent optionals and empty labels are null; the other lists are [].
	for _, k := range []string{"description", "dueDate", "summary", "projectId", "labels", "projectPrice"} {
		if v, ok := first[k]; !ok || v != nil {
			t.Errorf("REST %s = %v (present %v), want null", k, v, ok)
		}
	}
	for _, k := range []string{"checklist", "contacts"} {
		if l, ok := first[k].([]any); !ok || len(l) != 0 {
			t.Errorf("REST %s = %v, want []", k, first[k])
		}
	}
	if first["lastActivityAt"] == nil || first["createdAt"] == nil {
		t.Errorf("createdAt/lastActivityAt missing: %v", first)
	}

	cases := []struct {
		body  map[string]any
		order float64
	}{
		{map[string]any{"title": "second"}, 1},
		{map[string]any{"title": "third", "priority": "urgent"}, 2},
		{map[string]any{"title": "first paused", "status": "paused"}, 0},
		{map[string]any{"title": "pinned", "order": 7}, 7},
		{map[string]any{"title": "after pinned"}, 8},
		{map[string]any{"title": "second paused", "status": "paused", "assignee": "agent"}, 1},
	}
	for _, tc := range cases {
		got := b.create(t, tc.body)
		if got["order"] != tc.order {
			t.Errorf("%v: order = %v, want %v", tc.body, got["order"], tc.order)
		}
	}

	// The RPC form of the same card: absent optionals are omitted, labels [].
	c := b.client("connect+json")
	res, err := c.CreateCard(context.Background(), &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: proto.String("via connect")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.GetCard(); got.GetStatus() != "active" || got.GetPriority() != "medium" || got.GetAssignee() != "human" || got.GetOrder() != 9 {
		t.Fatalf("connect create = %v", got)
	}
	raw := rpc(b.api, "GetCard", map[string]any{"id": res.GetCard().GetId()})
	servertest.WantStatus(t, raw, 200)
	card := raw.JSON(t)["card"].(map[string]any)
	if l, ok := card["labels"].([]any); !ok || len(l) != 0 {
		t.Errorf("RPC labels = %v, want []", card["labels"])
	}
	for _, k := range []string{"description", "dueDate", "projectId"} {
		if _, ok := card[k]; ok {
			t.Errorf("RPC form carries absent %s", k)
		}
	}
}

// Document 1, "CardContact": list contacts carry four fields, detail contacts
// seven; REST labels are null when empty where RPC gives [].
func TestRenderingsListVsDetail(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	full := b.contact(t, b.ann.ID, "Grace Hopper", func(c *ent.ContactCreate) {
		c.SetEmail("grace@example.com").SetCompany("Navy").SetPhone("+1 555 0100").SetRole("Admiral").
			SetTags([]string{"vip"}).SetNotes("not rendered on cards")
	})
	sparse := b.contact(t, b.ann.ID, "Linus", nil)
	labelled := b.create(t, map[string]any{"title": "labelled", "labels": []string{"x", "y"},
		"contacts": []map[string]any{{"contactId": full.ID, "role": "sponsor", "canDelegate": true}, {"contactId": sparse.ID}}})
	bare := b.create(t, map[string]any{"title": "bare"})

	restList := b.api.Do(http.MethodGet, "/api/v2/kanban", nil)
	servertest.WantStatus(t, restList, 200)
	rpcList := rpc(b.api, "ListCards", map[string]any{})
	servertest.WantStatus(t, rpcList, 200)
	restDetail := b.api.Do(http.MethodGet, "/api/v2/kanban/"+labelled["id"].(string), nil)
	rpcDetail := rpc(b.api, "GetCard", map[string]any{"id": labelled["id"]})
	restBare := b.api.Do(http.MethodGet, "/api/v2/kanban/"+bare["id"].(string), nil)
	rpcBare := rpc(b.api, "GetCard", map[string]any{"id": bare["id"]})

	cardsOf := func(r *servertest.Response) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, c := range r.JSON(t)["cards"].([]any) {
			out[c.(map[string]any)["title"].(string)] = c.(map[string]any)
		}
		return out
	}
	contactKeys := func(card map[string]any) [][]string {
		var out [][]string
		for _, cc := range card["contacts"].([]any) {
			out = append(out, slices.Sorted(maps.Keys(cc.(map[string]any)["contact"].(map[string]any))))
		}
		return out
	}
	four := []string{"company", "email", "id", "name"}
	seven := []string{"company", "email", "id", "name", "phone", "role", "tags"}
	cases := []struct {
		name string
		card map[string]any
		want [][]string
	}{
		{"REST list", cardsOf(restList)["labelled"], [][]string{four, four}},
		{"RPC list", cardsOf(rpcList)["labelled"], [][]string{four, {"id", "name"}}},
		{"REST detail", restDetail.JSON(t)["card"].(map[string]any), [][]string{seven, seven}},
		{"RPC detail", rpcDetail.JSON(t)["card"].(map[string]any), [][]string{seven, {"id", "name", "tags"}}},
	}
	for _, tc := range cases {
		if got := contactKeys(tc.card); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: contact keys = %v, want %v", tc.name, got, tc.want)
		}
		if l := tc.card["labels"].([]any); len(l) != 2 {
			t.Errorf("%s: labels = %v", tc.name, l)
		}
		link := tc.card["contacts"].([]any)[0].(map[string]any)
		if link["involvement"] != "related" || link["role"] != "sponsor" || link["canDelegate"] != true || link["contactId"] != full.ID {
			t.Errorf("%s: link = %v", tc.name, link)
		}
	}
	// The sparse contact on the detail: REST nulls and [] tags, RPC omits but keeps [] tags.
	restSparse := restDetail.JSON(t)["card"].(map[string]any)["contacts"].([]any)[1].(map[string]any)["contact"].(map[string]any)
	if restSparse["email"] != nil || restSparse["phone"] != nil || len(restSparse["tags"].([]any)) != 0 {
		t.Errorf("REST sparse contact = %v", restSparse)
	}
	if _, ok := rpcDetail.JSON(t)["card"].(map[string]any)["contacts"].([]any)[1].(map[string]any)["role"]; ok {
		t.Errorf("RPC link without role carries role")
	}
	// Labels: REST null, RPC [], for a card with none; in list and detail.
	if v, ok := cardsOf(restList)["bare"]["labels"]; !ok || v != nil {
		t.Errorf("REST list labels = %v", v)
	}
	if v, ok := restBare.JSON(t)["card"].(map[string]any)["labels"]; !ok || v != nil {
		t.Errorf("REST detail labels = %v", v)
	}
	for name, card := range map[string]map[string]any{"list": cardsOf(rpcList)["bare"], "detail": rpcBare.JSON(t)["card"].(map[string]any)} {
		if l, ok := card["labels"].([]any); !ok || len(l) != 0 {
			t.Errorf("RPC %s labels = %v, want []", name, card["labels"])
		}
	}
}

// Every RPC over every Connect protocol: the happy path and the error codes.
func TestEveryRPCOverConnectKanban(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	bob := b.s.SignUp("bob")
	bobCard := b.s.DB.Card.Create().SetUserID(bob.ID).SetTitle("bob's").SaveX(context.Background())
	for name := range servertest.Protocols() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := b.client(name)
			created, err := c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
				Title: proto.String("card " + name), Priority: proto.String("high"),
				Checklist: []*switchboardv1.ChecklistItemInput{{Text: "one"}, {Text: "two", Completed: true}},
			}})
			if err != nil {
				t.Fatalf("CreateCard: %v", err)
			}
			id := created.GetCard().GetId()
			if got := created.GetCard(); got.GetPriority() != "high" || len(got.GetChecklist()) != 2 {
				t.Fatalf("created = %v", got)
			}
			got, err := c.GetCard(ctx, &switchboardv1.GetCardRequest{Id: id})
			if err != nil || got.GetCard().GetTitle() != "card "+name {
				t.Fatalf("GetCard = %v, %v", got, err)
			}
			list, err := c.ListCards(ctx, &switchboardv1.ListCardsRequest{Search: "CARD " + name})
			if err != nil || len(list.GetCards()) != 1 || list.GetPagination().GetTotal() != 1 {
				t.Fatalf("ListCards = %v, %v", list, err)
			}
			upd, err := c.UpdateCard(ctx, &switchboardv1.UpdateCardRequest{Id: id, Card: &switchboardv1.CardInput{Status: proto.String("planning")}})
			if err != nil || upd.GetCard().GetStatus() != "planning" || upd.GetCard().GetPriority() != "high" {
				t.Fatalf("UpdateCard = %v, %v", upd, err)
			}
			item := upd.GetCard().GetChecklist()[0]
			done, err := c.UpdateChecklistItem(ctx, &switchboardv1.UpdateChecklistItemRequest{CardId: id, Id: item.GetId(), Completed: proto.Bool(true)})
			if err != nil || !done.GetItem().GetCompleted() || !done.GetCardCompleted() {
				t.Fatalf("UpdateChecklistItem = %v, %v", done, err)
			}
			feed, err := sessionClient(b.s, b.ann, name).ListCardActivity(ctx, &switchboardv1.ListCardActivityRequest{Id: id})
			if err != nil || len(feed.GetData()) != 4 || !feed.GetSuccess() || feed.NextCursor != nil {
				t.Fatalf("ListCardActivity = %v, %v", feed, err)
			}
			if a := feed.GetData()[0].GetAction(); a != "card_auto_completed" && a != "checklist_completed" {
				t.Fatalf("newest entry = %s", a)
			}
			del, err := c.DeleteCard(ctx, &switchboardv1.DeleteCardRequest{Id: id})
			if err != nil || del.GetCard().GetStatus() != "completed" {
				t.Fatalf("DeleteCard = %v, %v", del, err)
			}

			_, err = c.GetCard(ctx, &switchboardv1.GetCardRequest{Id: id})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.GetCard(ctx, &switchboardv1.GetCardRequest{Id: bobCard.ID})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: proto.String("x"), Status: proto.String("done")}})
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
			_, err = c.ListCardActivity(ctx, &switchboardv1.ListCardActivityRequest{Id: bobCard.ID})
			servertest.WantCode(t, err, connect.CodePermissionDenied) // a key on a session-only procedure
		})
	}
}

// ListCards: filters, search on title and description without regard to case,
// board order, pagination.
func TestListFiltersAndPagination(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	for _, c := range []map[string]any{
		{"title": "Quarterly REPORT", "status": "completed", "priority": "low"},
		{"title": "Call Ada", "status": "leads", "priority": "urgent", "assignee": "agent"},
		{"title": "Draft", "description": "the annual report, 50% done", "status": "active"},
		{"title": "Ship it", "status": "active", "priority": "high", "assignee": "agent"},
		{"title": "Qualify Bob", "status": "qualifying"},
	} {
		b.create(t, c)
	}
	other := b.s.SignUp("bob")
	b.s.DB.Card.Create().SetUserID(other.ID).SetTitle("bob's report").ExecX(context.Background())

	titles := func(res *servertest.Response) []string {
		var out []string
		for _, c := range res.JSON(t)["cards"].([]any) {
			out = append(out, c.(map[string]any)["title"].(string))
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"Call Ada", "Qualify Bob", "Draft", "Ship it", "Quarterly REPORT"}},
		{"?status=active", []string{"Draft", "Ship it"}},
		{"?priority=medium", []string{"Qualify Bob", "Draft"}},
		{"?assignee=agent", []string{"Call Ada", "Ship it"}},
		{"?search=rEpOrT", []string{"Draft", "Quarterly REPORT"}},
		{"?search=50%25", []string{"Draft"}},
		{"?search=5_%25", nil},
		{"?search=report&status=completed", []string{"Quarterly REPORT"}},
		{"?status=paused", nil},
	}
	for _, tc := range cases {
		res := b.api.Do(http.MethodGet, "/api/v2/kanban"+tc.query, nil)
		servertest.WantStatus(t, res, 200)
		if got := titles(res); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}

	pages := []struct {
		query   string
		want    []string
		total   float64
		hasMore bool
	}{
		{"?limit=2", []string{"Call Ada", "Qualify Bob"}, 5, true},
		{"?limit=2&offset=2", []string{"Draft", "Ship it"}, 5, true},
		{"?limit=2&offset=4", []string{"Quarterly REPORT"}, 5, false},
		{"?limit=2&offset=50", nil, 5, false},
		{"?limit=500", []string{"Call Ada", "Qualify Bob", "Draft", "Ship it", "Quarterly REPORT"}, 5, false},
	}
	for _, tc := range pages {
		res := b.api.Do(http.MethodGet, "/api/v2/kanban"+tc.query, nil)
		servertest.WantStatus(t, res, 200)
		pg := res.JSON(t)["pagination"].(map[string]any)
		if got := titles(res); !slices.Equal(got, tc.want) || pg["total"] != tc.total || pg["hasMore"] != tc.hasMore {
			t.Errorf("%s: %v %v, want %v total %v hasMore %v", tc.query, got, pg, tc.want, tc.total, tc.hasMore)
		}
		if cards := res.JSON(t)["cards"].([]any); cards == nil {
			t.Errorf("%s: cards is null", tc.query)
		}
	}
	if pg := b.api.Do(http.MethodGet, "/api/v2/kanban?limit=500", nil).JSON(t)["pagination"].(map[string]any); pg["limit"] != float64(100) {
		t.Errorf("limit 500 answered limit %v, want 100", pg["limit"])
	}

	for _, q := range []string{"?status=done", "?status=Active", "?priority=critical", "?assignee=robot", "?limit=-1", "?offset=-3", "?colour=red"} {
		res := b.api.Do(http.MethodGet, "/api/v2/kanban"+q, nil)
		servertest.WantError(t, res, 400)
	}
	msg := b.api.Do(http.MethodGet, "/api/v2/kanban?status=done", nil).JSON(t)["error"].(string)
	if msg != `status "done" is not one of leads, qualifying, proposal, negotiation, contracted, active, development, planning, paused, completed` {
		t.Errorf("message = %q", msg)
	}
}

// Lists load checklists and contacts in a fixed number of queries, whatever the
// page size; checklists come in their order.
func TestListCarriesChecklistInOrder(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	for i := range 3 {
		b.create(t, map[string]any{"title": fmt.Sprint("card ", i), "contacts": []map[string]any{{"contactId": ct.ID}},
			"checklist": []map[string]any{{"text": "c", "order": 3}, {"text": "a", "order": 1}, {"text": "b", "order": 2}}})
	}
	res := b.api.Do(http.MethodGet, "/api/v2/kanban", nil)
	servertest.WantStatus(t, res, 200)
	for _, c := range res.JSON(t)["cards"].([]any) {
		var texts []string
		for _, it := range c.(map[string]any)["checklist"].([]any) {
			texts = append(texts, it.(map[string]any)["text"].(string))
		}
		if !slices.Equal(texts, []string{"a", "b", "c"}) {
			t.Errorf("checklist order %v", texts)
		}
		if n := len(c.(map[string]any)["contacts"].([]any)); n != 1 {
			t.Errorf("contacts %d", n)
		}
	}
}
