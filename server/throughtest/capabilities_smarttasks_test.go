package throughtest

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/server/capgate"
)

// Document 2, "Capability packs (session)": GET /api/smart-tasks/available
// answers {tasks} from the caller's installed store agents plus the
// built-ins (ids builtin_…, category builtin); a listing the caller did not
// install, or one that is no longer active, is not there. Document 1
// "Capability gate": the resolver finds the same handlers.
func TestSmartTasksAndTheGate(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	listing := map[string]any{
		"name": "Research Scout", "slug": "research-scout", "description": "Finds sources", "category": "research",
		"endpointUrl": "https://93.184.215.14/agent", "taskTypes": []string{"research", "summary"},
		"contextInstructions": "Cite sources", "requiredInputSchema": `{"type":"object"}`, "executionNotes": "Slow on Mondays",
		"usageExamples": "- Find three papers on X\n\n- Summarise this report\n", "inputFormat": "json",
	}
	res := f.api.Do(http.MethodPost, "/api/marketplace", listing)
	if res.Status != http.StatusCreated {
		t.Fatalf("listing: %d %s", res.Status, res.Body)
	}
	agentID := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	other := map[string]any{"name": "Unused", "endpointUrl": "https://93.184.215.14/other", "taskTypes": []string{"coding"}}
	if res := f.api.Do(http.MethodPost, "/api/marketplace", other); res.Status != http.StatusCreated {
		t.Fatalf("listing 2: %d %s", res.Status, res.Body)
	}
	if res := f.bobAPI.Do(http.MethodPost, "/api/marketplace/"+agentID+"/install", nil); res.Status != http.StatusCreated {
		t.Fatalf("install agent: %d %s", res.Status, res.Body)
	}

	res = f.bob.Session.Do(http.MethodGet, "/api/smart-tasks/available", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("smart tasks: %d %s", res.Status, res.Body)
	}
	tasks := res.JSON(t)["tasks"].([]any)
	if len(tasks) != 4 {
		t.Fatalf("want the agent and 3 built-ins: %s", res.Body)
	}
	want := map[string]any{
		"agentId": agentID, "agentName": "Research Scout", "agentSlug": "research-scout", "description": "Finds sources",
		"category": "research", "taskTypes": []any{"research", "summary"},
		"samplePrompts":       []any{"Find three papers on X", "Summarise this report"},
		"requiredInputSchema": `{"type":"object"}`, "contextInstructions": "Cite sources", "executionNotes": "Slow on Mondays",
		"inputFormat": "json",
	}
	if !reflect.DeepEqual(tasks[0], want) {
		t.Fatalf("agent entry:\n got %v\nwant %v", tasks[0], want)
	}
	for _, x := range tasks[1:] {
		e := x.(map[string]any)
		if !strings.HasPrefix(e["agentId"].(string), "builtin_") || e["category"] != "builtin" || e["requiredInputSchema"] != nil {
			t.Fatalf("built-in entry: %v", e)
		}
	}
	// Ann installed nothing: built-ins only.
	if got := f.api.Do(http.MethodGet, "/api/smart-tasks/available", nil).JSON(t)["tasks"].([]any); len(got) != 3 {
		t.Fatalf("ann's tasks: %v", got)
	}

	// The gate over the same data: a matching task type finds the agent, a
	// pack's category its pack, built-ins their domain, anything else none.
	f.create(t, f.bobAPI, map[string]any{"action": "create", "name": "CRM notes", "category": "crm-notes",
		"integrationType": "crm", "prompt": "Log it"})
	r := &capgate.Resolver{DB: f.s.DB.Client}
	ctx := context.Background()
	for taskType, wantKind := range map[string]string{
		"Summary": capgate.KindStoreAgent, "crm": capgate.KindCapability, "crm-notes": capgate.KindCapability,
		"calendar": capgate.KindBuiltin, "email": capgate.KindBuiltin, "coding": "", "": "",
	} {
		h, ok, err := r.Check(ctx, f.bob.ID, taskType)
		if err != nil || ok != (wantKind != "") || h.Kind != wantKind {
			t.Errorf("Check(%q) = %v %v %v, want kind %q", taskType, h, ok, err, wantKind)
		}
	}
	// Uninstalling the pack takes it out of the gate.
	packs := f.bobAPI.Do(http.MethodGet, capsPath+"?installed=true", nil).JSON(t)["capabilities"].([]any)
	if res := f.bobAPI.Do(http.MethodDelete, capsPath+"/"+packs[0].(map[string]any)["capabilityId"].(string), nil); res.Status != http.StatusOK {
		t.Fatalf("uninstall: %d", res.Status)
	}
	if _, ok, err := r.Check(ctx, f.bob.ID, "crm"); ok || err != nil {
		t.Fatalf("an uninstalled pack still handles: %v %v", ok, err)
	}
	// A listing that stops being active (suspended with its instance,
	// document 2 "Store agent status") takes no task and leaves the list.
	if err := f.s.DB.StoreAgent.UpdateOneID(agentID).SetStatus(storeagent.StatusSuspended).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.bobAPI.Do(http.MethodGet, "/api/smart-tasks/available", nil).JSON(t)["tasks"].([]any); len(got) != 3 {
		t.Fatalf("a suspended agent is listed: %v", got)
	}
	if _, ok, err := r.Check(ctx, f.bob.ID, "research"); ok || err != nil {
		t.Fatalf("a suspended agent still handles: %v %v", ok, err)
	}
}
