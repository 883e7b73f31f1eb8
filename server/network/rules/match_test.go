package rules

import (
	"math"
	"slices"
	"testing"
)

// TestMatchJobs: RULINGS "The operator network: connections and relays"
// (Jobs: job_match ranks jobs against the provider capabilities by skill
// and task-type overlap).
func TestMatchJobs(t *testing.T) {
	t.Parallel()
	goDev := Offer{ID: "c1", TaskType: "technical", Skills: []string{"Go", "PostgreSQL"}}
	writer := Offer{ID: "c2", TaskType: "creative", Skills: []string{"copywriting"}}
	type want struct {
		job, offer string
		score      float64
		skills     []string
		taskType   bool
	}
	cases := []struct {
		name   string
		offers []Offer
		jobs   []Opening
		want   []want
	}{
		{"no offers match nothing", nil, []Opening{{ID: "j1", TaskType: "technical", Skills: []string{"go"}}}, nil},
		{"full skills and task type", []Offer{goDev}, []Opening{{ID: "j1", TaskType: "technical", Skills: []string{"go", " postgresql "}}},
			[]want{{"j1", "c1", 1, []string{"go", " postgresql "}, true}}},
		{"half the skills, other task type", []Offer{goDev}, []Opening{{ID: "j1", TaskType: "research", Skills: []string{"GO", "Rust"}}},
			[]want{{"j1", "c1", 0.35, []string{"GO"}, false}}},
		{"task type alone", []Offer{writer}, []Opening{{ID: "j1", TaskType: "creative"}},
			[]want{{"j1", "c2", 0.3, nil, true}}},
		{"no overlap is left out", []Offer{goDev}, []Opening{{ID: "j1", TaskType: "legal", Skills: []string{"contracts"}}}, nil},
		{"repeated job skills count once", []Offer{goDev}, []Opening{{ID: "j1", TaskType: "legal", Skills: []string{"go", "Go", "rust"}}},
			[]want{{"j1", "c1", 0.35, []string{"go"}, false}}},
		{"the best offer wins and ranks the jobs", []Offer{writer, goDev}, []Opening{
			{ID: "weak", TaskType: "creative", Skills: []string{"go", "rust", "k8s"}},
			{ID: "strong", TaskType: "technical", Skills: []string{"go", "postgresql"}},
			{ID: "none", TaskType: "hr"},
		}, []want{{"strong", "c1", 1, []string{"go", "postgresql"}, true}, {"weak", "c2", 0.3, nil, true}}},
		{"ties keep the listed order", []Offer{writer}, []Opening{{ID: "a", TaskType: "creative"}, {ID: "b", TaskType: "creative"}},
			[]want{{"a", "c2", 0.3, nil, true}, {"b", "c2", 0.3, nil, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := MatchJobs(c.offers, c.jobs)
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i, w := range c.want {
				g := got[i]
				if g.JobID != w.job || g.OfferID != w.offer || math.Abs(g.Score-w.score) > 1e-9 ||
					!slices.Equal(g.Skills, w.skills) || g.TaskType != w.taskType {
					t.Errorf("%d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
