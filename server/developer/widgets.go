package developer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The AgentWidgetData types, in the order a conversation meets them
// (vocabulary.proto).
var widgetOrder = vocab.Values("widget_type")

// categoryWidgets are the types each self-registration category calls for.
var categoryWidgets = map[string][]string{
	"music":   {"info_card", "choice_card"},
	"design":  {"info_card", "choice_card"},
	"writing": {"info_card", "action_list"},
	"code":    {"info_card", "action_list"},
	"data":    {"info_card", "action_list"},
	"general": {"info_card"},
}

// widgetGuide is what each type is for, why, and how to answer it.
var widgetGuide = map[string]struct{ reason, example, hint string }{
	"info_card": {
		"results read better as a titled card than as a wall of text",
		`{"type":"info_card","title":"Summary","items":[{"id":"1","label":"Key finding","actions":[]}]}`,
		"answer a widget object beside output with type info_card, a title and one item per result",
	},
	"choice_card": {
		"creative work usually offers variations the requester picks from",
		`{"type":"choice_card","title":"Pick a variation","layout":"grid","items":[{"id":"a","label":"Variation A","actions":["select"]}]}`,
		"return each variation as an item with a select action; the choice comes back as a widget response",
	},
	"action_list": {
		"work the requester reviews (drafts, patches, findings) needs approve and revise steps",
		`{"type":"action_list","title":"Next steps","items":[{"id":"1","label":"Apply the patch","actions":["approve","decline"]}]}`,
		"list each proposed step as an item with approve and decline actions",
	},
	"payment_prompt": {
		"a paid agent must let the requester see and approve the price",
		`{"type":"payment_prompt","title":"Approve $5.00","items":[{"id":"quote","label":"$5.00 per task","actions":["approve","decline"]}]}`,
		"for a quoted price answer a price_quote; the store shows the payment_prompt",
	},
}

// recommendedWidgets are the types an agent of category and pricing model
// should declare, in conversation order.
func recommendedWidgets(category, pricingModel string) []string {
	want := slices.Clone(categoryWidgets[category])
	if len(want) == 0 {
		want = []string{"info_card"}
	}
	if pricingModel != "" && pricingModel != "free" {
		want = append(want, "payment_prompt")
	}
	return ordered(want)
}

func ordered(types []string) []string {
	out := make([]string, 0, len(types))
	for _, t := range widgetOrder {
		if slices.Contains(types, t) {
			out = append(out, t)
		}
	}
	return out
}

// analyzeWidgets scores the declared types against the recommended ones:
// the share of recommended types declared, 0 to 100.
func analyzeWidgets(declared []string, category, pricingModel string) *switchboardv1.WidgetAnalysis {
	rec := recommendedWidgets(category, pricingModel)
	var missing []string
	for _, t := range rec {
		if !slices.Contains(declared, t) {
			missing = append(missing, t)
		}
	}
	score := int32(math.Round(100 * float64(len(rec)-len(missing)) / float64(len(rec))))
	return &switchboardv1.WidgetAnalysis{
		ComplianceScore: score, DeclaredTypes: nonNil(ordered(declared)), RecommendedTypes: rec, MissingTypes: nonNil(missing),
	}
}

// recommendWidgets is the widgetRecommendations answer (developer.proto).
func recommendWidgets(declared []string, category, pricingModel string) *switchboardv1.WidgetRecommendations {
	a := analyzeWidgets(declared, category, pricingModel)
	out := &switchboardv1.WidgetRecommendations{
		DeclaredTypes: a.DeclaredTypes, RecommendedTypes: a.RecommendedTypes,
		WidgetOpportunities: []*switchboardv1.WidgetOpportunity{}, CurrentGaps: []string{},
		SuggestedFlow: strings.Join(a.RecommendedTypes, " -> "),
	}
	for i, t := range a.MissingTypes {
		g := widgetGuide[t]
		impact := "medium"
		if t == "payment_prompt" || i == 0 {
			impact = "high"
		}
		out.WidgetOpportunities = append(out.WidgetOpportunities, &switchboardv1.WidgetOpportunity{
			Type: t, Reason: g.reason, Impact: impact, Example: g.example, ImplementationHint: g.hint,
		})
		out.CurrentGaps = append(out.CurrentGaps, fmt.Sprintf("%s is not declared: %s", t, g.reason))
	}
	if len(a.MissingTypes) == 0 {
		out.Summary = fmt.Sprintf("All %d recommended widget types are declared (score %d).", len(a.RecommendedTypes), a.ComplianceScore)
	} else {
		out.Summary = fmt.Sprintf("%d of %d recommended widget types are declared (score %d); add %s.",
			len(a.RecommendedTypes)-len(a.MissingTypes), len(a.RecommendedTypes), a.ComplianceScore, strings.Join(a.MissingTypes, ", "))
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
