package rules

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Candidate is someone route_task may send a task to: an active connection
// (described by the patterns it published and what this instance learned of
// it) or one of the operator's installed store agents.
type Candidate struct {
	ID, Name string
	Kind     string // route_candidate_kind
	// Skills, TaskTypes and Categories are what the candidate says it does
	// (a connection's patterns, a store agent's listing).
	Skills, TaskTypes, Categories []string
	// CompletedRelays of AckedRelays ended completed; AckedRelays is every
	// relay (or store execution) that got an answer. MedianAckHours is the
	// median time to that answer, meaningful only when AckedRelays > 0.
	CompletedRelays, AckedRelays int
	MedianAckHours               float64
	// OpenRelays are in flight now; MaxConcurrent is the declared limit
	// (0: not declared).
	OpenRelays, MaxConcurrent int
	// TrustLevel is a connection's (TrustUntrusted, TrustKnown,
	// TrustTrusted); store agents have none.
	TrustLevel string
	// AverageRating is the mean of Ratings ratings, each 1 to 5.
	AverageRating float64
	Ratings       int
}

// Task is what the operator wants routed (route_task's arguments).
type Task struct {
	Description, TaskType, Category string
	Skills                          []string
	// MaxCandidates bounds the answer; 0 or less is DefaultMaxCandidates.
	MaxCandidates int
}

// DefaultMaxCandidates is route_task's default (document 2).
const DefaultMaxCandidates = 5

// Factors are a candidate's seven scores, each in [0, 1].
type Factors struct {
	SkillMatch      float64
	CompletionRate  float64
	Capacity        float64
	Trust           float64
	Reputation      float64
	Latency         float64
	DomainProximity float64
}

// The weights of the factors in percent (RULINGS, document 2: 30, 20, 15,
// 10, 10, 5, 10; they sum to 100).
const (
	WeightSkillMatch      = 30
	WeightCompletionRate  = 20
	WeightCapacity        = 15
	WeightTrust           = 10
	WeightReputation      = 10
	WeightLatency         = 5
	WeightDomainProximity = 10
)

// The strategy thresholds (RULINGS).
const (
	DirectScore  = 0.7  // the best scores at least this…
	DirectLead   = 0.15 // …and leads the next by at least this: direct
	AuctionFloor = 0.4  // someone reaches this: auction; no one: broadcast
)

// Neutral is the value of a factor nothing is known about: a candidate with
// no history is neither rewarded nor punished, so one with a good record
// ranks above it and one with a bad record below (TestRouteNeutralValues).
const Neutral = 0.5

// LatencyHorizonHours is the median ack time at which the latency factor
// reaches 0.
const LatencyHorizonHours = 72

// Ranked is a candidate with its factors and score.
type Ranked struct {
	Candidate
	Factors Factors
	Score   float64
}

// Route is route_task's answer: the advice and the ranked candidates.
type Route struct {
	Strategy   string // route_strategy
	Reason     string // the advice in words
	Candidates []Ranked
}

// RouteTask scores every candidate, ranks them (score descending, then id
// ascending so equal scores always come out in the same order), advises a
// strategy on the whole field and answers the first MaxCandidates. Scores
// are rounded to six decimals so the thresholds compare as written (a score
// of exactly 0.7 is direct, not 0.6999…).
func RouteTask(t Task, cs []Candidate) Route {
	taskSkills := normalized(t.Skills)
	if len(taskSkills) == 0 {
		// route_task's skills are optional: the description says what it needs.
		taskSkills = Keywords(t.Description)
	}
	ranked := make([]Ranked, 0, len(cs))
	for _, c := range cs {
		f := Factors{
			SkillMatch:      skillMatch(taskSkills, c.Skills),
			CompletionRate:  completionRate(c),
			Capacity:        capacity(c),
			Trust:           trust(c),
			Reputation:      reputation(c),
			Latency:         latency(c),
			DomainProximity: domainProximity(t, c),
		}
		ranked = append(ranked, Ranked{Candidate: c, Factors: f, Score: f.Score()})
	}
	slices.SortStableFunc(ranked, func(a, b Ranked) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
	r := advise(ranked)
	n := t.MaxCandidates
	if n <= 0 {
		n = DefaultMaxCandidates
	}
	r.Candidates = ranked[:min(n, len(ranked))]
	return r
}

// Score is the weighted sum of the factors, rounded to six decimals.
func (f Factors) Score() float64 {
	sum := WeightSkillMatch*f.SkillMatch + WeightCompletionRate*f.CompletionRate +
		WeightCapacity*f.Capacity + WeightTrust*f.Trust + WeightReputation*f.Reputation +
		WeightLatency*f.Latency + WeightDomainProximity*f.DomainProximity
	return round6(sum / 100)
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// advise picks the strategy (TestRouteStrategyEdges). With no candidates no
// one reaches the floor, so it is broadcast, to nobody: the reason says so.
// A single candidate leads an absent second by its whole score.
func advise(ranked []Ranked) Route {
	if len(ranked) == 0 {
		return Route{Strategy: StrategyBroadcast, Reason: "no candidates: no active connection or installed store agent to route to"}
	}
	best := ranked[0]
	second := 0.0
	if len(ranked) > 1 {
		second = ranked[1].Score
	}
	lead := round6(best.Score - second)
	switch {
	case best.Score >= DirectScore && lead >= DirectLead:
		return Route{Strategy: StrategyDirect, Reason: fmt.Sprintf(
			"%s scores %.2f and leads the next by %.2f: send it to them directly", best.Name, best.Score, lead)}
	case best.Score < AuctionFloor:
		return Route{Strategy: StrategyBroadcast, Reason: fmt.Sprintf(
			"no candidate scores %.1f or more (the best, %s, scores %.2f): send it to all of them", AuctionFloor, best.Name, best.Score)}
	}
	return Route{Strategy: StrategyAuction, Reason: fmt.Sprintf(
		"%s leads with %.2f but not clearly: let the candidates bid", best.Name, best.Score)}
}

// skillMatch is the Jaccard index of the task's and the candidate's skills
// (case and surrounding space ignored). A task that names no skills and
// whose description has no keywords gives nothing to compare: Neutral. A
// candidate with no skills shares none: 0.
func skillMatch(task []string, cand []string) float64 {
	if len(task) == 0 {
		return Neutral
	}
	a, b := set(task), set(normalized(cand))
	inter := 0
	for s := range a {
		if b[s] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}

// completionRate is completed / acked; Neutral with no acked relay.
func completionRate(c Candidate) float64 {
	if c.AckedRelays <= 0 {
		return Neutral
	}
	return clamp(float64(c.CompletedRelays) / float64(c.AckedRelays))
}

// capacity is 1 − open / maxConcurrent, clamped (over the limit is 0);
// Neutral when no limit is declared.
func capacity(c Candidate) float64 {
	if c.MaxConcurrent <= 0 {
		return Neutral
	}
	return clamp(1 - float64(c.OpenRelays)/float64(c.MaxConcurrent))
}

// trust is a connection's level: untrusted 0, known (the default, also
// when empty) 0.5, trusted 1, an unrecognised level 0 (fail closed). A store
// agent has no trust level; the operator chose to install it, which is
// worth known's 0.5 and no more.
func trust(c Candidate) float64 {
	if c.Kind == CandidateStoreAgent {
		return Neutral
	}
	switch c.TrustLevel {
	case TrustTrusted:
		return 1
	case TrustKnown, "":
		return 0.5
	}
	return 0
}

// reputation is the average rating / 5; Neutral without ratings.
func reputation(c Candidate) float64 {
	if c.Ratings <= 0 {
		return Neutral
	}
	return clamp(c.AverageRating / 5)
}

// latency is 1 − median hours to ack / 72, floored at 0; Neutral with no
// acked relay to time.
func latency(c Candidate) float64 {
	if c.AckedRelays <= 0 {
		return Neutral
	}
	return clamp(1 - c.MedianAckHours/LatencyHorizonHours)
}

// domainProximity is 1 when the candidate does the task's type, 0.5 when it
// works in the task's category, else 0; Neutral for a task that names
// neither.
func domainProximity(t Task, c Candidate) float64 {
	tt, cat := norm(t.TaskType), norm(t.Category)
	switch {
	case tt == "" && cat == "":
		return Neutral
	case tt != "" && slices.Contains(normalized(c.TaskTypes), tt):
		return 1
	case cat != "" && slices.Contains(normalized(c.Categories), cat):
		return 0.5
	}
	return 0
}

// clamp bounds x to [0, 1]; NaN (a median of nothing) is 0.
func clamp(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(1, max(0, x))
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// normalized answers the non-empty values, normalized.
func normalized(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if v = norm(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func set(vs []string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}
