package admin

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The pure half of the agent activity: counting a period's runs. No storage.

// Run is one execution as the tally reads it.
type Run struct {
	AgentID string
	// Status is the execution's (vocabulary execution_status).
	Status string
	// RunOrigin and TaskOrigin are the execution's columns; Origin reads them.
	RunOrigin, TaskOrigin string
	At                    time.Time
	// DurationMs is the response time; nil when it has none (still running,
	// or it ended without an answer).
	DurationMs *int
	// RevenueCents is what its captured payment brought; 0 when none.
	RevenueCents int64
}

// Origin is how a run started (vocabulary run_origin): its run_origin,
// except that a run of another instance's task made before the column
// existed (stored local, task origin federation) is federated.
func Origin(runOrigin, taskOrigin string) string {
	if runOrigin == string(vocab.RunOriginLocal) && taskOrigin == string(vocab.TaskOriginFederation) {
		return string(vocab.RunOriginFederated)
	}
	return runOrigin
}

// Since is where a period of days ends its look back: 00:00 UTC of the
// first of its days, today (the day of now, in UTC) being the last.
func Since(now time.Time, days int) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d-(days-1), 0, 0, 0, 0, time.UTC)
}

// AgentTally is one agent's runs in the period.
type AgentTally struct {
	AgentID                                string
	Executions, Completed, Failed, Timeout int
	AvgDurationMs                          int
	RevenueCents                           int64
	durations, timed                       int // the sum and count behind the mean
}

// DayTally is one day's runs by outcome.
type DayTally struct {
	// Date is YYYY-MM-DD.
	Date string
	// Pending: still queued or running.
	Completed, Failed, Timeout, Pending int
}

// Summary is a period's runs counted.
type Summary struct {
	// Agents with runs, most runs first (then by id; the caller orders
	// equals by name).
	Agents []AgentTally
	// Origins counts the runs per origin, every origin present.
	Origins map[string]int
	// Days is every day of the period, oldest first.
	Days []DayTally
	// Runs is how many runs the period holds.
	Runs int
}

// Tally counts runs in the period of days ending on now's day. Runs
// outside it (the caller reads from Since) are left out.
func Tally(runs []Run, now time.Time, days int) Summary {
	since := Since(now, days)
	out := Summary{Origins: map[string]int{}, Days: make([]DayTally, days)}
	for _, o := range vocab.Values("run_origin") {
		out.Origins[o] = 0
	}
	for i := range out.Days {
		out.Days[i].Date = since.AddDate(0, 0, i).Format(time.DateOnly)
	}
	per := map[string]*AgentTally{}
	for _, r := range runs {
		day := int(r.At.UTC().Sub(since).Hours() / 24)
		if r.At.Before(since) || day >= days {
			continue
		}
		out.Runs++
		out.Origins[Origin(r.RunOrigin, r.TaskOrigin)]++
		a := per[r.AgentID]
		if a == nil {
			a = &AgentTally{AgentID: r.AgentID}
			per[r.AgentID] = a
		}
		a.Executions++
		a.RevenueCents += r.RevenueCents
		if r.DurationMs != nil {
			a.durations += *r.DurationMs
			a.timed++
		}
		d := &out.Days[day]
		switch r.Status {
		case string(vocab.ExecutionStatusCompleted):
			a.Completed++
			d.Completed++
		case string(vocab.ExecutionStatusFailed):
			a.Failed++
			d.Failed++
		case string(vocab.ExecutionStatusTimeout):
			a.Timeout++
			d.Timeout++
		default:
			d.Pending++
		}
	}
	for _, a := range per {
		if a.timed > 0 {
			a.AvgDurationMs = int(math.Round(float64(a.durations) / float64(a.timed)))
		}
		out.Agents = append(out.Agents, *a)
	}
	slices.SortFunc(out.Agents, func(x, y AgentTally) int {
		return cmp.Or(cmp.Compare(y.Executions, x.Executions), cmp.Compare(x.AgentID, y.AgentID))
	})
	return out
}
