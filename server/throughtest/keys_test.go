package throughtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/apikey"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Accounts, keys, sessions": the key is shown once and stored hashed.
func TestCreateKeyShownOnceStoredHashed(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	res := ann.Session.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": " deploy bot ", "scopes": []string{"settings", "queue", "queue"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	value, _ := body["apiKey"].(string)
	if !strings.HasPrefix(value, auth.KeyPrefix) || len(value) < 40 {
		t.Fatalf("apiKey = %q", value)
	}
	k := body["key"].(map[string]any)
	if k["label"] != "deploy bot" || k["active"] != true || !strings.HasPrefix(value, k["prefix"].(string)) {
		t.Fatalf("key = %v", k)
	}
	if scopes := k["scopes"].([]any); len(scopes) != 2 || scopes[0] != "queue" || scopes[1] != "settings" {
		t.Fatalf("scopes = %v, want [queue settings]", scopes)
	}
	row, err := s.DB.APIKey.Get(context.Background(), k["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if row.KeyHash == value || strings.Contains(row.KeyHash, value[len(auth.KeyPrefix):]) || row.KeyHash != auth.HashToken(value) {
		t.Fatalf("stored key_hash is not the hash of the key")
	}
	list := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil)
	if list.Status != 200 || strings.Contains(string(list.Body), value) || strings.Contains(string(list.Body), "apiKey") {
		t.Fatalf("list shows the key value: %s", list.Body)
	}
	if n := len(list.JSON(t)["keys"].([]any)); n != 1 {
		t.Fatalf("listed %d keys", n)
	}
}

func TestCreateKeyRefusals(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	cases := map[string]any{
		"missing label":  map[string]any{"scopes": []string{}},
		"blank label":    map[string]any{"label": "   "},
		"unknown scope":  map[string]any{"label": "x", "scopes": []string{"queue", "everything"}},
		"past expiry":    map[string]any{"label": "x", "expiresAt": "2001-01-01T00:00:00Z"},
		"bad expiry":     map[string]any{"label": "x", "expiresAt": "tomorrow"},
		"scopes as text": map[string]any{"label": "x", "scopes": "queue"},
		"malformed":      `{"label": "x"`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			servertest.WantError(t, ann.Session.Do(http.MethodPost, "/api/v2/keys", body), http.StatusBadRequest)
		})
	}
	if n, _ := s.DB.APIKey.Query().Count(context.Background()); n != 0 {
		t.Fatalf("refused creations stored %d keys", n)
	}
}

// Document 1 "Authentication" rule 5 and RULINGS: 401 for missing or unknown,
// 403 for expired, deactivated or out of scope.
func TestKeyAuthStatuses(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	good := ann.NewKey("good")
	queueOnly := ann.NewKey("queue only", "queue")
	deactivated := ann.NewKey("old")
	expiring := createExpiring(t, ann, s.Clock.Now().Add(time.Hour))

	keys := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)
	var oldID string
	for _, k := range keys {
		if k.(map[string]any)["label"] == "old" {
			oldID = k.(map[string]any)["id"].(string)
		}
	}
	if res := ann.Session.Do(http.MethodDelete, "/api/v2/keys/"+oldID, nil); res.Status != 200 || res.JSON(t)["key"].(map[string]any)["active"] != false {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	s.Clock.Advance(2 * time.Hour)

	cases := []struct {
		name   string
		header string
		status int
	}{
		{"good", "Bearer " + good, 200},
		{"no key", "", 401},
		{"unknown key", "Bearer sbk_doesnotexist", 401},
		{"malformed header", "Token " + good, 401},
		{"empty bearer", "Bearer ", 401},
		{"deactivated", "Bearer " + deactivated, 403},
		{"expired", "Bearer " + expiring, 403},
		{"out of scope", "Bearer " + queueOnly, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := s.Anonymous()
			var hdr []string
			if tc.header != "" {
				hdr = []string{"Authorization", tc.header}
			}
			res := c.Do(http.MethodGet, "/api/v2/settings", nil, hdr...)
			if tc.status != 200 {
				servertest.WantError(t, res, tc.status)
			} else {
				servertest.WantStatus(t, res, tc.status)
			}
			// The same decision on Connect, as its own code.
			client := switchboardv1connect.NewSettingsServiceClient(s.HTTP, s.URL, connect.WithProtoJSON(),
				connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
					return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
						if tc.header != "" {
							req.Header().Set("Authorization", tc.header)
						}
						return next(ctx, req)
					}
				})))
			_, err := client.GetSettings(context.Background(), &switchboardv1.GetSettingsRequest{})
			want := map[int]connect.Code{401: connect.CodeUnauthenticated, 403: connect.CodePermissionDenied}[tc.status]
			if tc.status == 200 {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				return
			}
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != want {
				t.Fatalf("Connect error = %v, want %v", err, want)
			}
		})
	}
}

func createExpiring(t *testing.T, a *servertest.Account, at time.Time) string {
	t.Helper()
	res := a.Session.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": "temp", "expiresAt": at.Format(time.RFC3339)})
	if res.Status != 201 {
		t.Fatalf("create expiring key: %d %s", res.Status, res.Body)
	}
	if got := res.JSON(t)["key"].(map[string]any)["expiresAt"]; got == nil {
		t.Fatalf("expiresAt not echoed")
	}
	return res.JSON(t)["apiKey"].(string)
}

// Keys are managed from a session only; and another account's key is a 404.
func TestKeyManagementIsSessionOnlyAndIsolated(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	bob := s.SignUp("bob")
	annKey := ann.NewKey("agent")
	bob.NewKey("bob's")
	if res := s.WithKey(annKey).Do(http.MethodGet, "/api/v2/keys", nil); res.Status != http.StatusForbidden {
		t.Fatalf("listing keys with a key: %d %s", res.Status, res.Body)
	}
	if res := s.Anonymous().Do(http.MethodGet, "/api/v2/keys", nil); res.Status != http.StatusUnauthorized {
		t.Fatalf("listing keys anonymously: %d %s", res.Status, res.Body)
	}
	bobKeys := bob.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)
	bobKeyID := bobKeys[0].(map[string]any)["id"].(string)
	annKeys := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)
	if len(annKeys) != 1 || annKeys[0].(map[string]any)["id"] == bobKeyID {
		t.Fatalf("ann sees %v", annKeys)
	}
	for _, id := range []string{bobKeyID, "does-not-exist"} {
		if res := ann.Session.Do(http.MethodDelete, "/api/v2/keys/"+id, nil); res.Status != http.StatusNotFound {
			t.Fatalf("deleting %s: %d %s", id, res.Status, res.Body)
		}
	}
	active, err := s.DB.APIKey.Query().Where(apikey.ID(bobKeyID), apikey.Active(true)).Exist(context.Background())
	if err != nil || !active {
		t.Fatalf("bob's key was touched: active=%v err=%v", active, err)
	}
	// CSRF: a session DELETE without a same-origin Origin is refused.
	if res := ann.Session.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": "x"}, "Origin", ""); res.Status != http.StatusForbidden {
		t.Fatalf("session POST without Origin: %d %s", res.Status, res.Body)
	}
}

// Key use is recorded, at most once a minute.
func TestLastUsedAt(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("agent")
	s.WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil)
	k := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)[0].(map[string]any)
	if k["lastUsedAt"] == nil {
		t.Fatalf("lastUsedAt not recorded: %v", k)
	}
}

// Key look-ups are cached for a second (docs/decisions.md); deactivating a key
// clears the cache, so a key in active use is refused on its very next request.
func TestDeactivatedKeyRefusedAtOnce(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	key := ann.NewKey("busy")
	c := s.WithKey(key)
	for range 3 {
		if res := c.Do(http.MethodGet, "/api/v2/settings", nil); res.Status != 200 {
			t.Fatalf("before: %d %s", res.Status, res.Body)
		}
	}
	keys := ann.Session.Do(http.MethodGet, "/api/v2/keys", nil).JSON(t)["keys"].([]any)
	id := keys[0].(map[string]any)["id"].(string)
	if res := ann.Session.Do(http.MethodDelete, "/api/v2/keys/"+id, nil); res.Status != 200 {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	if res := c.Do(http.MethodGet, "/api/v2/settings", nil); res.Status != 403 {
		t.Fatalf("after deactivation: %d %s, want 403", res.Status, res.Body)
	}
}
