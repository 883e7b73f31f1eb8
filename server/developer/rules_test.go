package developer

import (
	"reflect"
	"testing"
)

// TestRecommendWidgets pins widget compliance scoring (document 2,
// "Developer self-registration", flow step 4): the score is the share of the
// recommended types declared, paid agents are told about payment_prompt, and
// the answer's lists are never null.
func TestRecommendWidgets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		declared          []string
		category, pricing string
		score             int32
		recommended       []string
		missing           []string
	}{
		{[]string{"info_card"}, "general", "free", 100, []string{"info_card"}, []string{}},
		{[]string{"info_card"}, "writing", "free", 50, []string{"info_card", "action_list"}, []string{"action_list"}},
		{[]string{"choice_card"}, "music", "per_task", 33, []string{"info_card", "choice_card", "payment_prompt"}, []string{"info_card", "payment_prompt"}},
		{nil, "design", "subscription", 0, []string{"info_card", "choice_card", "payment_prompt"}, []string{"info_card", "choice_card", "payment_prompt"}},
	} {
		a := analyzeWidgets(c.declared, c.category, c.pricing)
		if a.ComplianceScore != c.score || !reflect.DeepEqual(a.RecommendedTypes, c.recommended) || !reflect.DeepEqual(a.MissingTypes, c.missing) {
			t.Errorf("%v %s %s: %v", c.declared, c.category, c.pricing, a)
		}
		r := recommendWidgets(c.declared, c.category, c.pricing)
		if len(r.WidgetOpportunities) != len(c.missing) || len(r.CurrentGaps) != len(c.missing) || r.Summary == "" || r.DeclaredTypes == nil {
			t.Errorf("recommendations for %v: %v", c.declared, r)
		}
		for _, o := range r.WidgetOpportunities {
			if o.Reason == "" || o.Example == "" || o.ImplementationHint == "" || (o.Type == "payment_prompt" && o.Impact != "high") {
				t.Errorf("opportunity %v", o)
			}
		}
	}
}
