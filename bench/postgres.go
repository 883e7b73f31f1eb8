package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"
)

// freshSchema makes an empty schema for this run in the PostgreSQL database
// at url and answers url pointed at it (search_path, as the tests do), so the
// server's migrations and the owner set-up start from nothing. The schema is
// dropped when the run ends.
func freshSchema(ctx context.Context, ps *procs, url string) (string, error) {
	return instanceSchema(ctx, ps, url, "")
}

// instanceSchema is freshSchema for one of several instances of a run: the
// instance's name is in the schema's, since two schemas made in the same
// second would otherwise have one name.
func instanceSchema(ctx context.Context, ps *procs, url, name string) (string, error) {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return "", fmt.Errorf("-db %q: expected postgres://…", url)
	}
	d, err := sql.Open("pgx", url)
	if err != nil {
		return "", err
	}
	schema := fmt.Sprintf("bench_%d_%d", os.Getpid(), time.Now().Unix())
	if name != "" {
		schema += "_" + name
	}
	if _, err := d.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		d.Close()
		return "", fmt.Errorf("create schema: %w", err)
	}
	ps.atExit(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := d.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			fmt.Fprintln(os.Stderr, "bench: drop schema", schema+":", err)
		}
		d.Close()
	})
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + schema, nil
}
