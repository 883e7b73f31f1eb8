package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/money"
)

// moneyColumns are the amounts that were doubles in currency units and are
// integer cents since version 1 (docs/decisions.md, "Money in minor units").
var moneyColumns = []struct {
	table   string
	columns []string
}{
	{"store_agents", []string{"price_per_task"}},
	{"executions", []string{"quote_amount", "gross", "developer_payout", "platform_fee"}},
	{"payment_holds", []string{"amount", "developer_payout", "platform_fee"}},
	{"ledger_entries", []string{"amount"}},
	{"capability_packs", []string{"price"}},
	{"cards", []string{"project_price"}},
}

// moneyToCents turns each money column still of a floating type into
// integer cents, rounded half away from zero (money.Round; the SQL below
// rounds the same way, which TestCentsInSQLMatchRound pins), and the listing
// prices inside store_agents.pricing_config likewise.
func moneyToCents(ctx context.Context, tx *sql.Tx, dia string) error {
	for _, t := range moneyColumns {
		var err error
		if dia == dialect.Postgres {
			err = centsPostgres(ctx, tx, t.table, t.columns)
		} else {
			err = centsSQLite(ctx, tx, t.table, t.columns)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.table, err)
		}
	}
	return pricingConfigToCents(ctx, tx, dia)
}

// centsPostgresSQL is the conversion on PostgreSQL: through numeric, whose
// round goes half away from zero on the decimal value.
const centsPostgresSQL = "round((%s)::numeric * 100)::bigint"

func centsPostgres(ctx context.Context, tx *sql.Tx, table string, columns []string) error {
	for _, c := range columns {
		var typ string
		var def sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT data_type, column_default FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`, table, c).Scan(&typ, &def)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && typ != "double precision") {
			continue
		}
		if err != nil {
			return err
		}
		stmts := []string{
			fmt.Sprintf(`ALTER TABLE %q ALTER COLUMN %q DROP DEFAULT`, table, c),
			fmt.Sprintf(`ALTER TABLE %q ALTER COLUMN %q TYPE bigint USING `+centsPostgresSQL, table, c, c),
		}
		if def.Valid {
			stmts = append(stmts, fmt.Sprintf(`ALTER TABLE %q ALTER COLUMN %q SET DEFAULT 0`, table, c))
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// centsSQLiteSQL is the conversion on SQLite. Its round goes half away from
// zero on the binary value, where 1.005 × 100 is 100.4999…; rounding to six
// decimals first recovers the decimal tie.
const centsSQLiteSQL = "CAST(round(round(%s * 100, 6)) AS INTEGER)"

// centsSQLite rebuilds table with its money columns declared integer, the
// way SQLite changes a column's type: a copy made from the table's own
// CREATE statement (so everything else stays as it was), filled, swapped in,
// its indexes made again.
func centsSQLite(ctx context.Context, tx *sql.Tx, table string, columns []string) error {
	var create string
	err := tx.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&create)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	changed := create
	for _, c := range columns {
		changed = strings.Replace(changed, "`"+c+"` real", "`"+c+"` integer", 1)
	}
	if changed == create {
		return nil // already integer
	}
	head := "CREATE TABLE `" + table + "` ("
	if !strings.HasPrefix(changed, head) {
		return fmt.Errorf("unexpected CREATE statement %.60q", create)
	}
	temp := table + "__cents"
	indexes, err := strings1(ctx, tx, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", table)
	if err != nil {
		return err
	}
	names, err := strings1(ctx, tx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		return err
	}
	cols, exprs := make([]string, len(names)), make([]string, len(names))
	for i, n := range names {
		cols[i] = "`" + n + "`"
		exprs[i] = cols[i]
		for _, c := range columns {
			if n == c {
				exprs[i] = fmt.Sprintf(centsSQLiteSQL, cols[i])
			}
		}
	}
	stmts := []string{
		"CREATE TABLE `" + temp + "` (" + strings.TrimPrefix(changed, head),
		fmt.Sprintf("INSERT INTO `%s` (%s) SELECT %s FROM `%s`", temp, strings.Join(cols, ", "), strings.Join(exprs, ", "), table),
		"DROP TABLE `" + table + "`",
		"ALTER TABLE `" + temp + "` RENAME TO `" + table + "`",
	}
	for _, s := range append(stmts, indexes...) {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%.80s: %w", s, err)
		}
	}
	return nil
}

// strings1 answers the first column of a query's rows.
func strings1(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
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

// pricingConfigToCents rewrites the tier prices (pricePerTask) and the
// dynamic estimate range (estimateRange) of store_agents.pricing_config as
// pricePerTaskCents and estimateRangeCents (ent/schema.PricingConfig).
func pricingConfigToCents(ctx context.Context, tx *sql.Tx, dia string) error {
	if ok, err := hasTable(ctx, tx, dia, "store_agents"); err != nil || !ok {
		return err
	}
	rows, err := tx.QueryContext(ctx, "SELECT id, pricing_config FROM store_agents WHERE pricing_config IS NOT NULL")
	if err != nil {
		return err
	}
	type row struct{ id, config string }
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.config); err != nil {
			rows.Close()
			return err
		}
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	update := "UPDATE store_agents SET pricing_config = ? WHERE id = ?"
	if dia == dialect.Postgres {
		update = "UPDATE store_agents SET pricing_config = $1 WHERE id = $2"
	}
	for _, r := range todo {
		next, changed, err := configCents(r.config)
		if err != nil {
			return fmt.Errorf("store_agents %s pricing_config: %w", r.id, err)
		}
		if !changed {
			continue
		}
		if _, err := tx.ExecContext(ctx, update, next, r.id); err != nil {
			return err
		}
	}
	return nil
}

// configCents converts one pricing_config document; changed is false when
// it holds no amount in units.
func configCents(doc string) (string, bool, error) {
	var c map[string]any
	if err := json.Unmarshal([]byte(doc), &c); err != nil || c == nil {
		return "", false, err
	}
	changed := false
	tiers, _ := c["tiers"].([]any)
	for _, t := range tiers {
		tier, _ := t.(map[string]any)
		if v, ok := tier["pricePerTask"].(float64); ok {
			cents, err := money.Round(v)
			if err != nil {
				return "", false, err
			}
			tier["pricePerTaskCents"] = cents
			delete(tier, "pricePerTask")
			changed = true
		}
	}
	if d, ok := c["dynamicConfig"].(map[string]any); ok {
		if r, ok := d["estimateRange"].([]any); ok {
			cents := make([]money.Cents, 0, len(r))
			for _, v := range r {
				f, _ := v.(float64)
				n, err := money.Round(f)
				if err != nil {
					return "", false, err
				}
				cents = append(cents, n)
			}
			d["estimateRangeCents"] = cents
			delete(d, "estimateRange")
			changed = true
		}
	}
	out, err := json.Marshal(c)
	return string(out), changed, err
}

// hasTable says whether table exists (not yet in a fresh database, before
// ent creates it).
func hasTable(ctx context.Context, tx *sql.Tx, dia, table string) (bool, error) {
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if dia == dialect.Postgres {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"
	}
	var n int
	err := tx.QueryRowContext(ctx, q, table).Scan(&n)
	return n > 0, err
}
