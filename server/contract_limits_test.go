package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary": the contract's limits are the only ones.
// A value at a field's contract limit is taken where a handler used to
// refuse it with a tighter limit of its own, and one character more is 400
// naming the field (the contract's refusal). The store's execute inputs are
// TestExecuteTakesInputsAtTheContractLimit.
func TestContractLimitsAreTheOnlyLimits(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := s.WithKey(ann.NewKey("all", "chat", "store"))
	query := func(path, field string, n int) string {
		return path + url.Values{field: {strings.Repeat("a", n)}}.Encode()
	}
	for _, tc := range []struct {
		name, method, field string
		limit               int
		caller              *servertest.Caller
		call                func(c *servertest.Caller, n int) *servertest.Response
	}{
		{"mention search", http.MethodGet, "q", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/chat/mentions?type=people&", "q", n), nil)
		}},
		{"store browse", http.MethodGet, "search", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace?", "search", n), nil)
		}},
		{"pack browse", http.MethodGet, "search", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace-capabilities?", "search", n), nil)
		}},
		{"pack browse category", http.MethodGet, "category", 1000, key, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodGet, query("/api/marketplace-capabilities?", "category", n), nil)
		}},
		{"API key label", http.MethodPost, "label", 500, ann.Session, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": strings.Repeat("l", n)})
		}},
		{"developer key label", http.MethodPost, "label", 500, ann.Session, func(c *servertest.Caller, n int) *servertest.Response {
			return c.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": strings.Repeat("l", n)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := tc.call(tc.caller, tc.limit); res.Status != http.StatusOK && res.Status != http.StatusCreated {
				t.Errorf("%s at the contract's limit (%d): %d %s", tc.field, tc.limit, res.Status, res.Body)
			}
			servertest.WantErrorContaining(t, tc.call(tc.caller, tc.limit+1), http.StatusBadRequest, tc.field)
		})
	}
}
