package federation_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestWellKnownDocument: RULINGS "How one instance calls another" and
// "Details for the house issue": the well-known's plain GET answers the
// instance's document {name, version, protocols} without a signature (what
// a peer reads to choose its wire), and a verification (?nonce=) still
// needs a secret being proven (404 without one).
func TestWellKnownDocument(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL())
	res := s.Anonymous().Do(http.MethodGet, federation.WellKnownPath, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	doc := res.JSON(t)
	u, _ := url.Parse(s.URL)
	protocols, _ := doc["protocols"].([]any)
	if doc["name"] != u.Host || doc["signature"] != nil || doc["nonce"] != nil ||
		!slices.Equal(protocols, []any{"connect", "rest"}) {
		t.Fatalf("document: %s", res.Body)
	}
	if _, ok := doc["version"].(string); !ok {
		t.Fatalf("no version: %s", res.Body)
	}
	servertest.WantError(t, s.Anonymous().Do(http.MethodGet, federation.WellKnownPath+"?nonce=abc", nil), http.StatusNotFound)
}
