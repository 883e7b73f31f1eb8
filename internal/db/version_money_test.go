package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// openFixture opens (and so migrates) the database commit 10a3e48 wrote with
// amounts as doubles (testdata/moneyfixture).
func openFixture(t *testing.T) (string, *db.DB) {
	t.Helper()
	dsn := dbtest.FixtureDSN(t, "testdata/money-v0.sqlite", "testdata/money-v0.pg.sql")
	return dsn, open(t, dsn)
}

func open(t *testing.T, dsn string) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Issue 11, "Money in minor units": a database written before amounts were
// cents opens with every amount converted to the right cents, once.
func TestMoneyMigrationConvertsTheFixture(t *testing.T) {
	dsn := dbtest.FixtureDSN(t, "testdata/money-v0.sqlite", "testdata/money-v0.pg.sql")
	d, err := db.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	checkCents(t, d.Client)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, dsn) // a second open applies nothing twice
	checkCents(t, again.Client)
	var n int
	if err := again.SQL.QueryRowContext(t.Context(), "SELECT count(*) FROM schema_migrations WHERE version = 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("schema_migrations rows for version 1: %d, %v", n, err)
	}
}

func checkCents(t *testing.T, c *ent.Client) {
	t.Helper()
	ctx := t.Context()
	for id, want := range map[string]money.Cents{"fx_agent_writer": 250, "fx_agent_quoter": 0, "fx_agent_euro": 213, "fx_agent_free": 0} {
		a, err := c.StoreAgent.Get(ctx, id)
		if err != nil || a.PricePerTask != want {
			t.Errorf("%s price_per_task: %+v %v, want %d", id, a, err, want)
		}
	}
	writer, _ := c.StoreAgent.Get(ctx, "fx_agent_writer")
	quoter, _ := c.StoreAgent.Get(ctx, "fx_agent_quoter")
	if writer == nil || quoter == nil || !slices.EqualFunc(writer.PricingConfig.Tiers, []schema.PricingTier{{Name: "basic", PricePerTask: 212}, {Name: "pro", PricePerTask: 1999}},
		func(a, b schema.PricingTier) bool { return a.Name == b.Name && a.PricePerTask == b.PricePerTask }) ||
		!slices.Equal(quoter.PricingConfig.DynamicConfig.EstimateRange, []money.Cents{38, 1999}) || !quoter.PricingConfig.DynamicConfig.RequiresApproval {
		t.Errorf("pricing_config: %+v %+v", writer, quoter)
	}
	if tier := writer.PricingConfig.Tiers[0]; tier.TaskLimit == nil || *tier.TaskLimit != 100 {
		t.Errorf("taskLimit lost: %+v", tier)
	}
	for _, tc := range []struct {
		id                 string
		gross, payout, fee money.Cents
	}{{"fx_ex_captured", 250, 212, 38}, {"fx_ex_held", 213, 181, 32}} {
		ex, err := c.Execution.Get(ctx, tc.id)
		if err != nil || ex.Gross == nil || *ex.Gross != tc.gross || *ex.DeveloperPayout != tc.payout || *ex.PlatformFee != tc.fee || *ex.FeePercent != 15 {
			t.Errorf("%s revenue: %+v %v", tc.id, ex, err)
		}
	}
	if q, err := c.Execution.Get(ctx, "fx_ex_quoted"); err != nil || q.QuoteAmount == nil || *q.QuoteAmount != 1999 || q.Gross != nil {
		t.Errorf("quote: %+v %v", q, err)
	}
	for id, want := range map[string][3]money.Cents{"fx_hold_captured": {250, 212, 38}, "fx_hold_held": {213, 181, 32}} {
		h, err := c.PaymentHold.Get(ctx, id)
		if err != nil || [3]money.Cents{h.Amount, h.DeveloperPayout, h.PlatformFee} != want {
			t.Errorf("%s: %+v %v", id, h, err)
		}
	}
	for id, want := range map[string]money.Cents{"fx_hold_captured_0": -250, "fx_hold_captured_1": 212, "fx_hold_captured_2": 38, "fx_hold_held_0": -213} {
		l, err := c.LedgerEntry.Get(ctx, id)
		if err != nil || l.Amount != want {
			t.Errorf("ledger %s: %+v %v, want %d", id, l, err, want)
		}
	}
	for id, want := range map[string]money.Cents{"fx_pack_paid": 1999, "fx_pack_cheap": 38, "fx_pack_free": 0} {
		p, err := c.CapabilityPack.Get(ctx, id)
		if err != nil || p.Price != want || p.Currency != "USD" {
			t.Errorf("pack %s: %+v %v", id, p, err)
		}
	}
	for id, want := range map[string]*money.Cents{"fx_card_0": ptr(123456), "fx_card_1": ptr(38), "fx_card_2": nil} {
		card, err := c.Card.Get(ctx, id)
		if err != nil || fmt.Sprint(deref(card.ProjectPrice)) != fmt.Sprint(deref(want)) || card.ProjectPriceCurrency != "USD" {
			t.Errorf("card %s: %v %v, want %v", id, card, err, deref(want))
		}
	}
}

func ptr(c money.Cents) *money.Cents { return &c }

func deref(c *money.Cents) any {
	if c == nil {
		return nil
	}
	return *c
}

// Issue 11: a migrated database ends as ent makes a fresh one, so ent's
// auto-migration has nothing left to change in the money tables.
func TestMoneyMigrationMatchesAFreshSchema(t *testing.T) {
	_, migrated := openFixture(t)
	fresh := dbtest.Open(t)
	for _, table := range []string{"store_agents", "executions", "payment_holds", "ledger_entries", "capability_packs", "cards"} {
		got, want := describe(t, migrated, table), describe(t, fresh, table)
		if !slices.Equal(got, want) {
			t.Errorf("%s differs from a fresh database:\nmigrated %q\nfresh    %q", table, got, want)
		}
	}
}

// describe lists a table's columns (name, type, null, default) and its
// indexes, sorted, without the schema's name.
func describe(t *testing.T, d *db.DB, table string) []string {
	t.Helper()
	q := `SELECT name || ' ' || type || ' ' || "notnull" || ' ' || coalesce(dflt_value, '-') || ' ' || pk FROM pragma_table_info(?)
		UNION ALL SELECT 'index ' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`
	if d.Dialect == dialect.Postgres {
		q = `SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '-')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
			UNION ALL SELECT 'index ' || replace(indexdef, schemaname || '.', '') FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = $2`
	}
	rows, err := d.SQL.QueryContext(t.Context(), q, table, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	if len(out) == 0 {
		t.Fatalf("%s: no columns", table)
	}
	return out
}

// The SQL that converts stored doubles rounds as money.Round does: half away
// from zero on the decimal value, on both databases.
func TestCentsInSQLMatchRound(t *testing.T) {
	d := dbtest.Open(t)
	expr := db.CentsSQL[d.Dialect]
	param := "?"
	if d.Dialect == dialect.Postgres {
		param = "$1::double precision"
	}
	for _, f := range []float64{0, 2.5, 0.38, 2.12, 19.99, 0.29, 1234.56, 2.125, -2.125, 2.675, 1.005, -1.005, 0.285,
		0.005, 0.004, -2.5, 999_999.995, 1e9, 0.1 + 0.7} {
		want, err := money.Round(f)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := d.SQL.QueryRowContext(t.Context(), "SELECT "+fmt.Sprintf(expr, param), f).Scan(&got); err != nil || money.Cents(got) != want {
			t.Errorf("%s of %v = %d, %v; money.Round = %d", strings.TrimSpace(expr), f, got, err, want)
		}
	}
}

// The pricing detail's amounts are rewritten once, keeping what is not an
// amount.
func TestPricingConfigJSON(t *testing.T) {
	_, d := openFixture(t)
	var raw string
	if err := d.SQL.QueryRowContext(t.Context(), "SELECT pricing_config FROM store_agents WHERE id = 'fx_agent_writer'").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	tiers := doc["tiers"].([]any)
	first := tiers[0].(map[string]any)
	if _, old := first["pricePerTask"]; old || first["pricePerTaskCents"] != 212.0 || doc["model"] != "tiered" {
		t.Errorf("pricing_config %s", raw)
	}
}
