package throughtest

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
)

// Document 2, "Capability packs (session)": a custom pack auto-installs for
// its creator; another account sees it without its prompt until installing
// it; PATCH resolves the template with the caller's values and stores
// resolvedPrompt; DELETE is a soft uninstall, and a later install restores
// the customizations.
func TestPackLifecycleOverREST(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	created := f.create(t, f.ann.Session, samplePack())
	id := created["capabilityId"].(string)
	if created["installed"] != true || created["prompt"] == nil || created["userId"] != f.ann.ID {
		t.Fatalf("creator's view: %v", created)
	}
	// recipient has no default, so nothing resolves yet.
	if created["resolvedPrompt"] != nil {
		t.Fatalf("resolvedPrompt with a variable unset: %v", created["resolvedPrompt"])
	}
	if created["integrationConnected"] != true || created["hasAccessPassword"] != false || created["accessPassword"] != nil {
		t.Fatalf("flags: %v", created)
	}

	// Bob: listed and readable, prompt hidden until installed.
	res := f.bobAPI.Do(http.MethodGet, capsPath+"/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("detail: %d %s", res.Status, res.Body)
	}
	detail := res.JSON(t)["capability"].(map[string]any)
	if detail["prompt"] != nil || detail["installed"] != false || detail["resolvedPrompt"] != nil {
		t.Fatalf("prompt shown before install: %v", detail)
	}
	if detail["editableFields"] != `[{"name":"recipient","label":"Recipient","type":"text","default":""},{"name":"tone","label":"Tone","type":"text","default":"warm"}]` {
		t.Fatalf("editableFields = %v", detail["editableFields"])
	}

	res = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id})
	if res.Status != http.StatusCreated {
		t.Fatalf("install: %d %s", res.Status, res.Body)
	}
	inst := res.JSON(t)["capability"].(map[string]any)
	if inst["installed"] != true || inst["prompt"] == nil {
		t.Fatalf("installed view: %v", inst)
	}
	if res := f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id}); res.Status != http.StatusConflict {
		t.Fatalf("second install: %d %s", res.Status, res.Body)
	}

	res = f.bobAPI.Do(http.MethodPatch, capsPath+"/"+id, map[string]any{"customizations": map[string]any{"recipient": "Grace"}})
	if res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["capability"].(map[string]any)
	want := "Write a follow-up to Grace in a warm tone. Sign as Grace's friend."
	if got["resolvedPrompt"] != want || !reflect.DeepEqual(got["customizations"], map[string]any{"recipient": "Grace"}) {
		t.Fatalf("customized: %v", got)
	}
	row, err := f.s.DB.CapabilityInstall.Query().Where(capabilityinstall.UserID(f.bob.ID), capabilityinstall.CapabilityID(id)).Only(context.Background())
	if err != nil || row.ResolvedPrompt == nil || *row.ResolvedPrompt != want {
		t.Fatalf("stored resolvedPrompt: %v %v", row, err)
	}
	// Ann's own installation is untouched by Bob's values.
	if a := f.api.Do(http.MethodGet, capsPath+"/"+id, nil).JSON(t)["capability"].(map[string]any); a["resolvedPrompt"] != nil {
		t.Fatalf("ann's view changed: %v", a)
	}

	res = f.bobAPI.Do(http.MethodDelete, capsPath+"/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	gone := res.JSON(t)["capability"].(map[string]any)
	if gone["installed"] != false || gone["prompt"] != nil || gone["resolvedPrompt"] != nil {
		t.Fatalf("after uninstall: %v", gone)
	}
	row, err = f.s.DB.CapabilityInstall.Get(context.Background(), row.ID)
	if err != nil || row.Active || row.Customizations["recipient"] != "Grace" {
		t.Fatalf("soft uninstall: %+v %v", row, err)
	}
	for _, m := range []string{http.MethodDelete, http.MethodPatch} {
		if res := f.bobAPI.Do(m, capsPath+"/"+id, map[string]any{}); res.Status != http.StatusNotFound {
			t.Fatalf("%s after uninstall: %d %s", m, res.Status, res.Body)
		}
	}
	// Reinstalling restores the customizations.
	res = f.bobAPI.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id})
	if res.Status != http.StatusCreated || res.JSON(t)["capability"].(map[string]any)["resolvedPrompt"] != want {
		t.Fatalf("reinstall: %d %s", res.Status, res.Body)
	}
}

// Document 2, "Capability packs (session)": browse filters by category,
// search and installed=true; it adds integrationConnected and
// hasAccessPassword.
func TestBrowseFilters(t *testing.T) {
	t.Parallel()
	f := newCapsFixture(t)
	a := f.create(t, f.api, samplePack())
	b := samplePack()
	b["name"], b["category"], b["integrationType"] = "Inbox Triage", "email", "email"
	b["pricingModel"], b["price"], b["accessPassword"] = "one_time", 4.99, "letmein-please"
	bID := f.create(t, f.api, b)["capabilityId"].(string)

	list := func(q string) []any {
		t.Helper()
		res := f.bobAPI.Do(http.MethodGet, capsPath+q, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("list %s: %d %s", q, res.Status, res.Body)
		}
		return res.JSON(t)["capabilities"].([]any)
	}
	all := list("")
	if len(all) != 2 || all[0].(map[string]any)["capabilityId"] != bID {
		t.Fatalf("newest first: %v", all)
	}
	first := all[0].(map[string]any)
	if first["integrationConnected"] != false || first["hasAccessPassword"] != true || first["accessPassword"] != nil || first["prompt"] != nil {
		t.Fatalf("bob's view of a paid email pack: %v", first)
	}
	if got := list("?category=writing"); len(got) != 1 || got[0].(map[string]any)["capabilityId"] != a["capabilityId"] {
		t.Fatalf("category: %v", got)
	}
	if got := list("?search=INBOX"); len(got) != 1 {
		t.Fatalf("search folds ASCII case: %v", got)
	}
	if got := list("?search=%25"); len(got) != 0 {
		t.Fatalf("%% is a plain character: %v", got)
	}
	if got := list("?installed=true"); len(got) != 0 {
		t.Fatalf("bob installed nothing: %v", got)
	}
	if res := f.api.Do(http.MethodGet, capsPath+"?installed=true&limit=1", nil).JSON(t); len(res["capabilities"].([]any)) != 1 ||
		res["pagination"].(map[string]any)["total"] != float64(2) || res["pagination"].(map[string]any)["hasMore"] != true {
		t.Fatalf("creator's installs, paged: %v", res)
	}
	// The owner sees the password value; nobody else does.
	if got := f.api.Do(http.MethodGet, capsPath+"/"+bID, nil).JSON(t)["capability"].(map[string]any); got["accessPassword"] != "letmein-please" {
		t.Fatalf("owner's view: %v", got)
	}
	if res := f.bobAPI.Do(http.MethodGet, capsPath+"?limit=-1", nil); res.Status != http.StatusBadRequest {
		t.Fatalf("negative limit: %d", res.Status)
	}
	if res := f.bobAPI.Do(http.MethodGet, capsPath+"?instaled=true", nil); res.Status != http.StatusBadRequest {
		t.Fatalf("unknown query parameter: %d", res.Status)
	}
}
