package store

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Document 2 "Store agent status": endpoint, auth method and pricing model
// changes are breaking; the rest apply at once.
func TestBreaking(t *testing.T) {
	all := []string{"name", "slug", "description", "endpointUrl", "developerName", "category", "pricingModel",
		"pricePerTask", "currency", "pricingConfig", "installGuide", "commands", "taskTypes", "contextInstructions",
		"supportsA2A", "supportsMCP", "accessPassword", "inputFormat", "outputFormat", "authMethod", "authCredential",
		"healthCheckUrl", "declaredWidgetTypes", "availability", "executionTimeout", "requiredInputSchema",
		"outputSchema", "usageExamples", "contextPreparation", "executionNotes", "version"}
	if got := Breaking(all); !slices.Equal(got, []string{"endpointUrl", "pricingModel", "authMethod"}) {
		t.Fatalf("Breaking(all) = %v", got)
	}
	if got := Breaking([]string{"description", "declaredWidgetTypes", "usageExamples"}); got != nil {
		t.Fatalf("description, widget types and samples are breaking: %v", got)
	}
}

// RULINGS "Store, federation, MCP, A2A": under review a breaking change
// sends a listed agent back to review; zero-gate approves at once.
func TestStatusAfterChange(t *testing.T) {
	for _, tc := range []struct {
		policy   ReviewPolicy
		from     string
		breaking bool
		want     string
	}{
		{ZeroGate, StatusActive, true, StatusActive},
		{ZeroGate, StatusActive, false, StatusActive},
		{ZeroGate, StatusRejected, true, StatusRejected},
		{Review, StatusActive, true, StatusPendingReview},
		{Review, StatusActive, false, StatusActive},
		{Review, StatusRejected, true, StatusPendingReview},
		{Review, StatusRejected, false, StatusRejected},
		{Review, StatusPendingReview, true, StatusPendingReview},
		{Review, StatusPending, true, StatusPending},
		{Review, StatusDisabled, true, StatusDisabled},
		{Review, StatusSuspended, true, StatusSuspended},
	} {
		if got := tc.policy.StatusAfterChange(tc.from, tc.breaking); got != tc.want {
			t.Errorf("%s: %s breaking=%v → %s, want %s", tc.policy, tc.from, tc.breaking, got, tc.want)
		}
	}
	if ZeroGate.InitialStatus() != StatusActive || Review.InitialStatus() != StatusPendingReview {
		t.Fatal("initial statuses")
	}
	for in, want := range map[string]ReviewPolicy{"": ZeroGate, "zero-gate": ZeroGate, "review": Review} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q %v", in, got, err)
		}
	}
	if _, err := ParsePolicy("Review"); err == nil {
		t.Error("ParsePolicy accepted Review")
	}
}

func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		from     string
		breaking bool
		want     string
	}{
		{"1.0.0", false, "1.0.1"}, {"1.0.0", true, "2.0.0"}, {"1.4.9", false, "1.4.10"},
		{"2.3.4-beta.1", false, "2.3.5"}, {"0.9.0", true, "1.0.0"},
	} {
		if got := bumpVersion(tc.from, tc.breaking); got != tc.want {
			t.Errorf("bumpVersion(%s, %v) = %s, want %s", tc.from, tc.breaking, got, tc.want)
		}
	}
	for _, ok := range []string{"1.0.0", "0.0.1", "10.20.30", "1.0.0-rc.1"} {
		if err := checkVersion(ok); err != nil {
			t.Errorf("checkVersion(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1", "1.0", "v1.0.0", "1.0.0.0", "01.0.0", "one", "1.0.0+build"} {
		if checkVersion(bad) == nil {
			t.Errorf("checkVersion(%q) accepted", bad)
		}
	}
	if compareVersions("1.10.0", "1.9.0") <= 0 || compareVersions("1.0.0", "1.0.0-rc.1") <= 0 {
		t.Error("compareVersions is not semver order")
	}
}

func TestSlugs(t *testing.T) {
	for name, want := range map[string]string{
		"Research Scout":      "research-scout",
		"  Émile's  Agent v2": "mile-s-agent-v2",
		"ALL--CAPS__here":     "all-caps-here",
		"!!":                  "",
		"x":                   "x",
	} {
		if got := slugFrom(name); got != want {
			t.Errorf("slugFrom(%q) = %q, want %q", name, got, want)
		}
	}
	long := slugFrom(strings.Repeat("abcdefg ", 9)) // cut at 64, which ends in "-"
	if len(long) != 63 || checkSlug(long) != nil {
		t.Errorf("long slug %q", long)
	}
	for _, ok := range []string{"ab", "a1", "research-scout", "v2-agent"} {
		if err := checkSlug(ok); err != nil {
			t.Errorf("checkSlug(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a", "-ab", "ab-", "a--b", "Ab", "a_b", "a b", "ab\x00"} {
		if checkSlug(bad) == nil {
			t.Errorf("checkSlug(%q) accepted", bad)
		}
	}
}

// Document 2 "Agent configuration layers": layer 1 is written only by the
// owner (every layer-1 field is a StoreAgentInput field), and no request
// message of the store carries a layer-2 or layer-3 field (those belong to
// executions, set per task and by the platform).
func TestLayersHaveOneWriter(t *testing.T) {
	in := (&switchboardv1.StoreAgentInput{}).ProtoReflect().Descriptor().Fields()
	for _, f := range Layer1 {
		if in.ByJSONName(f) == nil {
			t.Errorf("layer-1 field %s is not owner-writable", f)
		}
	}
	for _, f := range append(slices.Clone(Layer2), Layer3...) {
		if in.ByJSONName(f) != nil {
			t.Errorf("layer-2/3 field %s is writable on the listing", f)
		}
	}
	for origin, want := range map[string]string{"owner": FullAccess, "marketplace": OutputOnly, "federation": OutputOnly, "": OutputOnly} {
		if got := IsolationFor(origin); got != want {
			t.Errorf("IsolationFor(%q) = %s", origin, got)
		}
	}
}

// Document 2 "Store agent listing": up to 8 memory entries, one for an
// empty kit.
func TestDecompose(t *testing.T) {
	s := func(v string) *string { return &v }
	bare := &ent.StoreAgent{Name: "Bare", Slug: "bare", InputFormat: "text"}
	if got := Decompose(bare); len(got) != 1 || got[0].Kind != "overview" {
		t.Fatalf("bare = %v", got)
	}
	full := &ent.StoreAgent{Name: "Full", Slug: "full", InputFormat: "json", Description: s("d"), TaskTypes: []string{"a", "b"},
		ContextInstructions: s("ci"), RequiredInputSchema: s("{}"), OutputSchema: s("{}"), UsageExamples: s("ue"),
		ContextPreparation: s("cp"), ExecutionNotes: s("en"), InstallGuide: s("not part of memory")}
	got := Decompose(full)
	if len(got) != MaxMemoryEntries {
		t.Fatalf("full = %d entries", len(got))
	}
	// Blank parts write nothing.
	full.UsageExamples = s("   ")
	if n := len(Decompose(full)); n != MaxMemoryEntries-1 {
		t.Fatalf("blank usage examples: %d entries", n)
	}
}
