package dbtest

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/switchboard-hq/switchboard/internal/db"
)

// Migrating a database (ent inspects every table, then creates them) costs far
// more than copying one, so each test gets a copy of one migrated template. The
// template is named by a fingerprint of the schema, so a changed schema gets a
// new template and parallel test processes of one build share theirs.

// fingerprintOnce names the templates by the schema's fingerprint, shortened
// (to 16 digits since templates carry db.SchemaTable: older ones had 12).
func fingerprintOnce() (string, error) {
	fp, err := db.Fingerprint()
	if err != nil {
		return "", err
	}
	return fp[:16], nil
}

var sqliteTemplateOnce = sync.OnceValues(sqliteTemplate)

// sqliteTemplate answers the path of the migrated SQLite template, building it
// once: in a file of its own, renamed into place, so a concurrent builder in
// another test process never sees half a template.
func sqliteTemplate() (string, error) {
	fp, err := fingerprintOnce()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "switchboard-test-templates")
	path := filepath.Join(dir, "sqlite-"+fp+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work) //nolint:errcheck // a clean-up of a temporary build folder
	built := filepath.Join(work, "template.db")
	d, err := db.Open(context.Background(), "sqlite:"+built)
	if err != nil {
		return "", err
	}
	// Closing checkpoints the WAL into the file, so the file alone is complete.
	if err := d.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(built, path); err != nil {
		return "", err
	}
	return path, nil
}

// copySQLite copies the template to a new file of the test's.
func copySQLite(dst string) error {
	src, err := sqliteTemplateOnce()
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

var postgresTemplateOnce = sync.OnceValues(func() (string, error) {
	return postgresTemplate(os.Getenv(TestPostgresEnv))
})

// postgresTemplate answers the name of the migrated template database, building
// it once under an advisory lock (test processes run side by side): migrated
// under a temporary name and renamed when complete.
func postgresTemplate(dsn string) (string, error) {
	fp, err := fingerprintOnce()
	if err != nil {
		return "", err
	}
	name := "sbtmpl_" + fp
	ctx := context.Background()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext('switchboard test template'))"); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock(hashtext('switchboard test template'))") //nolint:errcheck // the lock ends with the connection anyway
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	d, err := db.Open(ctx, withDatabase(dsn, building))
	if err != nil {
		return "", err
	}
	if err := d.Close(); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", err
	}
	return name, nil
}
