package db

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	atlas "ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"

	"github.com/switchboard-hq/switchboard/ent"
)

// A migrated database records which schema it carries: the fingerprint of
// this build's schema (ent's DDL and the schema versions), in the one row of
// switchboard_schema, written by the migration that made it so. A replica
// that does not migrate (serve --migrate=false) is ready when the row matches
// its own build (docs/decisions.md, "Replicas and operations").

// SchemaTable is the table that records the schema's fingerprint; the test
// databases' recycling keeps it, as it keeps schema_migrations.
const SchemaTable = "switchboard_schema"

// migrateLock names the PostgreSQL advisory lock held, on a connection of
// its own, around a whole migration.
const migrateLock = "switchboard migrate"

// Fingerprint hashes the DDL ent would run on an empty database and the
// schema versions: any change to the schema changes it.
var Fingerprint = sync.OnceValues(func() (string, error) {
	sqlDB, err := sql.Open("sqlite3", "file:fingerprint?mode=memory&_fk=1")
	if err != nil {
		return "", err
	}
	defer sqlDB.Close()
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, sqlDB)))
	var ddl bytes.Buffer
	if err := client.Schema.WriteTo(context.Background(), &ddl); err != nil {
		return "", fmt.Errorf("db: schema fingerprint: %w", err)
	}
	// The schema versions run before ent's migration: a new one is a new
	// schema even when ent's is unchanged.
	for _, v := range VersionNames() {
		ddl.WriteString("\n-- version " + v)
	}
	// Likewise the tables PostgreSQL keeps unlogged, which ent's DDL omits.
	for _, t := range Unlogged {
		ddl.WriteString("\n-- unlogged " + t)
	}
	// And the triggers that keep queue_counts.
	ddl.WriteString("\n-- counts\n" + countsText())
	sum := sha256.Sum256(ddl.Bytes())
	return hex.EncodeToString(sum[:]), nil
})

// ErrSchemaNotCurrent says the database does not carry this build's schema.
var ErrSchemaNotCurrent = errors.New("the database schema is not this build's")

// SchemaStatus answers nil when the database answers and carries this
// build's schema; an error wrapping ErrSchemaNotCurrent when it answers with
// another schema (or none); any other error when it does not answer.
func (d *DB) SchemaStatus(ctx context.Context) error {
	want, err := Fingerprint()
	if err != nil {
		return err
	}
	if err := d.SQL.PingContext(ctx); err != nil {
		return fmt.Errorf("the database does not answer: %w", err)
	}
	got, err := recordedFingerprint(ctx, d.SQL, d.Dialect)
	switch {
	case err != nil:
		return fmt.Errorf("the database does not answer: %w", err)
	case got == "":
		return fmt.Errorf("%w: it has never been migrated by switchboard migrate or serve", ErrSchemaNotCurrent)
	case got != want:
		return fmt.Errorf("%w: it carries schema %.12s, this build needs %.12s", ErrSchemaNotCurrent, got, want)
	}
	return nil
}

// queryer is a *sql.DB, *sql.Conn or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// recordedFingerprint is the recorded fingerprint, "" when the database has
// none (no table, or no row).
func recordedFingerprint(ctx context.Context, q queryer, dia string) (string, error) {
	exists := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + SchemaTable + "'"
	if dia == dialect.Postgres {
		exists = "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = '" + SchemaTable + "'"
	}
	rows, err := q.QueryContext(ctx, exists)
	if err != nil {
		return "", err
	}
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
	}
	if err := rows.Close(); err != nil || n == 0 {
		return "", err
	}
	rows, err = q.QueryContext(ctx, "SELECT fingerprint FROM "+SchemaTable+" WHERE id = 1")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var fp string
	for rows.Next() {
		if err := rows.Scan(&fp); err != nil {
			return "", err
		}
	}
	return fp, rows.Err()
}

// createSchemaTable makes the fingerprint's table when missing.
const createSchemaTable = `CREATE TABLE IF NOT EXISTS ` + SchemaTable + ` (
	id integer PRIMARY KEY, fingerprint text NOT NULL, migrated_at timestamp NOT NULL)`

// recordFingerprint writes this build's fingerprint in q (ent's migration
// transaction, so that it commits with the DDL that made the schema so).
func recordFingerprint(ctx context.Context, q dialect.ExecQuerier, dia string, fp string) error {
	stmt := "INSERT INTO " + SchemaTable + " (id, fingerprint, migrated_at) VALUES (1, ?, ?) " +
		"ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, migrated_at = excluded.migrated_at"
	if dia == dialect.Postgres {
		stmt = "INSERT INTO " + SchemaTable + " (id, fingerprint, migrated_at) VALUES (1, $1, $2) " +
			"ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, migrated_at = excluded.migrated_at"
	}
	return q.Exec(ctx, stmt, []any{fp, time.Now().UTC()}, nil)
}

// Migrate applies this build's schema unless the database already carries
// it, and answers whether it changed anything. Concurrent migrations of one
// database (replicas starting together, two `switchboard migrate`) migrate
// once: on PostgreSQL the whole migration runs under a session advisory lock
// held on a connection of its own, and a migrator that waited finds the
// fingerprint recorded; on SQLite ent applies its changes in an IMMEDIATE
// transaction (the file's writer lock), in which the fingerprint is read
// again, so a migrator that inspected before another committed applies
// nothing.
func (d *DB) Migrate(ctx context.Context) (bool, error) {
	migrated, err := migrate(ctx, d.Client, d.SQL, d.Dialect)
	if err != nil {
		return false, fmt.Errorf("db: migrate %s schema: %w", d.Dialect, err)
	}
	return migrated, nil
}

// migrate applies the schema, then makes the Unlogged tables so (which
// checks before it alters, so a current schema costs a query per table).
func migrate(ctx context.Context, client *ent.Client, sqlDB *sql.DB, dia string) (bool, error) {
	migrated, err := migrateSchema(ctx, client, sqlDB, dia)
	if err != nil {
		return false, err
	}
	return migrated, unlog(ctx, sqlDB, dia)
}

// migrateSchema applies the schema versions ent cannot (versions.go), then
// ent's auto-migration, then records the fingerprint.
func migrateSchema(ctx context.Context, client *ent.Client, sqlDB *sql.DB, dia string) (bool, error) {
	// ent's migration shares state between clients and is not safe to run
	// concurrently in one process (parallel tests do).
	migrateMu.Lock()
	defer migrateMu.Unlock()
	fp, err := Fingerprint()
	if err != nil {
		return false, err
	}
	if dia == dialect.Postgres {
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			return false, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext($1))", migrateLock); err != nil {
			return false, err
		}
		// The lock ends with its session; unlocking first keeps the
		// connection usable when the pool keeps it.
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext($1))", migrateLock) //nolint:errcheck // the lock ends with the connection anyway
	}
	if got, err := recordedFingerprint(ctx, sqlDB, dia); err != nil {
		return false, err
	} else if got == fp {
		return false, nil
	}
	if err := migrateVersions(ctx, sqlDB, dia); err != nil {
		return false, err
	}
	// The fingerprint table exists before ent's transaction reads it.
	if _, err := sqlDB.ExecContext(ctx, createSchemaTable); err != nil {
		return false, err
	}
	applied, skipped := false, false
	hook := schema.WithApplyHook(func(next schema.Applier) schema.Applier {
		return schema.ApplyFunc(func(ctx context.Context, conn dialect.ExecQuerier, plan *atlas.Plan) error {
			// ent inspected before this transaction began: under its lock,
			// a migrator that committed meanwhile has left its fingerprint.
			var rows entsql.Rows
			if err := conn.Query(ctx, "SELECT fingerprint FROM "+SchemaTable+" WHERE id = 1", []any{}, &rows); err != nil {
				return err
			}
			var got string
			for rows.Next() {
				if err := rows.Scan(&got); err != nil {
					rows.Close()
					return err
				}
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if got == fp {
				skipped = true
				return nil
			}
			if err := next.Apply(ctx, conn, plan); err != nil {
				return err
			}
			if err := installCounts(ctx, conn, dia); err != nil {
				return err
			}
			applied = true
			return recordFingerprint(ctx, conn, dia, fp)
		})
	})
	if err := client.Schema.Create(ctx, hook); err != nil {
		return false, err
	}
	if applied || skipped {
		return applied, nil
	}
	// ent had nothing to change: another migrator committed the schema
	// after this one looked (its fingerprint is there), or the tables were
	// already so (a database migrated before fingerprints were recorded),
	// and only the record is new.
	if got, err := recordedFingerprint(ctx, sqlDB, dia); err != nil || got == fp {
		return false, err
	}
	// The triggers may be what changed: they are made again with the record.
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	q := entsql.Conn{ExecQuerier: tx}
	if err := installCounts(ctx, q, dia); err != nil {
		return false, err
	}
	if err := recordFingerprint(ctx, q, dia, fp); err != nil {
		return false, err
	}
	return true, tx.Commit()
}
