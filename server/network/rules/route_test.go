package rules

import (
	"fmt"
	"strings"
	"testing"
)

// RULINGS "The operator network", route_task: each factor in [0, 1] as the
// ruling defines it, the neutral value where nothing is known
// (docs/decisions.md "The operator network"), and every candidate carrying
// its factors.
func TestRouteFactors(t *testing.T) {
	t.Parallel()
	known := Candidate{ID: "c", Name: "C", Kind: CandidateConnection, TrustLevel: TrustKnown}
	with := func(f func(*Candidate)) Candidate { c := known; f(&c); return c }
	cases := []struct {
		name   string
		task   Task
		cand   Candidate
		factor func(Factors) float64
		want   float64
	}{
		// skill match: Jaccard, case and space ignored
		{"skills: Jaccard", Task{Skills: []string{"go", "sql"}}, with(func(c *Candidate) { c.Skills = []string{" Go", "rust"} }), skill, 1.0 / 3},
		{"skills: identical", Task{Skills: []string{"go", "sql"}}, with(func(c *Candidate) { c.Skills = []string{"SQL", "go"} }), skill, 1},
		{"skills: candidate has none", Task{Skills: []string{"go"}}, known, skill, 0},
		{"skills: from the description when none given", Task{Description: "Review the Go parser"}, with(func(c *Candidate) { c.Skills = []string{"go", "review"} }), skill, 2.0 / 3},
		{"skills: nothing to compare is neutral", Task{Description: "the and of"}, with(func(c *Candidate) { c.Skills = []string{"go"} }), skill, Neutral},
		// completion rate: completed / acked
		{"completion: 3 of 4", Task{}, with(func(c *Candidate) { c.CompletedRelays, c.AckedRelays = 3, 4 }), completion, 0.75},
		{"completion: none acked is neutral", Task{}, known, completion, Neutral},
		{"completion: clamped at 1", Task{}, with(func(c *Candidate) { c.CompletedRelays, c.AckedRelays = 5, 4 }), completion, 1},
		// capacity: 1 − open / maxConcurrent, clamped
		{"capacity: 1 of 4 open", Task{}, with(func(c *Candidate) { c.OpenRelays, c.MaxConcurrent = 1, 4 }), capacityF, 0.75},
		{"capacity: over the limit is 0", Task{}, with(func(c *Candidate) { c.OpenRelays, c.MaxConcurrent = 6, 4 }), capacityF, 0},
		{"capacity: idle is 1", Task{}, with(func(c *Candidate) { c.MaxConcurrent = 3 }), capacityF, 1},
		{"capacity: no limit declared is neutral", Task{}, with(func(c *Candidate) { c.OpenRelays = 2 }), capacityF, Neutral},
		// trust: untrusted 0, known 0.5, trusted 1
		{"trust: untrusted", Task{}, with(func(c *Candidate) { c.TrustLevel = TrustUntrusted }), trustF, 0},
		{"trust: known", Task{}, known, trustF, 0.5},
		{"trust: empty is the default, known", Task{}, with(func(c *Candidate) { c.TrustLevel = "" }), trustF, 0.5},
		{"trust: trusted", Task{}, with(func(c *Candidate) { c.TrustLevel = TrustTrusted }), trustF, 1},
		{"trust: an unknown level fails closed", Task{}, with(func(c *Candidate) { c.TrustLevel = "friend" }), trustF, 0},
		{"trust: a store agent is neutral", Task{}, with(func(c *Candidate) { c.Kind, c.TrustLevel = CandidateStoreAgent, TrustTrusted }), trustF, Neutral},
		// reputation: average rating / 5
		{"reputation: 4.5", Task{}, with(func(c *Candidate) { c.AverageRating, c.Ratings = 4.5, 2 }), reputationF, 0.9},
		{"reputation: no ratings is neutral", Task{}, with(func(c *Candidate) { c.AverageRating = 5 }), reputationF, Neutral},
		{"reputation: clamped at 1", Task{}, with(func(c *Candidate) { c.AverageRating, c.Ratings = 7, 1 }), reputationF, 1},
		// latency: 1 − median hours / 72, floored at 0
		{"latency: 18 hours", Task{}, with(func(c *Candidate) { c.AckedRelays, c.MedianAckHours = 1, 18 }), latencyF, 0.75},
		{"latency: at once", Task{}, with(func(c *Candidate) { c.AckedRelays = 1 }), latencyF, 1},
		{"latency: 72 hours is 0", Task{}, with(func(c *Candidate) { c.AckedRelays, c.MedianAckHours = 1, 72 }), latencyF, 0},
		{"latency: floored at 0", Task{}, with(func(c *Candidate) { c.AckedRelays, c.MedianAckHours = 1, 200 }), latencyF, 0},
		{"latency: no acks is neutral", Task{}, with(func(c *Candidate) { c.MedianAckHours = 1 }), latencyF, Neutral},
		// domain proximity: same type 1, same category 0.5, else 0
		{"domain: same task type", Task{TaskType: "Review", Category: "technical"}, with(func(c *Candidate) { c.TaskTypes = []string{"review"} }), domain, 1},
		{"domain: same category", Task{TaskType: "review", Category: "technical"}, with(func(c *Candidate) { c.TaskTypes, c.Categories = []string{"research"}, []string{"Technical"} }), domain, 0.5},
		{"domain: neither", Task{TaskType: "review", Category: "technical"}, with(func(c *Candidate) { c.TaskTypes, c.Categories = []string{"legal"}, []string{"legal"} }), domain, 0},
		{"domain: a task without type or category is neutral", Task{}, with(func(c *Candidate) { c.TaskTypes = []string{"legal"} }), domain, Neutral},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := RouteTask(tc.task, []Candidate{tc.cand})
			if len(r.Candidates) != 1 {
				t.Fatalf("candidates = %d, want 1", len(r.Candidates))
			}
			got := r.Candidates[0]
			if v := tc.factor(got.Factors); !near(v, tc.want) {
				t.Errorf("factor = %v, want %v (all factors %+v)", v, tc.want, got.Factors)
			}
			if got.Score != got.Factors.Score() || got.ID != tc.cand.ID {
				t.Errorf("candidate %q carries score %v, its factors give %v", got.ID, got.Score, got.Factors.Score())
			}
		})
	}
}

func skill(f Factors) float64       { return f.SkillMatch }
func completion(f Factors) float64  { return f.CompletionRate }
func capacityF(f Factors) float64   { return f.Capacity }
func trustF(f Factors) float64      { return f.Trust }
func reputationF(f Factors) float64 { return f.Reputation }
func latencyF(f Factors) float64    { return f.Latency }
func domain(f Factors) float64      { return f.DomainProximity }

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// RULINGS: the score is the weighted sum 30/20/15/10/10/5/10; each factor
// alone at 1 gives its weight.
func TestRouteWeights(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f    Factors
		want float64
	}{
		{Factors{SkillMatch: 1}, 0.30},
		{Factors{CompletionRate: 1}, 0.20},
		{Factors{Capacity: 1}, 0.15},
		{Factors{Trust: 1}, 0.10},
		{Factors{Reputation: 1}, 0.10},
		{Factors{Latency: 1}, 0.05},
		{Factors{DomainProximity: 1}, 0.10},
		{Factors{1, 1, 1, 1, 1, 1, 1}, 1},
		{Factors{}, 0},
		{Factors{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, 0.5},
	}
	for _, tc := range cases {
		if got := tc.f.Score(); got != tc.want {
			t.Errorf("%+v.Score() = %v, want %v", tc.f, got, tc.want)
		}
	}
}

// RULINGS: direct when the best is at least 0.7 and leads the next by at
// least 0.15; broadcast when none reaches 0.4; else auction. Every edge
// exactly, and just beside it.
func TestRouteStrategyEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		scores []float64
		want   string
	}{
		{nil, StrategyBroadcast},
		{[]float64{0.7}, StrategyDirect},            // alone: leads by its whole score
		{[]float64{0.7, 0.55}, StrategyDirect},      // 0.7 exactly, lead 0.15 exactly
		{[]float64{0.699999, 0.1}, StrategyAuction}, // just under 0.7
		{[]float64{0.7, 0.550001}, StrategyAuction}, // lead just under 0.15
		{[]float64{0.95, 0.8, 0.1}, StrategyDirect}, // lead 0.15 between higher scores
		{[]float64{0.9, 0.9}, StrategyAuction},      // a tie leads by nothing
		{[]float64{0.4}, StrategyAuction},           // 0.4 exactly reaches the floor
		{[]float64{0.4, 0.39}, StrategyAuction},
		{[]float64{0.399999, 0.2}, StrategyBroadcast}, // none reaches 0.4
		{[]float64{0.69, 0.1}, StrategyAuction},
	}
	for _, tc := range cases {
		ranked := make([]Ranked, len(tc.scores))
		for i, s := range tc.scores {
			ranked[i] = Ranked{Candidate: Candidate{ID: fmt.Sprint(i), Name: fmt.Sprint("c", i)}, Score: s}
		}
		r := advise(ranked)
		if r.Strategy != tc.want || r.Reason == "" {
			t.Errorf("scores %v: strategy %q (%s), want %q", tc.scores, r.Strategy, r.Reason, tc.want)
		}
	}
}

// The same edges reached through real factors: the weighted sum of floats
// lands exactly on 0.7, 0.55 and 0.4 (scores are rounded to six decimals,
// so 0.7 is not 0.69999…).
func TestRouteTaskExactEdges(t *testing.T) {
	t.Parallel()
	task := Task{Skills: []string{"go"}, TaskType: "review"}
	// skill 1 (30) + completion 1 (20) + capacity 1 (15) + known 0.5 (5) = 0.70;
	// rated 0, ack time 72 h and another task type add nothing.
	seventy := Candidate{ID: "b", Name: "B", Kind: CandidateConnection, TrustLevel: TrustKnown,
		Skills: []string{"go"}, CompletedRelays: 4, AckedRelays: 4, MedianAckHours: 72,
		MaxConcurrent: 2, Ratings: 1, TaskTypes: []string{"legal"}}
	// the same with no capacity left: 0.55, a lead of exactly 0.15.
	fiftyFive := seventy
	fiftyFive.ID, fiftyFive.Name, fiftyFive.OpenRelays = "c", "C", 2
	// 0.56: latency 0.2 adds 0.01; the lead falls to 0.14.
	fiftySix := fiftyFive
	fiftySix.ID, fiftySix.Name, fiftySix.MedianAckHours = "d", "D", 57.6
	// skill 1 (30) + known 0.5 (5) + latency 1 (5) = 0.40 exactly.
	forty := Candidate{ID: "e", Name: "E", Kind: CandidateConnection, TrustLevel: TrustKnown,
		Skills: []string{"go"}, AckedRelays: 3, MaxConcurrent: 1, OpenRelays: 1, Ratings: 2}
	below := forty
	below.ID, below.Name, below.TrustLevel = "f", "F", TrustUntrusted // 0.35

	cases := []struct {
		name   string
		cands  []Candidate
		scores []float64
		want   string
	}{
		{"0.7 leading by 0.15 is direct", []Candidate{fiftyFive, seventy}, []float64{0.7, 0.55}, StrategyDirect},
		{"a lead of 0.14 is an auction", []Candidate{seventy, fiftySix}, []float64{0.7, 0.56}, StrategyAuction},
		{"0.4 exactly is an auction", []Candidate{below, forty}, []float64{0.4, 0.35}, StrategyAuction},
		{"under 0.4 is broadcast", []Candidate{below}, []float64{0.35}, StrategyBroadcast},
		{"no candidates is broadcast to nobody", nil, nil, StrategyBroadcast},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := RouteTask(task, tc.cands)
			if r.Strategy != tc.want {
				t.Errorf("strategy = %q (%s), want %q", r.Strategy, r.Reason, tc.want)
			}
			if len(r.Candidates) != len(tc.scores) {
				t.Fatalf("candidates = %d, want %d", len(r.Candidates), len(tc.scores))
			}
			for i, s := range tc.scores {
				if r.Candidates[i].Score != s {
					t.Errorf("candidate %d (%s) scores %v, want exactly %v (%+v)", i, r.Candidates[i].ID, r.Candidates[i].Score, s, r.Candidates[i].Factors)
				}
			}
		})
	}
}

// Ranking: score descending, equal scores by id whatever the input order;
// MaxCandidates bounds the answer (default 5) but the strategy is advised
// on every candidate.
func TestRouteOrderAndLimit(t *testing.T) {
	t.Parallel()
	mk := func(id string, trust string) Candidate {
		return Candidate{ID: id, Name: strings.ToUpper(id), Kind: CandidateConnection, TrustLevel: trust}
	}
	in := []Candidate{mk("g", TrustKnown), mk("b", TrustKnown), mk("t", TrustTrusted), mk("a", TrustKnown),
		mk("u", TrustUntrusted), mk("c", TrustKnown), mk("f", TrustKnown)}
	r := RouteTask(Task{}, in)
	var ids []string
	for _, c := range r.Candidates {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); got != "t,a,b,c,f" {
		t.Errorf("order = %s, want t,a,b,c,f (trusted first, ties by id, 5 by default)", got)
	}
	if r := RouteTask(Task{MaxCandidates: 2}, in); len(r.Candidates) != 2 || r.Candidates[1].ID != "a" {
		t.Errorf("MaxCandidates 2: %+v", r.Candidates)
	}
	if r := RouteTask(Task{MaxCandidates: 50}, in); len(r.Candidates) != len(in) {
		t.Errorf("MaxCandidates 50: %d candidates, want %d", len(r.Candidates), len(in))
	}
	// One candidate answered, but the runner-up (cut off) still decides:
	// 0.55 and 0.5 is no clear lead.
	if r := RouteTask(Task{MaxCandidates: 1}, in); r.Strategy != StrategyAuction || len(r.Candidates) != 1 {
		t.Errorf("MaxCandidates 1: strategy %q with %d candidates, want auction with 1", r.Strategy, len(r.Candidates))
	}
}

// docs/decisions.md "The operator network": a candidate nothing is known
// about scores 0.5 on every factor, so a good record ranks above it and a
// bad one below.
func TestRouteNeutralValues(t *testing.T) {
	t.Parallel()
	unknown := Candidate{ID: "n", Name: "New", Kind: CandidateConnection}
	good := Candidate{ID: "g", Name: "Good", Kind: CandidateConnection, CompletedRelays: 9, AckedRelays: 10,
		MedianAckHours: 2, AverageRating: 4.8, Ratings: 5}
	bad := Candidate{ID: "b", Name: "Bad", Kind: CandidateConnection, CompletedRelays: 1, AckedRelays: 10,
		MedianAckHours: 60, AverageRating: 1.5, Ratings: 4}
	agent := Candidate{ID: "s", Name: "Agent", Kind: CandidateStoreAgent}
	// A task naming no skills, type or category: nothing to compare either.
	r := RouteTask(Task{}, []Candidate{bad, unknown, good, agent})
	want := Factors{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	var order []string
	for _, c := range r.Candidates {
		order = append(order, c.ID)
		if (c.ID == "n" || c.ID == "s") && (c.Factors != want || c.Score != 0.5) {
			t.Errorf("%s: factors %+v score %v, want all neutral and 0.5", c.ID, c.Factors, c.Score)
		}
	}
	if got := strings.Join(order, ","); got != "g,n,s,b" {
		t.Errorf("order = %s, want g,n,s,b", got)
	}
}
