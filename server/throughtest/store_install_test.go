package throughtest

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/memoryentry"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// memory answers userID's memory entries of one agent, in order.
func (f *marketFixture) memory(t *testing.T, userID, agentID string) []*ent.MemoryEntry {
	t.Helper()
	rows, err := f.s.DB.MemoryEntry.Query().Where(memoryentry.UserID(userID), memoryentry.Source(store.MemorySource),
		memoryentry.SourceID(agentID)).Order(ent.Asc(memoryentry.FieldPosition)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func kinds(rows []*ent.MemoryEntry) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Kind
	}
	return out
}

// Document 2 "Store agent listing": installing decomposes the integration
// kit into up to 8 memory entries; uninstalling removes them all. A full kit
// writes 8, a bare one only the overview; a second install is 409, an
// uninstall without an install 404; other accounts' entries are untouched.
func TestInstallWritesTheKitAsMemory(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	full := f.create(t, f.bobAPI, fullBody())
	bare := f.create(t, f.bobAPI, map[string]any{"name": "Bare"})
	fullID, bareID := full["id"].(string), bare["id"].(string)

	res := f.api.Do(http.MethodPost, "/api/marketplace/"+fullID+"/install", nil)
	if res.Status != http.StatusCreated {
		t.Fatalf("install: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	entries := body["memoryEntries"].([]any)
	wantKinds := []string{"overview", "task_types", "context_instructions", "required_input_schema", "output_schema",
		"usage_examples", "context_preparation", "execution_notes"}
	if len(entries) != store.MaxMemoryEntries {
		t.Fatalf("%d entries, want %d: %v", len(entries), store.MaxMemoryEntries, entries)
	}
	for i, e := range entries {
		m := e.(map[string]any)
		if m["kind"] != wantKinds[i] || m["title"] == "" || m["id"] == "" {
			t.Fatalf("entry %d = %v", i, m)
		}
	}
	if c := entries[2].(map[string]any)["content"]; c != "Cite every source." {
		t.Fatalf("context instructions entry = %v", c)
	}
	if c := entries[1].(map[string]any)["content"]; c != "research, summary" {
		t.Fatalf("task types entry = %v", c)
	}
	if c := entries[0].(map[string]any)["content"].(string); !strings.Contains(c, "@research-scout") {
		t.Fatalf("overview = %q", c)
	}
	agent := body["agent"].(map[string]any)
	if agent["installed"] != true || agent["installCount"] != float64(1) {
		t.Fatalf("agent after install = %v", agent)
	}
	if got := kinds(f.memory(t, f.ann.ID, fullID)); !slices.Equal(got, wantKinds) {
		t.Fatalf("stored kinds = %v", got)
	}
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/"+fullID+"/install", nil), http.StatusConflict)

	res = f.api.Do(http.MethodPost, "/api/marketplace/"+bareID+"/install", nil)
	if n := len(res.JSON(t)["memoryEntries"].([]any)); res.Status != http.StatusCreated || n != 1 {
		t.Fatalf("bare kit: %d entries, %s", n, res.Body)
	}
	// Bob installs his own agent too: ann's uninstall must leave his entries.
	if res := f.bobAPI.Do(http.MethodPost, "/api/marketplace/"+fullID+"/install", nil); res.Status != http.StatusCreated {
		t.Fatalf("owner install: %d %s", res.Status, res.Body)
	}

	res = f.api.Do(http.MethodDelete, "/api/marketplace/"+fullID+"/install", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("uninstall: %d %s", res.Status, res.Body)
	}
	body = res.JSON(t)
	if body["removedMemoryEntries"] != float64(8) || body["agent"].(map[string]any)["installed"] != false ||
		body["agent"].(map[string]any)["installCount"] != float64(1) {
		t.Fatalf("uninstall = %v", body)
	}
	if n := len(f.memory(t, f.ann.ID, fullID)); n != 0 {
		t.Fatalf("%d entries left after uninstall", n)
	}
	if n := len(f.memory(t, f.ann.ID, bareID)); n != 1 {
		t.Fatalf("uninstalling one agent touched another's entries: %d", n)
	}
	if n := len(f.memory(t, f.bob.ID, fullID)); n != 8 {
		t.Fatalf("ann's uninstall touched bob's entries: %d", n)
	}
	servertest.WantError(t, f.api.Do(http.MethodDelete, "/api/marketplace/"+fullID+"/install", nil), http.StatusNotFound)

	// The same over Connect.
	ctx := context.Background()
	c := f.client("grpc", f.annKey)
	in, err := c.InstallStoreAgent(ctx, &switchboardv1.InstallStoreAgentRequest{Id: fullID})
	if err != nil || len(in.GetMemoryEntries()) != 8 || !in.GetAgent().GetInstalled() {
		t.Fatalf("connect install: %v %v", in, err)
	}
	_, err = c.InstallStoreAgent(ctx, &switchboardv1.InstallStoreAgentRequest{Id: fullID})
	servertest.WantCode(t, err, connect.CodeAlreadyExists)
	out, err := c.UninstallStoreAgent(ctx, &switchboardv1.UninstallStoreAgentRequest{Id: fullID})
	if err != nil || out.GetRemovedMemoryEntries() != 8 {
		t.Fatalf("connect uninstall: %v %v", out, err)
	}
	_, err = c.UninstallStoreAgent(ctx, &switchboardv1.UninstallStoreAgentRequest{Id: fullID})
	servertest.WantCode(t, err, connect.CodeNotFound)
}

// When the owner changes the kit, every installer's entries follow it; a
// change outside the kit leaves them alone. Deleting the listing removes
// every installer's entries.
func TestKitChangesReachInstallers(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Evolving", "contextInstructions": "v1"})
	id := a["id"].(string)
	if res := f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil); res.Status != http.StatusCreated {
		t.Fatalf("install: %d %s", res.Status, res.Body)
	}
	before := f.memory(t, f.ann.ID, id)
	if !slices.Equal(kinds(before), []string{"overview", "context_instructions"}) {
		t.Fatalf("kinds = %v", kinds(before))
	}
	f.put(t, f.bobAPI, id, map[string]any{"availability": "maintenance"})
	if after := f.memory(t, f.ann.ID, id); after[1].ID != before[1].ID {
		t.Fatal("a change outside the kit rewrote the entries")
	}
	f.put(t, f.bobAPI, id, map[string]any{"contextInstructions": "v2", "executionNotes": "slow on Mondays"})
	after := f.memory(t, f.ann.ID, id)
	if !slices.Equal(kinds(after), []string{"overview", "context_instructions", "execution_notes"}) || after[1].Content != "v2" {
		t.Fatalf("after the kit change: %v", after)
	}
	if res := f.bobAPI.Do(http.MethodDelete, "/api/marketplace/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if n := len(f.memory(t, f.ann.ID, id)); n != 0 {
		t.Fatalf("%d entries left after the listing was deleted", n)
	}
	if rc := f.counts(t); rc.installs != 0 || rc.memory != 0 {
		t.Fatalf("rows left: %+v", rc)
	}
}

// Subscribe and unsubscribe (document 2, "Agent store"): 201 then 409 for a
// second subscription; unsubscribing without one is 404; the subscriber
// count follows.
func TestSubscribe(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Newsletter"})
	id := a["id"].(string)
	res := f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/subscribe", nil)
	if res.Status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.Status, res.Body)
	}
	if ag := res.JSON(t)["agent"].(map[string]any); ag["subscribed"] != true || ag["subscriberCount"] != float64(1) {
		t.Fatalf("after subscribe: %v", ag)
	}
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/subscribe", nil), http.StatusConflict)
	if ag := f.get(t, f.api, id)["agent"].(map[string]any); ag["subscribed"] != true {
		t.Fatalf("detail after subscribe: %v", ag)
	}
	if ag := f.get(t, f.bobAPI, id)["agent"].(map[string]any); ag["subscribed"] != false || ag["subscriberCount"] != float64(1) {
		t.Fatalf("owner's view: %v", ag)
	}
	ctx := context.Background()
	c := f.client("connect+proto", f.annKey)
	out, err := c.UnsubscribeStoreAgent(ctx, &switchboardv1.UnsubscribeStoreAgentRequest{Id: id})
	if err != nil || out.GetAgent().GetSubscribed() || out.GetAgent().GetSubscriberCount() != 0 {
		t.Fatalf("unsubscribe: %v %v", out, err)
	}
	_, err = c.UnsubscribeStoreAgent(ctx, &switchboardv1.UnsubscribeStoreAgentRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	servertest.WantError(t, f.api.Do(http.MethodDelete, "/api/marketplace/"+id+"/subscribe", nil), http.StatusNotFound)
	sub, err := c.SubscribeStoreAgent(ctx, &switchboardv1.SubscribeStoreAgentRequest{Id: id})
	if err != nil || !sub.GetAgent().GetSubscribed() {
		t.Fatalf("connect subscribe: %v %v", sub, err)
	}
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/cnope/subscribe", nil), http.StatusNotFound)
}

// A listing that stops being active stays reachable for those who installed
// or subscribed to it, so that they can undo it; others no longer see it.
func TestInstallersCanLeaveAnInactiveListing(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Fading"})
	id := a["id"].(string)
	f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil)
	f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/subscribe", nil)
	if _, err := f.s.DB.StoreAgent.UpdateOneID(id).SetStatus("disabled").Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ag := f.get(t, f.api, id)["agent"].(map[string]any); ag["status"] != "disabled" || ag["installed"] != true {
		t.Fatalf("installer's view: %v", ag)
	}
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil), http.StatusBadRequest)
	if res := f.api.Do(http.MethodDelete, "/api/marketplace/"+id+"/install", nil); res.Status != http.StatusOK {
		t.Fatalf("uninstall: %d %s", res.Status, res.Body)
	}
	if res := f.api.Do(http.MethodDelete, "/api/marketplace/"+id+"/subscribe", nil); res.Status != http.StatusOK {
		t.Fatalf("unsubscribe: %d %s", res.Status, res.Body)
	}
	servertest.WantError(t, f.api.Do(http.MethodGet, "/api/marketplace/"+id, nil), http.StatusNotFound)
}
