package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/db"
)

// The operations commands: migrate, backup and restore (RULINGS "Replicas
// and operations"). Each takes --db like serve, with SWITCHBOARD_DB.

// dbFlag defines --db as serve has it.
func dbFlag(fs *flag.FlagSet, dsn *string) {
	fs.StringVar(dsn, "db", env("SWITCHBOARD_DB", "sqlite:./switchboard.db"), "database: sqlite:PATH or postgres://… (SWITCHBOARD_DB)")
}

// parseOps parses the flags of an operations command: a help request prints
// the usage to stdout and answers flag.ErrHelp, a mistake answers a usage
// error, as serve does.
func parseOps(fs *flag.FlagSet, synopsis string, args []string, stdout io.Writer) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: switchboard %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = out.WriteTo(stdout)
			return err
		}
		return mistake(fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return mistake(fs.Name(), fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " ")))
	}
	return nil
}

// migrateCmd applies this build's schema and exits; concurrent runs (and
// serves starting together) migrate once (db.DB.Migrate).
func migrateCmd(args []string, stdout io.Writer) error {
	set := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var dsn string
	dbFlag(set, &dsn)
	if err := parseOps(set, "migrate [--db DSN]", args, stdout); err != nil {
		return err
	}
	ctx := context.Background()
	d, err := db.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer d.Close()
	migrated, err := d.Migrate(ctx)
	if err != nil {
		return err
	}
	fp, _ := db.Fingerprint() // Migrate has computed it
	if migrated {
		fmt.Fprintf(stdout, "migrated %s to schema %.12s\n", db.Redact(dsn), fp)
	} else {
		fmt.Fprintf(stdout, "%s already carries schema %.12s: nothing to do\n", db.Redact(dsn), fp)
	}
	return nil
}

// errHeld: another process holds the lock file the other way.
var errHeld = errors.New("held by another process")

// lockPath is the file beside a SQLite database whose lock says who uses it:
// each serve holds it shared for as long as it runs, a restore exclusive
// while it replaces the database (docs/decisions.md, "Replicas and
// operations").
func lockPath(file string) string { return file + ".lock" }

// lockDatabase takes the lock of the SQLite database dsn names (shared for
// a server, exclusive for a restore) and answers the open lock file, which
// holds it until closed or the process ends; nil for PostgreSQL.
func lockDatabase(dsn string, exclusive bool) (*os.File, error) {
	file := db.SQLiteFile(dsn)
	if file == "" {
		return nil, nil
	}
	f, err := os.OpenFile(lockPath(file), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("database lock: %w", err)
	}
	if err := flock(f, exclusive); err != nil {
		f.Close()
		if errors.Is(err, errHeld) && exclusive {
			return nil, fmt.Errorf("a running server holds %s (it locks %s); stop it first", file, lockPath(file))
		} else if errors.Is(err, errHeld) {
			return nil, fmt.Errorf("a restore is replacing %s (it locks %s)", file, lockPath(file))
		}
		return nil, fmt.Errorf("database lock %s: %w", lockPath(file), err)
	}
	return f, nil
}

// backupCmd writes a consistent copy of a SQLite database, while a server
// may be running on it: VACUUM INTO reads it in one transaction.
func backupCmd(args []string, stdout io.Writer) error {
	set := flag.NewFlagSet("backup", flag.ContinueOnError)
	var dsn, to string
	var force bool
	dbFlag(set, &dsn)
	set.StringVar(&to, "to", "", "the file to write the copy to (required)")
	set.BoolVar(&force, "force", false, "replace the file when it exists")
	if err := parseOps(set, "backup --to FILE [--db DSN] [--force]", args, stdout); err != nil {
		return err
	}
	if to == "" {
		return mistake("backup", errors.New("--to FILE is required"))
	}
	file := db.SQLiteFile(dsn)
	if file == "" {
		return fmt.Errorf("backup copies SQLite databases; back a PostgreSQL database up with pg_dump (e.g. pg_dump --format=custom --file=%s DSN)", to)
	}
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := refuseExisting(to, force); err != nil {
		return err
	}
	tmp, err := vacuumInto(file, to)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp) //nolint:errcheck // gone once placed; a leftover only after a failure
	if err := place(tmp, to, force); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "backed up %s to %s\n", file, to)
	return nil
}

// restoreCmd puts a backup in place of a SQLite database that no server
// holds, after checking it.
func restoreCmd(args []string, stdout io.Writer) error {
	set := flag.NewFlagSet("restore", flag.ContinueOnError)
	var dsn, from string
	var force bool
	dbFlag(set, &dsn)
	set.StringVar(&from, "from", "", "the backup to restore (required)")
	set.BoolVar(&force, "force", false, "replace the database when it exists")
	if err := parseOps(set, "restore --from FILE --db DSN [--force]", args, stdout); err != nil {
		return err
	}
	if from == "" {
		return mistake("restore", errors.New("--from FILE is required"))
	}
	file := db.SQLiteFile(dsn)
	if file == "" {
		return errors.New("restore replaces SQLite databases; restore a PostgreSQL database with pg_restore (or psql) from its pg_dump")
	}
	lock, err := lockDatabase(dsn, true)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer lock.Close()
	if err := refuseExisting(file, force); err != nil {
		return err
	}
	if _, err := os.Stat(from); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// A fresh copy of the backup, not its bytes: whatever sits in a WAL
	// beside it is folded in, and the copy is what gets checked.
	tmp, err := vacuumInto(from, file)
	if err != nil {
		return fmt.Errorf("restore: %s: %w", from, err)
	}
	defer os.Remove(tmp) //nolint:errcheck // gone once placed; a leftover only after a failure
	// The old database's WAL and shared memory belong to it: left beside
	// the new file, SQLite would replay the old WAL onto it.
	for _, side := range []string{file + "-wal", file + "-shm"} {
		if err := os.Remove(side); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err := place(tmp, file, true); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", file, from)
	return nil
}

func refuseExisting(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; --force replaces it", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// vacuumInto writes a copy of the SQLite file src beside dst (a temporary
// name in dst's directory) with VACUUM INTO, checks it with PRAGMA
// integrity_check, and answers its name.
func vacuumInto(src, dst string) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	// VACUUM INTO writes only into a file that does not exist.
	if err := os.Remove(tmp.Name()); err != nil {
		return "", err
	}
	// mode=rw: never create the source; the busy timeout waits out a
	// server's commit.
	source, err := sql.Open("sqlite3", "file:"+src+"?mode=rw&_busy_timeout=10000")
	if err != nil {
		return "", err
	}
	defer source.Close()
	if _, err := source.Exec("VACUUM INTO ?", tmp.Name()); err != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // a partial copy
		return "", err
	}
	if err := integrityCheck(tmp.Name()); err != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // a bad copy
		return "", err
	}
	return tmp.Name(), nil
}

// integrityCheck runs PRAGMA integrity_check on the SQLite file path.
func integrityCheck(path string) error {
	c, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer c.Close()
	rows, err := c.Query("PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the copy fails PRAGMA integrity_check: %s", strings.Join(problems, "; "))
	}
	return nil
}

// place moves the finished copy tmp to path: a rename when path may be
// replaced, else a link, which never replaces a file (one made meanwhile
// wins, and the copy is refused).
func place(tmp, path string, replace bool) error {
	if replace {
		return os.Rename(tmp, path)
	}
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; --force replaces it", path)
	} else if err != nil {
		return err
	}
	return nil
}
