package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// RULINGS "The operator network", ambient relays: muted topic →
// topic-filter, quiet hours → quiet-hours (kept for the digest), ambient off
// → ambient-disabled, else delivered. When several hold, the order is
// ambient off, then muted topics, then quiet hours (docs/decisions.md).
func TestFilterOrder(t *testing.T) {
	t.Parallel()
	night := time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)
	day := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	quiet := QuietHours{Start: "22:00", End: "07:00", TimeZone: "UTC"}
	cases := []struct {
		name    string
		prefs   Preferences
		subject string
		now     time.Time
		want    Outcome
	}{
		{"nothing set: delivered", Preferences{AmbientEnabled: true}, "Weekly update", day, Outcome{Deliver: true}},
		{"ambient off", Preferences{}, "Weekly update", day, Outcome{Reason: ReasonAmbientDisabled}},
		{"muted topic", Preferences{AmbientEnabled: true, MutedTopics: []string{"budget"}}, "Budget for Q3", day, Outcome{Reason: ReasonTopicFilter}},
		{"another topic passes", Preferences{AmbientEnabled: true, MutedTopics: []string{"budget"}}, "Hiring plan", day, Outcome{Deliver: true}},
		{"quiet hours", Preferences{AmbientEnabled: true, QuietHours: quiet}, "Weekly update", night, Outcome{Reason: ReasonQuietHours}},
		{"outside quiet hours", Preferences{AmbientEnabled: true, QuietHours: quiet}, "Weekly update", day, Outcome{Deliver: true}},
		{"off wins over a muted topic at night", Preferences{MutedTopics: []string{"budget"}, QuietHours: quiet}, "budget", night, Outcome{Reason: ReasonAmbientDisabled}},
		{"a muted topic wins over quiet hours", Preferences{AmbientEnabled: true, MutedTopics: []string{"budget"}, QuietHours: quiet}, "budget", night, Outcome{Reason: ReasonTopicFilter}},
		{"off wins over quiet hours", Preferences{QuietHours: quiet}, "update", night, Outcome{Reason: ReasonAmbientDisabled}},
	}
	for _, tc := range cases {
		got := Filter(tc.prefs, tc.subject, tc.now)
		if got != tc.want {
			t.Errorf("%s: Filter = %+v, want %+v", tc.name, got, tc.want)
		}
		if got.Digest() != (tc.want.Reason == ReasonQuietHours) {
			t.Errorf("%s: Digest() = %v", tc.name, got.Digest())
		}
		if !got.Deliver && !FilterReasons.Has(got.Reason) {
			t.Errorf("%s: reason %q is not a relay_filter_reason", tc.name, got.Reason)
		}
	}
}

// docs/decisions.md: a muted topic matches whole words of the subject, in
// order, ignoring case and punctuation.
func TestMuted(t *testing.T) {
	t.Parallel()
	cases := []struct {
		topics  []string
		subject string
		want    bool
	}{
		{[]string{"Q3 budget"}, "Re: the q3-budget review", true},
		{[]string{"q3 budget"}, "budget for q3", false},
		{[]string{"art"}, "Start the sprint", false},
		{[]string{"art"}, "Art direction", true},
		{[]string{"crypto", "golf"}, "Golf on Friday?", true},
		{[]string{"  ", "!!"}, "anything", false},
		{nil, "anything", false},
		{[]string{"c++"}, "Hiring C++ developers", true},
	}
	for _, tc := range cases {
		if got := Muted(tc.topics, tc.subject); got != tc.want {
			t.Errorf("Muted(%q, %q) = %v, want %v", tc.topics, tc.subject, got, tc.want)
		}
	}
}

// Quiet hours on the wall clock of their zone: start included, end
// excluded, windows crossing midnight, and the same instant in and out of
// quiet hours depending on the zone.
func TestInQuietHours(t *testing.T) {
	t.Parallel()
	berlin := mustZone(t, "Europe/Berlin")
	tokyo := mustZone(t, "Asia/Tokyo")
	night := QuietHours{Start: "22:00", End: "07:00", TimeZone: "Europe/Berlin"}
	office := QuietHours{Start: "09:00", End: "17:30", TimeZone: "Asia/Tokyo"}
	cases := []struct {
		name string
		q    QuietHours
		now  time.Time
		want bool
	}{
		{"before the start", night, time.Date(2026, 7, 1, 21, 59, 0, 0, berlin), false},
		{"at the start", night, time.Date(2026, 7, 1, 22, 0, 0, 0, berlin), true},
		{"at midnight", night, time.Date(2026, 7, 2, 0, 0, 0, 0, berlin), true},
		{"just before the end", night, time.Date(2026, 7, 2, 6, 59, 59, 0, berlin), true},
		{"at the end", night, time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), false},
		{"midday", night, time.Date(2026, 7, 2, 12, 0, 0, 0, berlin), false},
		// 20:30 UTC is 22:30 in Berlin in summer (UTC+2) and 21:30 in winter (UTC+1).
		{"the zone, summer", night, time.Date(2026, 7, 1, 20, 30, 0, 0, time.UTC), true},
		{"the zone, winter", night, time.Date(2026, 1, 15, 20, 30, 0, 0, time.UTC), false},
		{"a same-day window", office, time.Date(2026, 7, 1, 9, 0, 0, 0, tokyo), true},
		{"a same-day window, after", office, time.Date(2026, 7, 1, 17, 30, 0, 0, tokyo), false},
		{"a same-day window, night", office, time.Date(2026, 7, 1, 23, 0, 0, 0, tokyo), false},
		{"an empty zone is UTC", QuietHours{Start: "00:00", End: "01:00"}, time.Date(2026, 7, 1, 0, 30, 0, 0, time.UTC), true},
		{"an empty zone is UTC, not Tokyo", QuietHours{Start: "00:00", End: "01:00"}, time.Date(2026, 7, 1, 0, 30, 0, 0, tokyo), false},
		{"a zone that no longer loads reads as UTC", QuietHours{Start: "00:00", End: "01:00", TimeZone: "Mars/Olympus"}, time.Date(2026, 7, 1, 0, 30, 0, 0, time.UTC), true},
		{"no quiet hours", QuietHours{}, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), false},
		{"equal times are no window", QuietHours{Start: "03:00", End: "03:00"}, time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC), false},
	}
	for _, tc := range cases {
		if got := InQuietHours(tc.q, tc.now); got != tc.want {
			t.Errorf("%s: InQuietHours(%+v, %v) = %v, want %v", tc.name, tc.q, tc.now, got, tc.want)
		}
	}
}

// RULINGS: quiet-hour relays are shown in a digest after quiet hours;
// QuietEnds says when.
func TestQuietEnds(t *testing.T) {
	t.Parallel()
	berlin := mustZone(t, "Europe/Berlin")
	p := Preferences{AmbientEnabled: true, QuietHours: QuietHours{Start: "22:00", End: "07:00", TimeZone: "Europe/Berlin"}}
	cases := []struct {
		name string
		now  time.Time
		want time.Time
		ok   bool
	}{
		{"before midnight: tomorrow morning", time.Date(2026, 7, 1, 23, 15, 30, 0, berlin), time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), true},
		{"after midnight: this morning", time.Date(2026, 7, 2, 3, 0, 0, 0, berlin), time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), true},
		{"at the start", time.Date(2026, 7, 1, 22, 0, 0, 0, berlin), time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), true},
		{"the last quiet minute", time.Date(2026, 7, 2, 6, 59, 59, 0, berlin), time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), true},
		{"given in another zone", time.Date(2026, 7, 1, 21, 0, 0, 0, time.UTC), time.Date(2026, 7, 2, 5, 0, 0, 0, time.UTC), true},
		{"not quiet", time.Date(2026, 7, 2, 7, 0, 0, 0, berlin), time.Time{}, false},
	}
	for _, tc := range cases {
		got, ok := QuietEnds(p, tc.now)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: QuietEnds(%v) = %v, %v; want %v, %v", tc.name, tc.now, got, ok, tc.want, tc.ok)
		}
	}
}

// Daylight saving: an end time inside the spring gap ends at the first
// moment after it; an end inside the repeated autumn hour is met twice, and
// the second pass through the window ends at its second occurrence.
func TestQuietEndsAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	gap := Preferences{QuietHours: QuietHours{Start: "22:00", End: "02:30", TimeZone: "America/New_York"}}
	// 2026-03-08 02:00 EST jumps to 03:00 EDT (07:00 UTC): 02:30 never happens.
	now := time.Date(2026, 3, 8, 6, 45, 0, 0, time.UTC) // 01:45 EST
	if got, ok := QuietEnds(gap, now); !ok || !got.Equal(time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("spring gap: QuietEnds = %v (%v), %v; want 03:00 EDT", got, got.In(ny), ok)
	}
	repeat := Preferences{QuietHours: QuietHours{Start: "22:00", End: "01:30", TimeZone: "America/New_York"}}
	// 2026-11-01 02:00 EDT falls back to 01:00 EST (06:00 UTC): 01:00–01:59 twice.
	first := time.Date(2026, 11, 1, 5, 10, 0, 0, time.UTC) // 01:10 EDT
	if got, ok := QuietEnds(repeat, first); !ok || !got.Equal(time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)) {
		t.Errorf("autumn, first pass: QuietEnds = %v (%v), %v; want 01:30 EDT", got, got.In(ny), ok)
	}
	second := time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC) // 01:10 EST
	if got, ok := QuietEnds(repeat, second); !ok || !got.Equal(time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC)) {
		t.Errorf("autumn, second pass: QuietEnds = %v (%v), %v; want 01:30 EST", got, got.In(ny), ok)
	}
}

// The preferences write path: each bad value is a 400 naming its field.
func TestValidatePreferences(t *testing.T) {
	t.Parallel()
	good := []Preferences{
		{},
		{AmbientEnabled: true, MutedTopics: []string{"budget", "Q3 plans"}},
		{QuietHours: QuietHours{Start: "22:00", End: "07:00", TimeZone: "Europe/Berlin"}},
		{QuietHours: QuietHours{Start: "00:00", End: "23:59"}},
		{QuietHours: QuietHours{Start: "09:00", End: "17:00", TimeZone: "UTC"}},
	}
	for _, p := range good {
		if err := ValidatePreferences(p); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := []struct {
		p     Preferences
		field string
	}{
		{Preferences{MutedTopics: []string{"budget", " - "}}, "mutedTopics[1]"},
		{Preferences{QuietHours: QuietHours{End: "07:00"}}, "quietHours.start"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", TimeZone: "UTC"}}, "quietHours.end"},
		{Preferences{QuietHours: QuietHours{TimeZone: "Europe/Berlin"}}, "quietHours.start"},
		{Preferences{QuietHours: QuietHours{Start: "9:00", End: "17:00"}}, "quietHours.start"},
		{Preferences{QuietHours: QuietHours{Start: "24:00", End: "07:00"}}, "quietHours.start"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", End: "07:60"}}, "quietHours.end"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", End: "7pm"}}, "quietHours.end"},
		{Preferences{QuietHours: QuietHours{Start: "22.00", End: "07:00"}}, "quietHours.start"},
		{Preferences{QuietHours: QuietHours{Start: "08:00", End: "08:00"}}, "quietHours.end"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", End: "07:00", TimeZone: "Mars/Olympus"}}, "quietHours.timeZone"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", End: "07:00", TimeZone: "Local"}}, "quietHours.timeZone"},
		{Preferences{QuietHours: QuietHours{Start: "22:00", End: "07:00", TimeZone: "../../etc/passwd"}}, "quietHours.timeZone"},
	}
	for _, tc := range bad {
		err := ValidatePreferences(tc.p)
		if apperr.From(err).Kind != apperr.KindInvalid || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%+v: %v, want a 400 starting with %s", tc.p, err, tc.field)
		}
	}
}
