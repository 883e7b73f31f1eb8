package dbtest

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// Querier is a database or one of its connections.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Plan answers the lines of an EXPLAIN (explain is the whole statement, the
// EXPLAIN and its options included) run on q, one per line.
func Plan(t testing.TB, q Querier, explain string, args ...any) string {
	t.Helper()
	rows, err := q.QueryContext(t.Context(), explain, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan.String()
}
