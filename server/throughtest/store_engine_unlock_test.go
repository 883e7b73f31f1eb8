package throughtest

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const password = "open-sesame-42"

// RULINGS "MCP" (marketplace_unlock) and issue 13 item 3: the right access
// password unlocks a paid agent for the caller, whose next execution makes
// no hold and no revenue, while an account that did not unlock is still
// charged; a wrong password is 403 and writes nothing.
func TestUnlockedCallerIsNotCharged(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	other := f.s.WithKey(f.s.SignUp("other").NewKey("other", "store"))
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "paid work"}) })
	id := f.listing(t, a.URL, map[string]any{"pricingModel": "per_task", "pricePerTask": 2.5, "currency": "EUR", "accessPassword": password})
	unlocks := func() int {
		n, err := f.s.DB.StoreUnlock.Query().Count(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	res := f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/unlock", map[string]any{"accessPassword": "not-the-password"})
	servertest.WantErrorContaining(t, res, http.StatusForbidden, "wrong access password")
	if n := unlocks(); n != 0 {
		t.Fatalf("a wrong password wrote %d unlocks", n)
	}
	res = f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/unlock", map[string]any{"accessPassword": password})
	servertest.WantStatus(t, res, http.StatusOK)
	first := res.JSON(t)
	if first["agentId"] != id || first["unlocked"] != true || first["unlockedAt"] == nil {
		t.Fatalf("unlock answered %v", first)
	}
	// Unlocking again is idempotent: the same answer, one row.
	res = f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/unlock", map[string]any{"accessPassword": password})
	servertest.WantStatus(t, res, http.StatusOK)
	if again := res.JSON(t); again["unlockedAt"] != first["unlockedAt"] || unlocks() != 1 {
		t.Errorf("second unlock: %v (%d rows)", again, unlocks())
	}

	// The listing says so to the caller only, in the detail and in the store.
	for c, want := range map[*servertest.Caller]bool{f.req: true, other: false} {
		if got := c.Do(http.MethodGet, "/api/marketplace/"+id, nil).JSON(t)["agent"].(map[string]any)["unlocked"]; got != want {
			t.Errorf("detail: unlocked = %v, want %v", got, want)
		}
		list := c.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)["agents"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["unlocked"] != want {
			t.Errorf("browse: %v, want unlocked %v", list, want)
		}
	}

	status, out := f.execute(t, f.req, id, map[string]any{"input": "x"})
	if status != 200 || out["status"] != "completed" || out["paymentHoldStatus"] != "none" || out["revenue"] != nil {
		t.Fatalf("unlocked run: %d %v", status, out)
	}
	exID := out["executionId"].(string)
	if n, _ := f.s.DB.PaymentHold.Query().Where(paymenthold.ExecutionID(exID)).Count(t.Context()); n != 0 {
		t.Errorf("the unlocked run made %d holds", n)
	}
	if n, _ := f.s.DB.LedgerEntry.Query().Where(ledgerentry.ExecutionID(exID)).Count(t.Context()); n != 0 {
		t.Errorf("the unlocked run wrote %d ledger lines", n)
	}
	// Another account that did not unlock is charged as before.
	status, out = f.execute(t, other, id, map[string]any{"input": "y"})
	if status != 200 || out["paymentHoldStatus"] != "held" || out["revenue"] == nil {
		t.Fatalf("run of an account that did not unlock: %d %v", status, out)
	}
}

// The refusals of UnlockStoreAgent: a listing without a password is a failed
// precondition; an unknown id, or another account's listing that is not in
// the store, is 404 (RULINGS "Accounts, keys, sessions"); the slug names the
// listing too (the MCP tool takes agentId or slug).
func TestUnlockRefusals(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	open := f.listing(t, "https://agents.example.com/open", map[string]any{"pricingModel": "per_task", "pricePerTask": 1})
	res := f.req.Do(http.MethodPost, "/api/marketplace/"+open+"/unlock", map[string]any{"accessPassword": password})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "has no access password")
	res = f.req.Do(http.MethodPost, "/api/marketplace/unknown-agent/unlock", map[string]any{"accessPassword": password})
	servertest.WantError(t, res, http.StatusNotFound)
	res = f.req.Do(http.MethodPost, "/api/marketplace/"+open+"/unlock", map[string]any{})
	servertest.WantError(t, res, http.StatusBadRequest)

	hidden := f.listing(t, "https://agents.example.com/hidden", map[string]any{"accessPassword": password, "slug": "hidden-agent"})
	if err := f.s.DB.StoreAgent.UpdateOneID(hidden).SetStatus(storeagent.StatusDisabled).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{hidden, "hidden-agent"} {
		res = f.req.Do(http.MethodPost, "/api/marketplace/"+ref+"/unlock", map[string]any{"accessPassword": password})
		servertest.WantError(t, res, http.StatusNotFound)
	}
	// Its owner may still unlock it (harmless: an owner is never charged).
	res = f.dev.Do(http.MethodPost, "/api/marketplace/hidden-agent/unlock", map[string]any{"accessPassword": password})
	servertest.WantStatus(t, res, http.StatusOK)
	if n, _ := f.s.DB.StoreUnlock.Query().Count(t.Context()); n != 1 {
		t.Errorf("%d unlocks, want the owner's only", n)
	}
}

// The Connect twin: the same method, PermissionDenied for a wrong password,
// the slug accepted; a wrong password counts against the auth rate class
// like a login (RULINGS "Rate limits").
func TestUnlockOverConnectAndRateClass(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 10, Heavy: 1000, Federation: 1000}))
	id := f.listing(t, "https://agents.example.com/paid", map[string]any{
		"pricingModel": "per_task", "pricePerTask": 3, "accessPassword": password, "slug": "paid-agent"})
	key := f.s.SignUp("conn").NewKey("conn", "store")
	c := switchboardv1connect.NewStoreServiceClient(f.s.Client("connect"), f.s.URL, connect.WithInterceptors(servertest.BearerInterceptor(key)))
	_, err := c.UnlockStoreAgent(t.Context(), &switchboardv1.UnlockStoreAgentRequest{Id: id, AccessPassword: "wrong-password"})
	servertest.WantCode(t, err, connect.CodePermissionDenied)
	out, err := c.UnlockStoreAgent(t.Context(), &switchboardv1.UnlockStoreAgentRequest{Id: "paid-agent", AccessPassword: password})
	if err != nil || out.GetAgentId() != id || !out.GetUnlocked() || out.GetSlug() != "paid-agent" {
		t.Fatalf("unlock by slug over Connect: %v %v", out, err)
	}
	// Sign-ups, logins and unlocks share the class's 10 a minute per client
	// IP: wrong passwords run into it (the per-key limit is far away).
	for i := range 12 {
		_, err = c.UnlockStoreAgent(t.Context(), &switchboardv1.UnlockStoreAgentRequest{Id: id, AccessPassword: "wrong-password"})
		if connect.CodeOf(err) == connect.CodeResourceExhausted {
			return
		}
		servertest.WantCode(t, err, connect.CodePermissionDenied)
		if i == 11 {
			t.Fatal("12 wrong passwords in a minute were never limited")
		}
	}
}

// Unlocks of the same pair at once all answer 200 with one row (RULINGS
// "Idempotency": unlocking again changes nothing), on PostgreSQL too, where
// the loser of the race reads the winner's row.
func TestConcurrentUnlocks(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 1000, Heavy: 1000, Federation: 1000}))
	id := f.listing(t, "https://agents.example.com/paid", map[string]any{"pricingModel": "per_task", "pricePerTask": 1, "accessPassword": password})
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/unlock", map[string]any{"accessPassword": password}).Status
		}()
	}
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusOK {
			t.Errorf("unlock %d: %d", i, st)
		}
	}
	if n, _ := f.s.DB.StoreUnlock.Query().Count(t.Context()); n != 1 {
		t.Errorf("%d unlock rows, want 1", n)
	}
}

// Issue 35 point 3, RULINGS "Security details (2026-11-28)": unlock attempts
// count against the client IP's auth window and a window of the listing's own
// across IPs (10 a minute each). Ten wrong passwords from one address, sent
// by keys of different accounts over REST and Connect, spend both: the 11th
// is 429 (Retry-After, the error body); another address guessing the same
// listing is 429 too, the right password included (a refusal must not tell
// which guess was right), while it may still try another listing. Nothing is
// written.
func TestUnlockGuessesAreLimitedPerListing(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 10, Heavy: 1000, Federation: 1000}))
	id := f.listing(t, "https://agents.example.com/paid", map[string]any{"pricingModel": "per_task", "pricePerTask": 3, "accessPassword": password})
	open := f.listing(t, "https://agents.example.com/open", map[string]any{"name": "Open", "pricingModel": "per_task", "pricePerTask": 3})
	another := f.listing(t, "https://agents.example.com/other", map[string]any{"name": "Another", "pricingModel": "per_task", "pricePerTask": 3, "accessPassword": "a-different-one"})
	// Each account signs up (auth class) from an address of its own.
	keys := make([]string, 6)
	for i := range keys {
		keys[i] = f.s.From(fmt.Sprintf("127.0.3.%d", i+1)).SignUp(fmt.Sprintf("guesser%d", i)).NewKey("guesser", "store")
	}
	guesser := f.s.From("127.0.0.2")
	unlock := func(c *servertest.Caller, listing, pw string) *servertest.Response {
		return c.Do(http.MethodPost, "/api/marketplace/"+listing+"/unlock", map[string]any{"accessPassword": pw})
	}
	// Refusals before a password is compared are no guesses: they count
	// in no window.
	for range 3 {
		servertest.WantError(t, unlock(guesser.WithKey(keys[0]), open, password), http.StatusBadRequest)
		servertest.WantError(t, unlock(guesser.WithKey(keys[0]), "unknown-agent", password), http.StatusNotFound)
	}
	for i := range 5 {
		servertest.WantError(t, unlock(guesser.WithKey(keys[i]), id, fmt.Sprintf("guess-%d", i)), http.StatusForbidden)
		c := switchboardv1connect.NewStoreServiceClient(guesser.Client("connect"), guesser.URL,
			connect.WithInterceptors(servertest.BearerInterceptor(keys[i])))
		_, err := c.UnlockStoreAgent(t.Context(), &switchboardv1.UnlockStoreAgentRequest{Id: id, AccessPassword: fmt.Sprintf("guess-%d-c", i)})
		servertest.WantCode(t, err, connect.CodePermissionDenied)
	}
	res := unlock(guesser.WithKey(keys[5]), id, "guess-11")
	servertest.WantErrorContaining(t, res, http.StatusTooManyRequests, "rate limit")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	elsewhere := f.s.From("127.0.0.3").WithKey(keys[5])
	servertest.WantErrorContaining(t, unlock(elsewhere, another, "guess-12"), http.StatusForbidden, "wrong access password")
	servertest.WantErrorContaining(t, unlock(elsewhere, id, password), http.StatusTooManyRequests, "rate limit")
	c := switchboardv1connect.NewStoreServiceClient(f.s.From("127.0.0.4").Client("connect"), f.s.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(keys[5])))
	_, err := c.UnlockStoreAgent(t.Context(), &switchboardv1.UnlockStoreAgentRequest{Id: id, AccessPassword: password})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") == "" {
		t.Fatalf("the right password over Connect from a third address: %v", err)
	}
	if n, _ := f.s.DB.StoreUnlock.Query().Count(t.Context()); n != 0 {
		t.Fatalf("refused guesses wrote %d unlocks", n)
	}
}
