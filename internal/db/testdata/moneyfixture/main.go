// Command moneyfixture writes the database the money migration is tested
// against: amounts as doubles, in the schema of commit 10a3e48 (before money
// was kept in cents). It builds only there (a testdata directory is outside
// the module's packages); to write the fixtures again:
//
//	git archive 10a3e48 | tar -x -C /tmp/sb10a3e48
//	cp -r internal/db/testdata/moneyfixture /tmp/sb10a3e48/internal/db/testdata/
//	cd /tmp/sb10a3e48 && go run ./internal/db/testdata/moneyfixture sqlite:money-v0.sqlite
//	go run ./internal/db/testdata/moneyfixture 'postgres://…/test?search_path=money_fixture'
//	pg_dump -n money_fixture --inserts --no-owner --no-privileges … (then drop the schema qualifier)
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// password is servertest.Password, so tests can log the fixture's users in.
const password = "correct horse battery"

var at = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func main() {
	ctx := context.Background()
	d, err := db.Open(ctx, os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	if err := write(ctx, d.Client); err != nil {
		log.Fatal(err)
	}
	fmt.Println("written")
}

func write(ctx context.Context, c *ent.Client) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		return err
	}
	for _, u := range []struct{ id, name string }{{"fx_alice", "alice"}, {"fx_bob", "bob"}} {
		err := c.User.Create().SetID(u.id).SetUsername(u.name).SetEmail(u.name + "@example.com").SetName(u.name).
			SetPasswordHash(string(hash)).SetCreatedAt(at).SetUpdatedAt(at).Exec(ctx)
		if err != nil {
			return err
		}
	}
	limit := int32(100)
	agents := []struct {
		id, model, currency string
		price               float64
		config              *schema.PricingConfig
	}{
		{"fx_agent_writer", "per_task", "USD", 2.5, &schema.PricingConfig{Model: "tiered", Tiers: []schema.PricingTier{
			{Name: "basic", PricePerTask: 2.12, TaskLimit: &limit}, {Name: "pro", PricePerTask: 19.99}}}},
		{"fx_agent_quoter", "dynamic", "USD", 0, &schema.PricingConfig{Model: "dynamic",
			DynamicConfig: &schema.DynamicPricing{EstimateRange: []float64{0.38, 19.99}, RequiresApproval: true}}},
		// Accepted before money was kept in cents: three decimals.
		{"fx_agent_euro", "per_task", "EUR", 2.125, nil},
		{"fx_agent_free", "free", "USD", 0, nil},
	}
	for i, a := range agents {
		m := c.StoreAgent.Create().SetID(a.id).SetUserID("fx_alice").SetName(a.id).SetSlug(a.id[3:]).
			SetPricingModel(a.model).SetPricePerTask(a.price).SetCurrency(a.currency).
			SetCreatedAt(at.Add(time.Duration(i) * time.Minute)).SetUpdatedAt(at)
		if a.config != nil {
			m.SetPricingConfig(a.config)
		}
		if err := m.Exec(ctx); err != nil {
			return err
		}
	}
	for i, p := range []struct {
		id, model string
		price     float64
	}{{"fx_pack_paid", "one_time", 19.99}, {"fx_pack_cheap", "one_time", 0.38}, {"fx_pack_free", "free", 0}} {
		err := c.CapabilityPack.Create().SetID(p.id).SetUserID("fx_alice").SetName(p.id).SetPrompt("Do {{thing}}").
			SetPricingModel(p.model).SetPrice(p.price).SetCreatedAt(at.Add(time.Duration(i) * time.Minute)).SetUpdatedAt(at).Exec(ctx)
		if err != nil {
			return err
		}
	}
	if err := executions(ctx, c); err != nil {
		return err
	}
	for i, p := range []*float64{ptr(1234.56), ptr(0.38), nil} {
		err := c.Card.Create().SetID(fmt.Sprintf("fx_card_%d", i)).SetUserID("fx_bob").SetTitle(fmt.Sprintf("card %d", i)).
			SetNillableProjectPrice(p).SetCreatedAt(at).SetUpdatedAt(at).Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

func executions(ctx context.Context, c *ent.Client) error {
	// Captured: 2.50 split 2.12 / 0.38 at 15 %.
	err := c.Execution.Create().SetID("fx_ex_captured").SetUserID("fx_bob").SetAgentID("fx_agent_writer").
		SetStatus("completed").SetInput("write").SetOutput("done").SetPaymentHoldStatus("captured").
		SetReviewStatus("confirmed").SetCurrency("USD").SetGross(2.5).SetDeveloperPayout(2.12).SetPlatformFee(0.38).
		SetFeePercent(15).SetCreatedAt(at).SetUpdatedAt(at).Exec(ctx)
	if err != nil {
		return err
	}
	// Held: 2.125 charged as 2.13, split 1.81 / 0.32.
	err = c.Execution.Create().SetID("fx_ex_held").SetUserID("fx_bob").SetAgentID("fx_agent_euro").
		SetStatus("completed").SetInput("write").SetOutput("done").SetPaymentHoldStatus("held").
		SetReviewStatus("pending_review").SetReviewWidgetShownAt(at).SetCurrency("EUR").SetGross(2.13).
		SetDeveloperPayout(1.81).SetPlatformFee(0.32).SetFeePercent(15).SetCreatedAt(at.Add(time.Minute)).SetUpdatedAt(at).Exec(ctx)
	if err != nil {
		return err
	}
	// Quoted, waiting for approval.
	err = c.Execution.Create().SetID("fx_ex_quoted").SetUserID("fx_bob").SetAgentID("fx_agent_quoter").
		SetStatus("running").SetInput("estimate").SetPricingPhase("quoted").SetQuoteAmount(19.99).
		SetQuoteCurrency("USD").SetQuoteBreakdown("one page").SetStartedAt(at).SetCreatedAt(at.Add(2 * time.Minute)).SetUpdatedAt(at).Exec(ctx)
	if err != nil {
		return err
	}
	if err := c.StoreAgent.UpdateOneID("fx_agent_quoter").SetCurrentExecutionID("fx_ex_quoted").Exec(ctx); err != nil {
		return err
	}
	holds := []struct {
		id, ex, status, cur string
		amount, payout, fee float64
		lines               []float64
	}{
		{"fx_hold_captured", "fx_ex_captured", "captured", "USD", 2.5, 2.12, 0.38, []float64{-2.5, 2.12, 0.38}},
		{"fx_hold_held", "fx_ex_held", "held", "EUR", 2.13, 1.81, 0.32, []float64{-2.13}},
	}
	kinds := []string{"authorize", "capture_developer", "capture_platform"}
	accounts := []string{"fx_bob", "fx_alice", "platform"}
	for _, h := range holds {
		err := c.PaymentHold.Create().SetID(h.id).SetExecutionID(h.ex).SetPayerID("fx_bob").SetPayeeID("fx_alice").
			SetPaymentMethodID("ledger_default").SetAmount(h.amount).SetCurrency(h.cur).SetDeveloperPayout(h.payout).
			SetPlatformFee(h.fee).SetFeePercent(15).SetStatus(paymentStatus(h.status)).SetExpiresAt(at.Add(7 * 24 * time.Hour)).
			SetCreatedAt(at).SetUpdatedAt(at).Exec(ctx)
		if err != nil {
			return err
		}
		for i, amount := range h.lines {
			err := c.LedgerEntry.Create().SetID(fmt.Sprintf("%s_%d", h.id, i)).SetHoldID(h.id).SetExecutionID(h.ex).
				SetKind(kinds[i]).SetAccount(accounts[i]).SetAmount(amount).SetCurrency(h.cur).
				SetCreatedAt(at.Add(time.Duration(i) * time.Second)).SetUpdatedAt(at).Exec(ctx)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func ptr(f float64) *float64 { return &f }

func paymentStatus(s string) paymenthold.Status { return paymenthold.Status(s) }
