// Package db opens Switchboard's database, SQLite by default or PostgreSQL, and
// migrates the schema at start-up.
package db

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "github.com/mattn/go-sqlite3"    // registers the "sqlite3" driver

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/ratecount"
)

// DB is an open, migrated database.
type DB struct {
	*ent.Client
	Dialect string
	SQL     *sql.DB
	writer  *batcher // SQLite only: group commit for InTx
	source  string   // what the driver was opened with
	outbox  atomic.Pointer[outboxRef]
	now     atomic.Pointer[func() time.Time] // SetClock
	subs    atomic.Pointer[subscriptions]    // Subscribe
}

// PostgresDSN is the connection string of a PostgreSQL database ("" on
// SQLite), for work that needs a connection of its own outside the pool, such
// as LISTEN.
func (d *DB) PostgresDSN() string {
	if d.Dialect != dialect.Postgres {
		return ""
	}
	return d.source
}

// Open parses a --db value ("sqlite:PATH" or "postgres://…"), opens it and
// migrates the schema.
func Open(ctx context.Context, dsn string) (*DB, error) { return open(ctx, dsn, true) }

// Connect opens a database without migrating it, for a replica started with
// --migrate=false and for the commands that migrate or copy it themselves.
func Connect(ctx context.Context, dsn string) (*DB, error) { return open(ctx, dsn, false) }

// OpenMigrated opens a database that already carries this build's schema (a
// copy of a migrated template, in tests) without running the migration, whose
// inspection of every table is most of the cost of opening one.
func OpenMigrated(ctx context.Context, dsn string) (*DB, error) { return open(ctx, dsn, false) }

func open(ctx context.Context, dsn string, migrating bool) (*DB, error) {
	driver, source, dia, err := parse(dsn)
	if err != nil {
		return nil, err
	}
	sqlDB, err := sql.Open(driver, source)
	if err != nil {
		return nil, fmt.Errorf("db: open %s: %w", dia, err)
	}
	switch dia {
	case dialect.Postgres:
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(10)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	case dialect.SQLite:
		// Keep connections: reopening a SQLite connection re-runs its PRAGMAs,
		// and database/sql keeps only two idle ones by default.
		sqlDB.SetMaxIdleConns(16)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("db: connect to %s: %w", dia, err)
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dia, sqlDB)))
	if migrating {
		if _, err := migrate(ctx, client, sqlDB, dia); err != nil {
			client.Close()
			return nil, fmt.Errorf("db: migrate %s schema: %w", dia, err)
		}
	}
	d := &DB{Client: client, Dialect: dia, SQL: sqlDB, source: source}
	// Transactions' clients share the client's hooks, so this one stamps
	// every write made through d (clock.go).
	client.Use(d.stampTimes)
	if dia == dialect.SQLite {
		d.writer = newBatcher(d)
	}
	return d, nil
}

// migrateMu serialises migrations in one process (schema.go).
var migrateMu sync.Mutex

// Unlogged are the tables that are UNLOGGED on PostgreSQL: the rate
// counters (server/gate), which every request writes; waiting for the
// write-ahead log's flush made that write cost milliseconds instead of a
// tenth of one, and a crash of the database that empties them only forgets a
// minute's counts.
var Unlogged = []string{ratecount.Table}

// unlog makes the Unlogged tables so, altering each only when it is not yet:
// ALTER takes the table's lock and rewrites it.
func unlog(ctx context.Context, sqlDB *sql.DB, dia string) error {
	if dia != dialect.Postgres {
		return nil
	}
	for _, table := range Unlogged {
		var persistence string
		err := sqlDB.QueryRowContext(ctx, "SELECT relpersistence FROM pg_class WHERE oid = $1::regclass", table).Scan(&persistence)
		if err != nil {
			return fmt.Errorf("db: %s: %w", table, err)
		}
		if persistence == "u" {
			continue
		}
		if _, err := sqlDB.ExecContext(ctx, "ALTER TABLE "+table+" SET UNLOGGED"); err != nil {
			return fmt.Errorf("db: %s unlogged: %w", table, err)
		}
	}
	return nil
}

func parse(dsn string) (driver, source, dia string, err error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := SQLiteFile(dsn)
		if path == "" {
			return "", "", "", fmt.Errorf("db: %q names no file", dsn)
		}
		return "sqlite3", sqliteSource(path), dialect.SQLite, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "pgx", dsn, dialect.Postgres, nil
	}
	return "", "", "", fmt.Errorf("db: unsupported --db %q: use sqlite:PATH or postgres://…", redact(dsn))
}

// SQLiteFile is the file a "sqlite:PATH" --db value names ("" for any other
// value).
func SQLiteFile(dsn string) string {
	path, ok := strings.CutPrefix(dsn, "sqlite:")
	if !ok {
		return ""
	}
	return strings.TrimPrefix(path, "//")
}

// sqliteSource turns on what a server needs from SQLite: WAL so readers do not
// wait for writers, foreign keys, a busy timeout instead of instant SQLITE_BUSY,
// IMMEDIATE write transactions so two writers queue on the lock up front
// rather than deadlocking on an upgrade, and a per-connection cache of prepared
// statements, since parsing SQL was a quarter of a create's CPU.
func sqliteSource(path string) string {
	q := url.Values{}
	q.Set("_fk", "1")
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	q.Set("_stmt_cache_size", "64")
	return "file:" + path + "?" + q.Encode()
}

// redact hides a password in a DSN for messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Redact hides a password in a DSN for logs.
func Redact(dsn string) string { return redact(dsn) }

// Close stops the writer and closes the database.
func (d *DB) Close() error {
	if d.writer != nil {
		d.writer.close()
	}
	return d.Client.Close()
}

// InTx runs fn in a transaction and commits when fn succeeds; any error rolls
// every write fn made back and is returned as fn gave it, so typed errors
// survive; a panic in fn is rolled back and returned as an error. What fn
// emits is stored in the transaction and delivered once it has committed, and
// its after-commit functions then run (see Tx). On SQLite, transactions that
// arrive together share one commit (see batcher); fn must therefore do only
// database work in tx, and keep it short.
func (d *DB) InTx(ctx context.Context, fn func(*Tx) error) error {
	fn = hooked(ctx, fn)
	if d.writer != nil {
		return d.writer.do(ctx, fn)
	}
	tx, err := d.Tx(ctx)
	if err != nil {
		return fmt.Errorf("db: begin: %w", err)
	}
	out, err := d.run(ctx, &Tx{Tx: tx}, fn)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("db: commit: %w", err)
	}
	delivered([]outcome{out})
	out.runAfter()
	return nil
}

// InTxValue is InTx for a transaction that answers a value: fn's value once
// the transaction has committed, the zero value with any error.
func InTxValue[T any](ctx context.Context, d *DB, fn func(*Tx) (T, error)) (T, error) {
	var out T
	err := d.InTx(ctx, func(tx *Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Serialize takes a transaction-scoped lock named by key, for the rare
// check-then-insert that no unique index can guard (such as "only one owner").
// SQLite needs nothing: write transactions are IMMEDIATE, so they already queue.
func (d *DB) Serialize(ctx context.Context, tx execer, key string) error {
	if d.Dialect != dialect.Postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", key)
	return err
}
