package throughtest

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// moneyFixture serves the database commit 10a3e48 wrote with amounts as
// doubles (internal/db/testdata/moneyfixture), migrated to cents on open,
// with a key for each of its accounts.
func moneyFixture(t *testing.T) (s *servertest.Server, alice, bob *servertest.Caller) {
	t.Helper()
	dsn := dbtest.FixtureDSN(t, "../../internal/db/testdata/money-v0.sqlite", "../../internal/db/testdata/money-v0.pg.sql")
	d, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open the fixture: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	d.SetClock(dbtest.WallClock) // until the server sets its own
	// Keep the held payment's review open: the fixture's window began in
	// the past and the server's review timer would confirm it.
	if err := d.Execution.UpdateOneID("fx_ex_held").SetReviewWidgetShownAt(time.Now().UTC()).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = servertest.New(t, servertest.WithDB(d))
	key := func(userID string) *servertest.Caller {
		k, prefix, hash := auth.NewAPIKey()
		err := d.APIKey.Create().SetUserID(userID).SetLabel("fixture").SetScopes([]string{"store", "kanban"}).
			SetPrefix(prefix).SetKeyHash(hash).Exec(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s.WithKey(k)
	}
	return s, key("fx_alice"), key("fx_bob")
}

// Issue 11, "Money in minor units": after the migration to cents the API
// answers the amounts the database held as doubles, as the same JSON
// numbers; a listing price with three decimals (accepted before) answers its
// cents, what its executions were charged.
func TestMoneyFixtureAnswersTheSameNumbers(t *testing.T) {
	_, alice, bob := moneyFixture(t)
	for _, tc := range []struct {
		who          *servertest.Caller
		method, path string
		body         any
		want         map[string]any // path in the answer → number or list
	}{
		{alice, http.MethodGet, "/api/marketplace/fx_agent_writer", nil, map[string]any{
			"agent.pricePerTask": 2.5, "agent.pricingConfig.tiers.0.pricePerTask": 2.12, "agent.pricingConfig.tiers.1.pricePerTask": 19.99}},
		{alice, http.MethodPost, "/switchboard.v1.StoreService/GetStoreAgent", map[string]any{"id": "fx_agent_writer"}, map[string]any{
			"agent.pricePerTask": 2.5, "agent.pricingConfig.tiers.0.pricePerTask": 2.12, "agent.pricingConfig.tiers.1.pricePerTask": 19.99}},
		{alice, http.MethodGet, "/api/marketplace/fx_agent_quoter", nil, map[string]any{
			"agent.pricingConfig.dynamicConfig.estimateRange": []any{0.38, 19.99}}},
		{alice, http.MethodGet, "/api/marketplace/fx_agent_euro", nil, map[string]any{"agent.pricePerTask": 2.13}},
		{bob, http.MethodGet, "/api/marketplace/fx_agent_writer", nil, map[string]any{
			"executions.0.revenue.gross": 2.5, "executions.0.revenue.developerPayout": 2.12, "executions.0.revenue.platformFee": 0.38,
			"executions.0.revenue.feePercent": 15.0}},
		{alice, http.MethodGet, "/api/marketplace/earnings", nil, map[string]any{
			"totals.0.currency": "EUR", "totals.0.gross": 0.0, "totals.0.pendingPayout": 1.81,
			"totals.1.currency": "USD", "totals.1.gross": 2.5, "totals.1.developerPayout": 2.12, "totals.1.platformFee": 0.38}},
		{alice, http.MethodGet, "/api/marketplace-capabilities", nil, map[string]any{
			"capabilities.0.price": 0.0, "capabilities.1.price": 0.38, "capabilities.2.price": 19.99}},
		{bob, http.MethodGet, "/api/v2/kanban/fx_card_0", nil, map[string]any{"card.projectPrice": 1234.56}},
		{bob, http.MethodGet, "/api/v2/kanban/fx_card_2", nil, map[string]any{"card.projectPrice": nil}},
	} {
		res := tc.who.Do(tc.method, tc.path, tc.body)
		if res.Status != http.StatusOK {
			t.Errorf("%s: %d %s", tc.path, res.Status, res.Body)
			continue
		}
		body := res.JSON(t)
		for path, want := range tc.want {
			if got := dig(body, path); !equalJSON(got, want) {
				t.Errorf("%s %s = %v, want %v", tc.path, path, got, want)
			}
		}
	}
}

// dig follows a dotted path of keys and list indexes.
func dig(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return "missing " + k
			}
			v = x[i]
		default:
			return "missing " + k
		}
	}
	return v
}
