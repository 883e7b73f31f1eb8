package calendar_test

import (
	"errors"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/calendar"
)

// Upsert by external id updates the account's event of that id, else
// creates one (another account's id is its own), and DeleteByExternalID
// removes it, an unknown id being no change; each write has its activity.
func TestUpsertAndDeleteByExternalID(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	ctx := t.Context()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	d.SetClock(func() time.Time { return now })
	ann := d.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("Ann").SetPasswordHash("x").SaveX(ctx).ID
	bob := d.User.Create().SetUsername("bob").SetEmail("bob@example.com").SetName("Bob").SetPasswordHash("x").SaveX(ctx).ID

	ext, room := "ext-1", "Room 4"
	name := "Carol"
	in := calendar.EventInput{Title: "Budget review", StartsAt: now.Add(time.Hour), EndsAt: now.Add(2 * time.Hour),
		Location: &room, Attendees: []calendar.Attendee{{Email: "carol@example.com", Name: &name}}, ExternalID: &ext}
	upsert := func(user string, in calendar.EventInput) (*ent.CalendarEvent, error) {
		return db.InTxValue(ctx, d, func(tx *db.Tx) (*ent.CalendarEvent, error) {
			return calendar.Upsert(ctx, tx, user, in, "webhook")
		})
	}
	first, err := upsert(ann, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Title, in.Location, in.Attendees = "Budget review (moved)", nil, nil
	in.StartsAt, in.EndsAt = now.Add(3*time.Hour), now.Add(4*time.Hour)
	second, err := upsert(ann, in)
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Title != "Budget review (moved)" || second.Location != nil ||
		len(second.Attendees) != 0 || !second.StartsAt.Equal(now.Add(3*time.Hour)) {
		t.Fatalf("second upsert = %+v, want the first event updated", second)
	}
	theirs, err := upsert(bob, in)
	if err != nil || theirs.ID == first.ID {
		t.Fatalf("bob's upsert of the same external id = %v, %v; want an event of his own", theirs, err)
	}
	noExt := in
	noExt.ExternalID = nil
	a, _ := upsert(ann, noExt)
	b, _ := upsert(ann, noExt)
	if a == nil || b == nil || a.ID == b.ID {
		t.Fatalf("without an external id each upsert creates: %v %v", a, b)
	}

	bad := in
	bad.EndsAt = bad.StartsAt.Add(-time.Minute)
	if _, err := upsert(ann, bad); !isInvalid(err) {
		t.Fatalf("endsAt before startsAt: %v, want invalid", err)
	}

	del := func(id string) error {
		return d.InTx(ctx, func(tx *db.Tx) error { return calendar.DeleteByExternalID(ctx, tx, ann, id, "webhook") })
	}
	if err := del("ext-1"); err != nil {
		t.Fatal(err)
	}
	if err := del("ext-1"); err != nil {
		t.Fatalf("deleting an unknown id: %v, want no change", err)
	}
	if n := d.CalendarEvent.Query().CountX(ctx); n != 3 {
		t.Fatalf("%d events left, want 3 (bob's and ann's two without an id)", n)
	}

	got := map[string]int{}
	for _, e := range d.ActivityEntry.Query().Where(activityentry.UserID(ann)).AllX(ctx) {
		if string(e.Category) != string(vocab.ActivityCategoryCalendar) || !e.CreatedAt.Equal(now) {
			t.Errorf("activity %s: category %s at %v", e.Action, e.Category, e.CreatedAt)
		}
		got[e.Action]++
	}
	if got["event_created"] != 3 || got["event_updated"] != 1 || got["event_deleted"] != 1 {
		t.Fatalf("ann's activity = %v", got)
	}
}

func isInvalid(err error) bool {
	var e *apperr.Error
	return errors.As(err, &e) && e.Kind == apperr.KindInvalid
}
