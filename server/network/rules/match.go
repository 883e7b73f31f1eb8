package rules

import (
	"cmp"
	"slices"
	"strings"
)

// Job matching (RULINGS "The operator network": Jobs — job_match ranks jobs
// against the operator's provider capabilities by skill and task-type
// overlap). A job's score is its best capability's: SkillWeight × the share
// of the job's required skills the capability has, plus TaskTypeWeight when
// the task types agree. A job that overlaps nothing is left out.
const (
	SkillWeight    = 0.7
	TaskTypeWeight = 0.3
)

// Offer is one provider capability as the match reads it.
type Offer struct {
	ID       string
	TaskType string
	Skills   []string
}

// Opening is one job as the match reads it.
type Opening struct {
	ID       string
	TaskType string
	Skills   []string
}

// JobMatch is how well one job fits: its best offer, the skills that offer
// shares with it (the job's spelling, in the job's order) and the score.
type JobMatch struct {
	JobID    string
	OfferID  string
	Score    float64
	Skills   []string
	TaskType bool
}

// MatchJobs scores each job against each offer and answers the jobs that
// overlap something, best first (ties: the job listed first stays first).
func MatchJobs(offers []Offer, jobs []Opening) []JobMatch {
	var out []JobMatch
	for _, j := range jobs {
		best := JobMatch{JobID: j.ID}
		for _, o := range offers {
			m := score(o, j)
			if m.Score > best.Score {
				best = m
			}
		}
		if best.Score > 0 {
			out = append(out, best)
		}
	}
	slices.SortStableFunc(out, func(a, b JobMatch) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

func score(o Offer, j Opening) JobMatch {
	have := map[string]bool{}
	for _, s := range o.Skills {
		have[fold(s)] = true
	}
	m := JobMatch{JobID: j.ID, OfferID: o.ID}
	seen := map[string]bool{}
	need := 0
	for _, s := range j.Skills {
		k := fold(s)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		need++
		if have[k] {
			m.Skills = append(m.Skills, s)
		}
	}
	if need > 0 {
		m.Score = SkillWeight * float64(len(m.Skills)) / float64(need)
	}
	if j.TaskType != "" && j.TaskType == o.TaskType {
		m.TaskType = true
		m.Score += TaskTypeWeight
	}
	return m
}

// fold is a skill's comparable form: trimmed, lower case, inner spaces one.
func fold(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
