package dbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/switchboard-hq/switchboard/internal/db"
)

// A CREATE DATABASE from the template costs about half a second on
// PostgreSQL (it writes the whole copy to the WAL and syncs it), a dozen times
// what emptying a used copy costs, and the PostgreSQL leg makes one for nearly
// every test. So a copy a test has finished with is emptied and handed to the
// process's next test instead of dropped: its rows deleted and its sequences
// restarted, which leaves it as the template left it, provided the test
// changed no schema (a copy whose catalog differs from the template's is
// dropped as before). Copies still free when the process ends are dropped by
// a later test process (sweepDeadCopies), which is why recycling is kept to a
// server on this machine: only there can the owner's pid be checked.

// recycler is one process's free copies of one template.
type recycler struct {
	dsn string
	// tables are the template's tables, all empty but schema_migrations and db.SchemaTable.
	tables    []string
	sequences []string
	catalog   string

	mu   sync.Mutex
	free []string
}

var (
	recyclerMu sync.Mutex
	// theRecycler is the process's, made from its first fresh copy; nil
	// until then, and after a failure to make one (recycled is then false).
	theRecycler *recycler
	recycled    = true

	errNoRecycling = errors.New("dbtest: copies are not recycled on this server")
)

// recyclerFor answers the process's recycler, made on first use from fresh,
// a copy of the template no test has used yet (never from the template
// itself: a connection to it would fail other processes' CREATE DATABASE);
// nil when copies are not recycled here.
func recyclerFor(dsn, fresh string) *recycler {
	recyclerMu.Lock()
	defer recyclerMu.Unlock()
	if theRecycler == nil && recycled {
		r, err := newRecycler(dsn, fresh)
		if err != nil {
			recycled = false
			return nil
		}
		theRecycler = r
	}
	return theRecycler
}

// freeCopy answers a copy another test of this process has finished with.
func freeCopy() (string, bool) {
	recyclerMu.Lock()
	r := theRecycler
	recyclerMu.Unlock()
	if r == nil {
		return "", false
	}
	return r.take()
}

// copyPrefix names this process's copies: t_<pid>_…, so a later process can
// tell a dead one's leftovers from a live one's.
func copyPrefix() string { return "t_" + strconv.Itoa(os.Getpid()) + "_" }

// newRecycler reads what emptying a copy takes from fresh, an unused copy of
// the template: its tables and sequences, its catalog's fingerprint; it
// refuses a template with rows a test could change (emptying could not
// restore them).
func newRecycler(dsn, fresh string) (*recycler, error) {
	if !loopback(dsn) {
		return nil, errNoRecycling
	}
	r := &recycler{dsn: dsn}
	conn, err := sql.Open("pgx", withDatabase(dsn, fresh))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx := context.Background()
	if r.tables, err = column(ctx, conn, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables
		WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', '`+db.SchemaTable+`') ORDER BY 1`); err != nil {
		return nil, err
	}
	if r.sequences, err = column(ctx, conn, `SELECT format('%I.%I', schemaname, sequencename) FROM pg_sequences
		WHERE schemaname = 'public' ORDER BY 1`); err != nil {
		return nil, err
	}
	for _, table := range r.tables {
		var rows bool
		if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+table+")").Scan(&rows); err != nil {
			return nil, err
		}
		if rows {
			return nil, fmt.Errorf("dbtest: the template's table %s has rows, so an emptied copy would not be the template: %w", table, errNoRecycling)
		}
	}
	if r.catalog, err = catalogOf(ctx, conn); err != nil {
		return nil, err
	}
	sweepDeadCopies(ctx, dsn)
	return r, nil
}

// take hands out a free copy, if there is one.
func (r *recycler) take() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.free) == 0 {
		return "", false
	}
	name := r.free[len(r.free)-1]
	r.free = r.free[:len(r.free)-1]
	return name, true
}

// give empties a used copy and keeps it for the next test; an error means
// the copy is not fit to reuse and should be dropped.
func (r *recycler) give(name string) error {
	ctx := context.Background()
	conn, err := sql.Open("pgx", withDatabase(r.dsn, name))
	if err != nil {
		return err
	}
	defer conn.Close()
	// A server the test left running (or killed, whose backends PostgreSQL
	// has not yet reaped) must not write after the copy is emptied.
	if _, err := conn.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		return err
	}
	catalog, err := catalogOf(ctx, conn)
	if err != nil {
		return err
	}
	if catalog != r.catalog {
		return errors.New("dbtest: the test changed the copy's schema")
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	// Replica mode skips the foreign keys' triggers: every table is emptied,
	// so the order of the deletes does not matter.
	stmts := []string{"SET LOCAL session_replication_role = replica"}
	for _, table := range r.tables {
		stmts = append(stmts, "DELETE FROM "+table)
	}
	for _, seq := range r.sequences {
		stmts = append(stmts, "ALTER SEQUENCE "+seq+" RESTART")
	}
	if _, err := tx.ExecContext(ctx, strings.Join(stmts, ";\n")); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.mu.Lock()
	r.free = append(r.free, name)
	r.mu.Unlock()
	return nil
}

// catalogOf fingerprints the schema a test could change: the public schema's
// relations, columns, constraints, triggers, functions and types.
func catalogOf(ctx context.Context, conn *sql.DB) (string, error) {
	var s string
	err := conn.QueryRowContext(ctx, `SELECT md5(concat_ws('|',
		(SELECT string_agg(c.relname || ':' || c.relkind::text, ',' ORDER BY c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'),
		(SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull, ',' ORDER BY c.relname, a.attnum)
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped),
		(SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE n.nspname = 'public'),
		(SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal),
		(SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'),
		(SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace)))`).Scan(&s)
	return s, err
}

// sweepDeadCopies drops the copies of test processes that have ended (those
// a process still held free when it exited, and any a crashed one left).
func sweepDeadCopies(ctx context.Context, dsn string) {
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return
	}
	defer admin.Close()
	names, err := column(ctx, admin, `SELECT datname FROM pg_database WHERE datname ~ '^t_[0-9]+_'`)
	if err != nil {
		return
	}
	for _, name := range names {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(name, "t_"), "_", 2)[0])
		if err != nil || alive(pid) {
			continue
		}
		// Another process may be sweeping the same name: either drop does.
		admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck // best effort, retried by the next sweep
	}
}

// alive reports whether process pid runs on this machine.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// loopback reports whether the DSN's server is on this machine (a loopback
// address, localhost or a Unix socket), where a copy's owner can be checked.
func loopback(dsn string) bool {
	u, err := url.Parse(dsn)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "" || strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// strings_ answers a one-column query's values.
func column(ctx context.Context, conn *sql.DB, q string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
