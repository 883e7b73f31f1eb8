package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
)

// A version is a change ent's auto-migration cannot make: it runs once per
// database, in one transaction with the row that records it in
// schema_migrations, before ent migrates the rest (docs/architecture.md,
// "Schema versions"). up must leave the tables as ent would create them and
// do nothing to a table that is already so (a fresh database, or one ent
// created after the change).
type version struct {
	id   int
	name string
	up   func(ctx context.Context, tx *sql.Tx, dia string) error
}

var versions = []version{
	{1, "money in cents", moneyToCents},
}

// VersionNames lists the schema versions this build applies, in order (tests
// name their template databases by them and by ent's schema).
func VersionNames() []string {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = fmt.Sprintf("%d %s", v.id, v.name)
	}
	return names
}

// versionsLock names the PostgreSQL advisory lock that keeps replicas
// starting together from applying a version twice.
const versionsLock = "switchboard schema_migrations"

func migrateVersions(ctx context.Context, sqlDB *sql.DB, dia string) error {
	for _, v := range versions {
		if err := applyVersion(ctx, sqlDB, dia, v); err != nil {
			return fmt.Errorf("version %d (%s): %w", v.id, v.name, err)
		}
	}
	return nil
}

// applyVersion runs v unless it is recorded. On SQLite it runs with foreign
// keys off on its own connection, since rebuilding a table drops the old one
// (which would cascade to its children) and foreign_keys cannot change inside
// a transaction; foreign_key_check confirms nothing dangles before the commit.
func applyVersion(ctx context.Context, sqlDB *sql.DB, dia string, v version) (err error) {
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dia == dialect.SQLite {
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
			return err
		}
		defer func() {
			if _, onErr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON"); onErr != nil && err == nil {
				err = onErr
			}
		}()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	done, err := recorded(ctx, tx, dia, v.id)
	if err != nil || done {
		if err == nil {
			err = tx.Commit()
		}
		return err
	}
	if err := v.up(ctx, tx, dia); err != nil {
		return err
	}
	if err := checkForeignKeys(ctx, tx, dia); err != nil {
		return err
	}
	q := "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"
	if dia == dialect.Postgres {
		q = "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)"
	}
	if _, err := tx.ExecContext(ctx, q, v.id, v.name, time.Now().UTC()); err != nil { // not business time: a record of the migration itself
		return err
	}
	return tx.Commit()
}

// recorded makes schema_migrations when missing and says whether version id
// is in it, under the advisory lock on PostgreSQL.
func recorded(ctx context.Context, tx *sql.Tx, dia string, id int) (bool, error) {
	q := "SELECT count(*) FROM schema_migrations WHERE version = ?"
	if dia == dialect.Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", versionsLock); err != nil {
			return false, err
		}
		q = "SELECT count(*) FROM schema_migrations WHERE version = $1"
	}
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamp NOT NULL)`)
	if err != nil {
		return false, err
	}
	var n int
	err = tx.QueryRowContext(ctx, q, id).Scan(&n)
	return n > 0, err
}

func checkForeignKeys(ctx context.Context, tx *sql.Tx, dia string) error {
	if dia != dialect.SQLite {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		return fmt.Errorf("a foreign key dangles after the change")
	}
	return rows.Err()
}
