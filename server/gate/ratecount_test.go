package gate

import (
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// The counters in the database keep httprate's sliding window: the previous
// window weighs in by the share of it the sliding minute still covers, the
// rate is rounded to whole requests, and a refused request is not counted.
// Windows are whole minutes of the server's clock.
func TestSlidingWindowInTheDatabase(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	start := time.Now().UTC().Truncate(window).Add(window)
	now := start
	l := limiter{c: newCounters(d, func() time.Time { return now }), limit: 4}
	take := func(what string, wantOK bool, wantRemaining int) {
		t.Helper()
		v, err := l.take(t.Context(), "key:k")
		if err != nil {
			t.Fatal(err)
		}
		if v.ok != wantOK || (wantOK && v.remaining != wantRemaining) || v.limit != 4 {
			t.Fatalf("%s: ok %v remaining %d, want %v %d", what, v.ok, v.remaining, wantOK, wantRemaining)
		}
		if want := now.Truncate(window).Add(window); !v.reset.Equal(want) {
			t.Fatalf("%s: reset %s, want %s", what, v.reset, want)
		}
	}
	for i := range 4 {
		take("within the limit", true, 3-i)
	}
	take("over the limit", false, 0)
	take("over the limit again", false, 0)
	if v, _ := (limiter{c: l.c, limit: 4}).take(t.Context(), "key:other"); !v.ok {
		t.Fatal("another counter is not affected")
	}

	// Three quarters into the next window the previous one weighs a
	// quarter: 4 × 0.25 = 1 request, so three more pass. The refusals above
	// were not counted: the previous window holds 4, not 6.
	now = start.Add(window + 3*window/4)
	take("the previous window weighs a quarter", true, 2)
	take("", true, 1)
	take("", true, 0)
	take("full again", false, 0)

	// A quarter into the window after: the previous (3 requests) weighs
	// three quarters, 2.25, rounded to 2.
	now = start.Add(2*window + window/4)
	take("", true, 1)
	take("", true, 0)
	take("full", false, 0)

	// Two windows on nothing weighs.
	now = start.Add(4 * window)
	take("a fresh window", true, 3)
}

// The cost of one counted request: one upsert (run with
// SWITCHBOARD_TEST_POSTGRES set for PostgreSQL's).
func BenchmarkTake(b *testing.B) {
	d := dbtest.Open(b)
	now := time.Now().UTC()
	l := limiter{c: newCounters(d, func() time.Time { return now }), limit: 1 << 30}
	for b.Loop() {
		if _, err := l.take(b.Context(), "key:bench"); err != nil {
			b.Fatal(err)
		}
	}
}
