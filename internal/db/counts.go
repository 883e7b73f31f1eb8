package db

import (
	"context"
	"strings"

	"entgo.io/ent/dialect"
)

// queue_counts holds how many queue items each user has in each status, kept
// by triggers on queue_items so that every writer (the services, the store's
// review, raw SQL in a benchmark, a future path nobody remembered) keeps it
// exact in its own transaction, and a page's total is the sum of a few rows
// (docs/decisions.md, "Page totals").
//
// On PostgreSQL the triggers are deferred to the commit: a counter's row is
// then locked only while the unit commits, instead of from the item's insert
// to the end of the unit. By then a unit that changed an account's items
// holds the account's events lock (every queue change emits an event), so two
// units of one account do not take its counters in opposite orders; a status
// change takes its two rows in one order besides. On SQLite, with one
// writer, they run at once.

// countsSQL is the statements that make the triggers and recount the table,
// run in the migration's transaction after ent's tables exist (and in the
// fingerprint, so a change to them is a new schema).
func countsSQL(dia string) []string {
	recount := []string{
		`DELETE FROM queue_counts`,
		`INSERT INTO queue_counts (user_id, status, n)
			SELECT user_id, status, count(*) FROM queue_items GROUP BY user_id, status`,
	}
	if dia == dialect.Postgres {
		return append([]string{
			// No write to the queue between the recount and the triggers.
			`LOCK TABLE queue_items IN SHARE ROW EXCLUSIVE MODE`,
			`CREATE OR REPLACE FUNCTION switchboard_queue_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- A status change touches its two rows in one order whatever the
	-- direction, so that two units never take them in opposite orders.
	IF TG_OP = 'UPDATE' AND OLD.status < NEW.status THEN
		UPDATE queue_counts SET n = n - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO queue_counts (user_id, status, n) VALUES (NEW.user_id, NEW.status, 1)
			ON CONFLICT (user_id, status) DO UPDATE SET n = queue_counts.n + 1;
	END IF;
	IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.status > NEW.status) THEN
		UPDATE queue_counts SET n = n - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
	END IF;
	RETURN NULL;
END $$`,
			`DROP TRIGGER IF EXISTS queue_counts_insert ON queue_items`,
			`DROP TRIGGER IF EXISTS queue_counts_delete ON queue_items`,
			`DROP TRIGGER IF EXISTS queue_counts_update ON queue_items`,
			`CREATE CONSTRAINT TRIGGER queue_counts_insert AFTER INSERT ON queue_items
				DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION switchboard_queue_count()`,
			`CREATE CONSTRAINT TRIGGER queue_counts_delete AFTER DELETE ON queue_items
				DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION switchboard_queue_count()`,
			`CREATE CONSTRAINT TRIGGER queue_counts_update AFTER UPDATE OF status ON queue_items
				DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.status <> NEW.status)
				EXECUTE FUNCTION switchboard_queue_count()`,
		}, recount...)
	}
	inc := `INSERT INTO queue_counts (user_id, status, n) VALUES (NEW.user_id, NEW.status, 1)
		ON CONFLICT (user_id, status) DO UPDATE SET n = n + 1;`
	dec := `UPDATE queue_counts SET n = n - 1 WHERE user_id = OLD.user_id AND status = OLD.status;`
	return append([]string{
		`DROP TRIGGER IF EXISTS queue_counts_insert`,
		`DROP TRIGGER IF EXISTS queue_counts_delete`,
		`DROP TRIGGER IF EXISTS queue_counts_update`,
		`CREATE TRIGGER queue_counts_insert AFTER INSERT ON queue_items BEGIN ` + inc + ` END`,
		`CREATE TRIGGER queue_counts_delete AFTER DELETE ON queue_items BEGIN ` + dec + ` END`,
		`CREATE TRIGGER queue_counts_update AFTER UPDATE OF status ON queue_items
			WHEN OLD.status <> NEW.status BEGIN ` + dec + ` ` + inc + ` END`,
	}, recount...)
}

// countsText is the statements of both databases, for the fingerprint.
func countsText() string {
	return strings.Join(countsSQL(dialect.SQLite), ";\n") + ";\n" + strings.Join(countsSQL(dialect.Postgres), ";\n")
}

// installCounts runs countsSQL in q, the migration's transaction.
func installCounts(ctx context.Context, q dialect.ExecQuerier, dia string) error {
	for _, stmt := range countsSQL(dia) {
		if err := q.Exec(ctx, stmt, []any{}, nil); err != nil {
			return err
		}
	}
	return nil
}
