package db_test

import (
	"slices"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// Issue 14, "Federation platform routes": a database written when an
// execution's listing was required and deleting the listing deleted its
// executions opens with executions.agent_id nullable and its foreign key
// ON DELETE SET NULL, as a fresh one. Ent's auto-migration makes both
// changes (on SQLite by rebuilding the table), so no schema version does;
// deleting a listing then unlinks its executions and keeps their payments'
// ledger entries.
func TestUnlinkMigrationKeepsExecutions(t *testing.T) {
	_, migrated := openFixture(t)
	fresh := dbtest.Open(t)
	if got, want := describe(t, migrated, "executions"), describe(t, fresh, "executions"); !slices.Equal(got, want) {
		t.Errorf("executions differs from a fresh database:\nmigrated %q\nfresh    %q", got, want)
	}
	for _, d := range []*db.DB{migrated, fresh} {
		if got := agentForeignKey(t, d); got != "SET NULL" {
			t.Errorf("%s: executions' foreign key to store_agents on delete: %q", d.Dialect, got)
		}
	}
	ctx := t.Context()
	c := migrated.Client
	if _, err := c.StoreAgent.Delete().Where().Exec(ctx); err != nil {
		t.Fatalf("delete the listings: %v", err)
	}
	rows, err := c.Execution.Query().Order(execution.ByID()).All(ctx)
	if err != nil || len(rows) != 3 {
		t.Fatalf("executions after their listings went: %d %v", len(rows), err)
	}
	for _, ex := range rows {
		if ex.AgentID != nil {
			t.Errorf("%s still names listing %q", ex.ID, *ex.AgentID)
		}
	}
	if captured, err := c.Execution.Get(ctx, "fx_ex_captured"); err != nil || captured.Gross == nil || *captured.Gross != 250 {
		t.Errorf("captured execution: %+v %v", captured, err)
	}
	if n, err := c.LedgerEntry.Query().Count(ctx); err != nil || n != 4 {
		t.Errorf("ledger entries: %d %v", n, err)
	}
	if n, err := c.PaymentHold.Query().Count(ctx); err != nil || n != 2 {
		t.Errorf("payment holds: %d %v", n, err)
	}
}

// agentForeignKey answers the ON DELETE action of executions' foreign key
// to store_agents.
func agentForeignKey(t *testing.T, d *db.DB) string {
	t.Helper()
	q := "SELECT on_delete FROM pragma_foreign_key_list('executions') WHERE \"table\" = 'store_agents'"
	if d.Dialect == dialect.Postgres {
		q = `SELECT delete_rule FROM information_schema.referential_constraints
			WHERE constraint_schema = current_schema() AND constraint_name = 'executions_store_agents_executions'`
	}
	var rule string
	if err := d.SQL.QueryRowContext(t.Context(), q).Scan(&rule); err != nil {
		t.Fatal(err)
	}
	return rule
}
