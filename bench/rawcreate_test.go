package main

import (
	"context"
	"maps"
	"net/http"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent/migrate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The create baseline is fair only if it writes what a create writes: the
// same number of rows in every table, counted from the database (issue 34).
// So does the in-process create the bench runs (tx-creator): the server's
// create over REST is the reference. The gate's rate counter is left out: it
// is written before the handler, and the tx-creator counts every create with
// the gate's own statement in each of its modes (gate.CountSQL).
func TestRawCreateWritesWhatACreateWrites(t *testing.T) {
	ctx := context.Background()
	s := servertest.New(t)
	acct := s.SignUp("bench")
	c := s.WithKey(acct.NewKey("bench"))
	written := func(d *db.DB, create func()) map[string]int {
		before := rowCounts(t, d)
		create()
		out := map[string]int{}
		for name, n := range rowCounts(t, d) {
			if n != before[name] && name != "rate_counts" {
				out[name] = n - before[name]
			}
		}
		return out
	}
	c.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "warm"}) // the key's first use writes once
	api := written(s.DB, func() {
		servertest.WantStatus(t, c.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "api"}), http.StatusCreated)
	})
	for _, locked := range []bool{false, s.DB.Dialect == dialect.Postgres} {
		raw := written(s.DB, func() {
			if err := rawCreate(ctx, s.DB.SQL, acct.ID, "raw", locked); err != nil {
				t.Fatal(err)
			}
		})
		if !maps.Equal(api, raw) || api["stream_events"] == 0 {
			t.Fatalf("rows written by a create %v, by the raw baseline (locked %v) %v", api, locked, raw)
		}
	}

	d := dbtest.Open(t)
	svc, closeBus, err := createService(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeBus)
	u, err := d.User.Create().SetUsername("bench").SetEmail("bench@example.com").SetName("Bench").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Setting.Create().SetUserID(u.ID).Save(ctx); err != nil { // sign-up makes it
		t.Fatal(err)
	}
	pctx := asBench(ctx, u.ID)
	// As over REST, a warm create first: an account's first item in a status
	// adds its counter's row (queue_counts), later ones update it.
	if _, err := svc.CreateQueueItem(pctx, &switchboardv1.CreateQueueItemRequest{Title: "warm"}); err != nil {
		t.Fatal(err)
	}
	inProcess := written(d, func() {
		if _, err := svc.CreateQueueItem(pctx, &switchboardv1.CreateQueueItemRequest{Title: "in process"}); err != nil {
			t.Fatal(err)
		}
	})
	if !maps.Equal(api, inProcess) {
		t.Fatalf("rows written by a create over REST %v, in process %v", api, inProcess)
	}
}

func rowCounts(t *testing.T, d *db.DB) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, tb := range migrate.Tables {
		var n int
		if err := d.SQL.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM "`+tb.Name+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		m[tb.Name] = n
	}
	return m
}
