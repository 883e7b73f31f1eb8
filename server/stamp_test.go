package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/migrate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// One clock (docs/decisions.md, "Lint and one clock"): a server on a fake
// clock years from now stamps every row it writes with that clock, created
// and updated alike, and a later update with the clock's new time; no row
// anywhere carries the wall clock.
func TestRowsAreStampedByTheServerClock(t *testing.T) {
	s := servertest.New(t)
	t0 := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Clock.Advance(t0.Sub(s.Clock.Now()))
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("stamps", "queue", "kanban", "contacts", "chat", "store"))
	// create answers the id of the new row, in the answer's field named
	// answer, or at its top level when that is "".
	create := func(path, answer string, body map[string]any) string {
		t.Helper()
		res := api.Do(http.MethodPost, path, body)
		if res.Status != http.StatusCreated && res.Status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
		}
		got := res.JSON(t)
		if answer != "" {
			got, _ = got[answer].(map[string]any)
		}
		id, _ := got["id"].(string)
		if id == "" {
			t.Fatalf("POST %s answered no %s.id: %s", path, answer, res.Body)
		}
		return id
	}
	item := create("/api/v2/queue", "item", map[string]any{"title": "Stamped"})
	card := create("/api/v2/kanban", "card", map[string]any{"title": "Stamped"})
	contact := create("/api/v2/contacts", "contact", map[string]any{"name": "Stamped"})
	message := create("/api/v2/shared-chat/send", "", map[string]any{"content": "stamped"})
	listing := create("/api/marketplace", "agent", map[string]any{"name": "Stamped", "endpointUrl": "https://93.184.215.14/agent"})

	ctx := context.Background()
	type times struct{ created, updated time.Time }
	read := map[string]func() (times, error){
		"queue item": func() (times, error) {
			r, err := s.DB.QueueItem.Get(ctx, item)
			return times{r.CreatedAt, r.UpdatedAt}, err
		},
		"card": func() (times, error) {
			r, err := s.DB.Card.Get(ctx, card)
			return times{r.CreatedAt, r.UpdatedAt}, err
		},
		"contact": func() (times, error) {
			r, err := s.DB.Contact.Get(ctx, contact)
			return times{r.CreatedAt, r.UpdatedAt}, err
		},
		"listing": func() (times, error) {
			r, err := s.DB.StoreAgent.Get(ctx, listing)
			return times{r.CreatedAt, r.UpdatedAt}, err
		},
	}
	check := func(updated time.Time) {
		t.Helper()
		for what, get := range read {
			got, err := get()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !got.created.Equal(t0) || !got.updated.Equal(updated) {
				t.Errorf("%s: created %s, updated %s; want %s, %s", what, got.created, got.updated, t0, updated)
			}
		}
	}
	check(t0)
	msg, err := s.DB.ChatMessage.Get(ctx, message)
	if err != nil || !msg.CreatedAt.Equal(t0) {
		t.Errorf("chat message: created %v (%v), want %s", msg.CreatedAt, err, t0)
	}

	t1 := t0.Add(time.Hour)
	s.Clock.Advance(time.Hour)
	changed := map[string]any{"description": "changed"}
	for _, u := range []struct {
		path string
		body map[string]any
	}{
		{"/api/v2/queue/" + item, changed},
		{"/api/v2/kanban/" + card, changed},
		{"/api/v2/contacts/" + contact, map[string]any{"notes": "changed"}},
		{"/api/marketplace/" + listing, changed},
	} {
		if res := api.Do(http.MethodPut, u.path, u.body); res.Status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", u.path, res.Status, res.Body)
		}
	}
	check(t1)

	// Every time stamp in every table, the accounts' and the activity
	// log's included, is one of the clock's two readings.
	for _, tbl := range migrate.Tables {
		for _, col := range tbl.Columns {
			if col.Name != "created_at" && col.Name != "updated_at" {
				continue
			}
			rows, err := s.DB.SQL.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %s`, col.Name, tbl.Name))
			if err != nil {
				t.Fatalf("%s.%s: %v", tbl.Name, col.Name, err)
			}
			for rows.Next() {
				var at time.Time
				if err := rows.Scan(&at); err != nil {
					t.Fatalf("%s.%s: %v", tbl.Name, col.Name, err)
				}
				if !at.Equal(t0) && !at.Equal(t1) {
					t.Errorf("%s.%s = %s, not the server's clock (%s or %s)", tbl.Name, col.Name, at, t0, t1)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
}
