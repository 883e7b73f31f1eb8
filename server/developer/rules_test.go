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

// TestJudge pins the conformance verdict of an answer (document 2,
// "Execution contract": the agent answers the task in its format).
func TestJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format string
		status int
		body   string
		ok     bool
	}{
		{"text", 200, `{"output":"done"}`, true},
		{"text", 200, `plain words`, true},
		{"json", 201, `{"result":{"a":1}}`, true},
		{"json", 200, `{}`, false},
		{"text", 200, ``, false},
		{"text", 500, `{"output":"x"}`, false},
		{"text", 302, ``, false},
		{"a2a", 200, `{"jsonrpc":"2.0","id":"1","result":{"status":{"state":"completed"}}}`, true},
		{"a2a", 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32601}}`, false},
		{"a2a", 200, `{"output":"x"}`, false},
	} {
		v := judge(c.format, c.status, []byte(c.body))
		if v.Conforms != c.ok || (v.Conforms == (v.Hint != "")) {
			t.Errorf("%s %d %q: %+v", c.format, c.status, c.body, v)
		}
	}
}
