package capgate

import "testing"

// Document 1, "Queue": "Capability gate before any item is created: a
// handler must exist among (1) installed store agents with matching task
// types, (2) active user capabilities for the domain, (3) built-in agent
// capabilities (email, meetings, custom)." Tried in that order.
func TestCheck(t *testing.T) {
	t.Parallel()
	inv := Inventory{
		Agents: []Agent{
			{ID: "a1", Name: "Scout", TaskTypes: []string{"research", "Email"}},
			{ID: "a2", Name: "Coder", TaskTypes: []string{"coding"}},
		},
		Capabilities: []Capability{
			{ID: "c1", Name: "CRM notes", Category: "notes", IntegrationType: "crm"},
			{ID: "c2", Name: "Writer", Category: "writing"},
		},
	}
	cases := []struct {
		taskType, kind, id string
	}{
		{"research", KindStoreAgent, "a1"},
		{" CODING ", KindStoreAgent, "a2"},
		{"email", KindStoreAgent, "a1"}, // an installed agent comes before the built-in
		{"crm", KindCapability, "c1"},
		{"notes", KindCapability, "c1"},
		{"writing", KindCapability, "c2"},
		{"meetings", KindBuiltin, "builtin_meetings"},
		{"calendar", KindBuiltin, "builtin_meetings"},
		{"custom", KindBuiltin, "builtin_custom"},
		{"legal", "", ""},
		{"", "", ""},
		{"   ", "", ""},
	}
	for _, tc := range cases {
		h, ok := Check(inv, tc.taskType)
		if ok != (tc.kind != "") || h.Kind != tc.kind || h.ID != tc.id {
			t.Errorf("Check(%q) = %+v %v, want %s %s", tc.taskType, h, ok, tc.kind, tc.id)
		}
	}
	if h, ok := Check(Inventory{}, "email"); !ok || h.ID != "builtin_email" || h.Name != "Email" {
		t.Fatalf("an empty inventory still has the built-ins: %+v %v", h, ok)
	}
	// A capability without integration or category matches nothing by "".
	if _, ok := Check(Inventory{Capabilities: []Capability{{ID: "c"}}}, "x"); ok {
		t.Fatal("an empty domain matched")
	}
}
