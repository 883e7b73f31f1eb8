package rules

import (
	"slices"
	"time"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Preferences are the recipient's relay preferences that decide ambient
// relays (RULINGS: GET|PUT /api/federation/preferences).
type Preferences struct {
	MutedTopics    []string
	QuietHours     QuietHours
	AmbientEnabled bool
}

// QuietHours is a daily window, "HH:MM" to "HH:MM" (24-hour, end excluded)
// in an IANA time zone ("" is UTC). Start after end crosses midnight
// (22:00–07:00). All three empty: no quiet hours.
type QuietHours struct {
	Start, End, TimeZone string
}

// Set reports whether any quiet hours are configured.
func (q QuietHours) Set() bool { return q != QuietHours{} }

// Outcome is what the preferences do with an ambient relay: Deliver it as a
// comms message, or hold it back for Reason (relay_filter_reason).
// Quiet-hours relays are kept for the digest (Outcome.Digest); the others
// are only answered.
type Outcome struct {
	Deliver bool
	Reason  string
}

// Digest reports whether the relay is kept for the digest after quiet hours.
func (o Outcome) Digest() bool { return o.Reason == ReasonQuietHours }

// Filter decides an ambient relay with this subject arriving at now. The
// checks run in this order (TestFilterOrder): ambient off first, since it
// silences everything and keeps nothing; then muted topics, so a muted
// subject is dropped even at night rather than kept for the morning digest;
// then quiet hours. Preferences are validated when written
// (ValidatePreferences); a stored zone that no longer loads is read as UTC
// so the window still holds.
func Filter(p Preferences, subject string, now time.Time) Outcome {
	switch {
	case !p.AmbientEnabled:
		return Outcome{Reason: ReasonAmbientDisabled}
	case Muted(p.MutedTopics, subject):
		return Outcome{Reason: ReasonTopicFilter}
	case InQuietHours(p.QuietHours, now):
		return Outcome{Reason: ReasonQuietHours}
	}
	return Outcome{Deliver: true}
}

// Muted reports whether subject matches a muted topic: the topic's words
// appear in the subject's words, next to each other and in order, ignoring
// case and punctuation ("Q3 budget" mutes "Re: the q3-budget review"; "art"
// does not mute "start"). A topic without words mutes nothing.
func Muted(topics []string, subject string) bool {
	words := Words(subject)
	for _, t := range topics {
		tw := Words(t)
		if len(tw) == 0 {
			continue
		}
		for i := 0; i+len(tw) <= len(words); i++ {
			if slices.Equal(words[i:i+len(tw)], tw) {
				return true
			}
		}
	}
	return false
}

// InQuietHours reports whether now falls in the window, read on the wall
// clock of its zone.
func InQuietHours(q QuietHours, now time.Time) bool {
	w, ok := parseWindow(q)
	return ok && w.quiet(now)
}

// QuietEnds answers when the quiet hours holding now end, the moment the
// digest of the relays kept meanwhile is due: the first minute whose wall
// clock is outside the window; false when now is not in quiet hours. It
// walks minute by minute rather than building the end with time.Date, which
// puts a wall time in a daylight-saving gap before the gap and picks the
// first of a repeated hour (TestQuietEndsAcrossDaylightSaving).
func QuietEnds(p Preferences, now time.Time) (time.Time, bool) {
	w, ok := parseWindow(p.QuietHours)
	if !ok || !w.quiet(now) {
		return time.Time{}, false
	}
	// Zone offsets are whole minutes, so minutes of absolute time are
	// minutes of the wall clock; a window is shorter than a day plus the
	// hour a daylight-saving change adds.
	t := now.Truncate(time.Minute)
	for range 2 * 24 * 60 {
		t = t.Add(time.Minute)
		if !w.quiet(t) {
			return t, true
		}
	}
	return time.Time{}, false
}

type window struct {
	start, end int // minutes after midnight
	loc        *time.Location
}

func (w window) quiet(now time.Time) bool {
	local := now.In(w.loc)
	t := local.Hour()*60 + local.Minute()
	if w.start < w.end {
		return t >= w.start && t < w.end
	}
	return t >= w.start || t < w.end
}

func parseWindow(q QuietHours) (window, bool) {
	start, okS := clock(q.Start)
	end, okE := clock(q.End)
	if !okS || !okE || start == end {
		return window{}, false
	}
	loc, err := time.LoadLocation(q.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return window{start, end, loc}, true
}

// clock reads "HH:MM", two digits each, 00:00 to 23:59.
func clock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	d := func(i int) (int, bool) { return int(s[i] - '0'), s[i] >= '0' && s[i] <= '9' }
	h1, ok1 := d(0)
	h2, ok2 := d(1)
	m1, ok3 := d(3)
	m2, ok4 := d(4)
	h, m := h1*10+h2, m1*10+m2
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// ValidatePreferences checks what the preferences write path cannot leave
// to the contract's field rules: the quiet hours' clock times and time zone,
// and muted topics that could never match. Each refusal is a 400 naming its
// field (TestValidatePreferences).
func ValidatePreferences(p Preferences) error {
	for i, t := range p.MutedTopics {
		if len(Words(t)) == 0 {
			return apperr.Invalid("mutedTopics[%d] has no words to match: give a topic such as \"budget\"", i)
		}
	}
	q := p.QuietHours
	if !q.Set() {
		return nil
	}
	for _, f := range []struct{ name, value string }{{"start", q.Start}, {"end", q.End}} {
		if f.value == "" {
			return apperr.Invalid("quietHours.%s is required when quiet hours are set (\"HH:MM\", 24-hour)", f.name)
		}
		if _, ok := clock(f.value); !ok {
			return apperr.Invalid("quietHours.%s %q is not a time of day: write \"HH:MM\", 24-hour, such as \"22:00\"", f.name, f.value)
		}
	}
	if q.Start == q.End {
		return apperr.Invalid("quietHours.end %q equals quietHours.start: a window needs two different times (to silence everything, turn ambient relays off)", q.End)
	}
	// "Local" loads too, but means this server's zone, not one the operator named.
	if _, err := time.LoadLocation(q.TimeZone); err != nil || q.TimeZone == "Local" {
		return apperr.Invalid("quietHours.timeZone %q is not an IANA time zone such as \"Europe/Berlin\"", q.TimeZone)
	}
	return nil
}
