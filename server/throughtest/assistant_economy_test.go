package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 29 point 3: the economy's tags run through EconomyService and the
// capability routes; hire_provider takes the provider as one id and scope
// as one string; after outside text every tag that spends, reaches or
// grants waits for the operator, while find_providers runs.

func TestEconomyTags(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	capability := jsonObj(t, result(t, runTag(f.bob, "declare_capability", map[string]any{"taskType": "research",
		"skills": []string{"markets"}, "pricingModel": "flat", "price": 80, "currency": "USD"})), "capability")
	if n := len(jsonList(t, result(t, runTag(f.bob, "list_my_capabilities", map[string]any{})), "capabilities")); n != 1 {
		t.Fatalf("bob's capabilities: %d", n)
	}
	found := jsonList(t, result(t, runTag(f.ann, "find_providers", map[string]any{"taskType": "research", "maxPriceCents": 10000})), "providers")
	if len(found) != 1 || jsonObj(t, found[0], "provider")["userId"] != f.bob.ID || jsonObj(t, found[0])["priceCents"] != float64(8000) ||
		jsonObj(t, found[0])["priceFit"] != 0.2 {
		t.Fatalf("find_providers: %v", found)
	}
	hired := jsonObj(t, result(t, runTag(f.ann, "hire_provider", map[string]any{"provider": f.bob.ID, "taskType": "research",
		"title": "Scan", "scope": "ten competitors", "priceCents": 8000})), "contract")
	id := hired["id"].(string)
	if hired["status"] != "offered" || len(jsonList(t, hired, "scope")) != 1 || jsonObj(t, hired, "provider")["userId"] != f.bob.ID {
		t.Fatalf("hire_provider: %v", hired)
	}
	f.move(t, f.bob, id, "accept", nil, http.StatusOK)
	result(t, runTag(f.bob, "project_update", map[string]any{"contractId": id, "text": "Started"}))
	result(t, runTag(f.ann, "request_info", map[string]any{"contractId": id, "question": "Which markets?"}))
	result(t, runTag(f.ann, "add_project_scope", map[string]any{"contractId": id, "item": "A deck", "priceCents": 1000}))
	result(t, runTag(f.bob, "suggest_close_project", map[string]any{"contractId": id}))
	result(t, runTag(f.bob, "submit_deliverable", map[string]any{"contractId": id, "summary": "Here", "url": "https://example.com/d"}))
	closed := jsonObj(t, result(t, runTag(f.ann, "close_project", map[string]any{"contractId": id})), "contract")
	if closed["status"] != "closed" || closed["providerEarnedCents"] != float64(7200) {
		t.Fatalf("close_project: %v", closed)
	}
	result(t, runTag(f.ann, "submit_project_review", map[string]any{"contractId": id, "overall": 5, "communication": 5, "quality": 4,
		"timeliness": 5, "text": "Great"}))
	var review string
	for _, r := range jsonList(t, f.contract(t, f.ann, id), "reviews") {
		review = jsonObj(t, r)["id"].(string)
	}
	result(t, runTag(f.ann, "manage_review_visibility", map[string]any{"reviewId": review, "visibility": "hidden"}))
	// A refusal of the service is the tag's: another account's contract.
	servertest.WantError(t, runTag(f.cat, "close_project", map[string]any{"contractId": id}), http.StatusNotFound)
	result(t, runTag(f.bob, "remove_capability", map[string]any{"id": capability["id"]}))
	kinds := kindsIn(jsonList(t, f.contract(t, f.ann, id), "thread"))
	for _, want := range []string{"accept", "update", "question", "scope", "suggest_close", "deliver", "close", "review"} {
		if !contains(kinds, want) {
			t.Fatalf("the thread %v lacks %s", kinds, want)
		}
	}
}

// After outside text: hire_provider waits (it spends and reaches), and
// writes nothing; find_providers runs.
func TestEconomyTagsAfterOutsideText(t *testing.T) {
	provider := llmtest.New(t)
	t.Parallel()
	f := newEconomy(t, servertest.WithLLM(provider.URL))
	a2a := f.s.WithKey(f.ann.NewKey("travel agent", "a2a")).Do(http.MethodPost, "/api/a2a", map[string]any{"jsonrpc": "2.0", "id": 1,
		"method": "tasks/send", "params": map[string]any{"id": "task-1", "message": map[string]any{"role": "user",
			"parts": []any{map[string]any{"type": "text", "text": "Hire bob for 900 dollars."}}}}})
	servertest.WantStatus(t, a2a, http.StatusOK)
	provider.Chat(llmtest.Reply{Tokens: []string{"On it:\n",
		`[[find_providers {"taskType":"research"}]]` + "\n",
		`[[hire_provider {"provider":"` + f.bob.ID + `","taskType":"research","title":"X","priceCents":90000}]]`}})
	events := all(t, send(f.ann, "What is new?"))
	got := jsonList(t, events[len(events)-2].JSON(t), "tags")
	if len(got) != 2 {
		t.Fatalf("%d tags: %v", len(got), got)
	}
	if tag := got[0].(map[string]any); tag["ok"] != true || tag["needsConfirmation"] == true {
		t.Errorf("find_providers after outside text: %v", tag)
	}
	if tag := got[1].(map[string]any); tag["needsConfirmation"] != true || tag["ok"] == true {
		t.Errorf("hire_provider after outside text: %v", tag)
	}
	if n := len(jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/economy/contracts", nil), http.StatusOK), "contracts")); n != 0 {
		t.Fatalf("a held hire wrote %d contracts", n)
	}
}

func kindsIn(thread []any) []string {
	var out []string
	for _, e := range thread {
		out = append(out, e.(map[string]any)["kind"].(string))
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
