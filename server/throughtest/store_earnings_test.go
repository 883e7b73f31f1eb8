package throughtest

import (
	"context"
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

func mustCents(t *testing.T, f float64) money.Cents {
	t.Helper()
	c, err := money.FromFloat(f)
	if err != nil {
		t.Fatalf("cents of %v: %v", f, err)
	}
	return c
}

// paid stores a paid execution with its split at the store fee.
func (f *marketFixture) paid(t *testing.T, agentID string, gross float64, hold execution.PaymentHoldStatus, currency string) {
	t.Helper()
	f.execution(t, f.ann.ID, agentID, func(c *ent.ExecutionCreate) {
		r := payments.Split(mustCents(t, gross), store.StoreFeePercent, "USD")
		c.SetGross(r.Gross).SetPlatformFee(r.PlatformFee).SetDeveloperPayout(r.DeveloperPayout).SetFeePercent(store.StoreFeePercent).
			SetPaymentHoldStatus(hold)
		if currency != "" {
			c.SetCurrency(currency)
		}
	})
}

// GET /api/marketplace/earnings (decision; document 2 shows no body): the
// caller's listings' paid executions summed per currency, captured payments
// as earned and held ones as pending; released and free executions count
// nothing; another developer's earnings never show.
func TestEarnings(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	scout := f.create(t, f.bobAPI, map[string]any{"name": "Scout", "pricingModel": "per_task", "pricePerTask": 10})
	euro := f.create(t, f.bobAPI, map[string]any{"name": "Euro", "pricingModel": "per_task", "pricePerTask": 2, "currency": "EUR"})
	annsOwn := f.create(t, f.api, map[string]any{"name": "Anns", "pricingModel": "per_task", "pricePerTask": 1})
	f.paid(t, scout["id"].(string), 10, execution.PaymentHoldStatusCaptured, "")
	f.paid(t, scout["id"].(string), 0.4, execution.PaymentHoldStatusCaptured, "USD")
	f.paid(t, scout["id"].(string), 0.2, execution.PaymentHoldStatusCaptured, "USD")
	f.paid(t, scout["id"].(string), 20, execution.PaymentHoldStatusHeld, "")
	f.paid(t, scout["id"].(string), 99, execution.PaymentHoldStatusReleased, "")
	f.execution(t, f.ann.ID, scout["id"].(string), nil) // free, no revenue
	f.paid(t, euro["id"].(string), 2, execution.PaymentHoldStatusCaptured, "")
	f.paid(t, annsOwn["id"].(string), 1, execution.PaymentHoldStatusCaptured, "")

	res := f.bobAPI.Do(http.MethodGet, "/api/marketplace/earnings", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	want := map[string]any{
		"totals": []any{
			map[string]any{"currency": "EUR", "gross": 2.0, "developerPayout": 1.7, "platformFee": 0.3, "pendingPayout": 0.0, "paidExecutionCount": 1.0},
			map[string]any{"currency": "USD", "gross": 10.6, "developerPayout": 9.01, "platformFee": 1.59, "pendingPayout": 17.0, "paidExecutionCount": 3.0},
		},
		"agents": []any{
			map[string]any{"agentId": euro["id"], "name": "Euro", "slug": "euro", "currency": "EUR", "gross": 2.0, "developerPayout": 1.7,
				"platformFee": 0.3, "pendingPayout": 0.0, "paidExecutionCount": 1.0},
			map[string]any{"agentId": scout["id"], "name": "Scout", "slug": "scout", "currency": "USD", "gross": 10.6, "developerPayout": 9.01,
				"platformFee": 1.59, "pendingPayout": 17.0, "paidExecutionCount": 3.0},
		},
	}
	if got := res.JSON(t); !equalJSON(got, want) {
		t.Fatalf("earnings =\n%v\nwant\n%v", got, want)
	}
	c := f.client("grpcweb", f.annKey)
	out, err := c.GetStoreEarnings(context.Background(), &switchboardv1.GetStoreEarningsRequest{})
	if err != nil || len(out.GetAgents()) != 1 || out.GetAgents()[0].GetName() != "Anns" || out.GetTotals()[0].GetGross() != 1 {
		t.Fatalf("ann's earnings: %v %v", out, err)
	}
	carol := f.s.SignUp("carol")
	empty := f.s.WithKey(carol.NewKey("c", "store")).Do(http.MethodGet, "/api/marketplace/earnings", nil).JSON(t)
	if len(empty["totals"].([]any)) != 0 || len(empty["agents"].([]any)) != 0 {
		t.Fatalf("no listings, earnings = %v", empty)
	}
}

// GET /api/marketplace/fee-info is public (document 1 "Authentication";
// document 2 "Agent store") and states the fee floors of document 2
// "Limits".
func TestFeeInfoIsPublic(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	res := f.s.Anonymous().Do(http.MethodGet, "/api/marketplace/fee-info", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	want := map[string]any{"storeFeePercent": 15.0, "recruitingFeePercent": 10.0, "developerSharePercent": 85.0,
		"currency": "USD", "reviewWindowHours": 48.0,
		"pricingModels": []any{"free", "per_task", "tiered", "dynamic", "subscription"}}
	if got := res.JSON(t); !equalJSON(got, want) {
		t.Fatalf("fee info = %v", got)
	}
	// A bad key does not stop a public route.
	if res := f.s.WithKey("sbk_unknown").Do(http.MethodGet, "/api/marketplace/fee-info", nil); res.Status != http.StatusOK {
		t.Fatalf("with a bad key: %d %s", res.Status, res.Body)
	}
	anon := switchboardv1connect.NewStoreServiceClient(f.s.HTTP, f.s.URL)
	out, err := anon.GetStoreFeeInfo(context.Background(), &switchboardv1.GetStoreFeeInfoRequest{})
	if err != nil || out.GetStoreFeePercent() != 15 || out.GetDeveloperSharePercent() != 85 {
		t.Fatalf("connect, anonymous: %v %v", out, err)
	}
}
