package throughtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// toolCall is a bare tools/call body.
func toolCall(name string, args map[string]any) map[string]any {
	return map[string]any{"method": "tools/call", "params": map[string]any{"name": name, "arguments": args}}
}

// Issue 35 point 8, RULINGS "Security details (2026-11-28)": every
// marketplace_* tool counts in the heavy class, marketplace_browse included
// (the REST browse stays in the default class); past the class's limit the
// door answers 429 with Retry-After and the REST error body.
func TestMarketplaceToolsAreHeavy(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 1000, Heavy: 3, Federation: 1000}))
	ann := srv.SignUp("ann")
	mcp := srv.WithKey(ann.NewKey("browser", "mcp", "store"))
	for i := range 3 {
		res := mcp.Do(http.MethodPost, "/api/mcp", toolCall("marketplace_browse", map[string]any{"search": "scout"}))
		servertest.WantStatus(t, res, http.StatusOK)
		if res.JSON(t)["isError"] == true {
			t.Fatalf("browse %d: %s", i+1, res.Body)
		}
	}
	res := mcp.Do(http.MethodPost, "/api/mcp", toolCall("marketplace_browse", map[string]any{}))
	servertest.WantErrorContaining(t, res, http.StatusTooManyRequests, "rate limit")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	res = mcp.Do(http.MethodPost, "/api/mcp", toolCall("marketplace_unlock", map[string]any{"slug": "any", "accessPassword": "x"}))
	servertest.WantErrorContaining(t, res, http.StatusTooManyRequests, "rate limit")
	// The REST browse is in the default class only.
	servertest.WantStatus(t, mcp.Do(http.MethodGet, "/api/marketplace", nil), http.StatusOK)
	// Tools outside the store are not heavy.
	servertest.WantStatus(t, srv.WithKey(ann.NewKey("modes", "mcp")).Do(http.MethodPost, "/api/mcp", toolCall("mode_get", map[string]any{})), http.StatusOK)
}

// Issue 35 point 3, RULINGS "Security details (2026-11-28)": marketplace_unlock
// calls the store's unlock, so its guesses share the listing's window with
// the API's: after ten wrong passwords over REST from another address, the
// right password over MCP is refused as a rate limit (an isError result, as
// every refusal of a tool) and unlocks nothing.
func TestMarketplaceUnlockSharesTheListingWindow(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 10, Heavy: 1000, Federation: 1000}))
	dora := srv.From("127.0.4.1").SignUp("dora")
	listing := dora.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Paid Scout",
		"endpointUrl": "https://agents.example.com/scout", "pricingModel": "per_task", "pricePerTask": 2.5,
		"accessPassword": "open sesame please"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	slug := listing.JSON(t)["agent"].(map[string]any)["slug"].(string)

	// eve signs up (auth class) elsewhere than she guesses from.
	eveKey := srv.From("127.0.4.2").SignUp("eve").NewKey("eve", "store")
	eve := srv.From("127.0.4.4")
	for i := range 10 {
		res := eve.WithKey(eveKey).Do(http.MethodPost, "/api/marketplace/"+slug+"/unlock", map[string]any{"accessPassword": fmt.Sprintf("guess-%d", i)})
		servertest.WantError(t, res, http.StatusForbidden)
	}
	ann := srv.From("127.0.4.3").SignUp("ann")
	res := srv.WithKey(ann.NewKey("buyer", "mcp", "store")).Do(http.MethodPost, "/api/mcp",
		toolCall("marketplace_unlock", map[string]any{"slug": slug, "accessPassword": "open sesame please"}))
	servertest.WantStatus(t, res, http.StatusOK)
	if b := res.JSON(t); b["isError"] != true || !strings.Contains(fmt.Sprint(b["content"]), "rate limit") {
		t.Fatalf("the right password after the listing's window was spent: %s", res.Body)
	}
	if n, _ := srv.DB.StoreUnlock.Query().Count(t.Context()); n != 0 {
		t.Fatalf("a refused unlock wrote %d unlocks", n)
	}
}
