package throughtest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// paidPack is a one_time pack behind an access password, without an
// integration.
func paidPack(name, password string) map[string]any {
	p := samplePack()
	p["name"], p["pricingModel"], p["price"], p["accessPassword"] = name, "one_time", 4.99, password
	return p
}

// want429 checks a REST rate-limit refusal: 429, Retry-After, the error body.
func want429(t *testing.T, res *servertest.Response, what string) {
	t.Helper()
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("%s: %d (Retry-After %q) %s", what, res.Status, res.Header.Get("Retry-After"), res.Body)
	}
	if b := res.JSON(t); b["success"] != false || !strings.Contains(fmt.Sprint(b["error"]), "rate limit") {
		t.Fatalf("%s: body %s", what, res.Body)
	}
}

// Issue 35 point 3, RULINGS "Security details (2026-11-28)": a pack's access
// password is guessed against the client IP's auth window (the one logins
// share: 10 a minute) and a window of the pack's own across IPs (10 a
// minute). Eleven accounts' keys from one address: the 11th wrong password is
// 429 whichever key sends it, and so is the right password once the window is
// spent (a refusal must not tell which guess was right), on REST and every
// Connect protocol, with Retry-After, writing nothing; logins from that
// address are limited too. From another address the same pack stays locked
// (its own window), while another pack may still be tried.
func TestPackPasswordGuessesAreLimited(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 10, Heavy: 1000, Federation: 1000}))
	// Sign-ups and logins are in the auth class too: each account signs up
	// from an address of its own, so only the guesses count at 127.0.0.1.
	owner := s.From("127.0.1.1").SignUp("owner")
	ownerAPI := s.WithKey(owner.NewKey("owner", "store"))
	const password = "letmein-please"
	locked := createPack(t, ownerAPI, paidPack("Locked", password))
	other := createPack(t, ownerAPI, paidPack("Other", "another-secret"))
	keys := make([]string, 12)
	for i := range keys {
		keys[i] = s.From(fmt.Sprintf("127.0.2.%d", i+1)).SignUp(fmt.Sprintf("guesser%d", i)).NewKey("guesser", "store")
	}
	installs := func() int { return s.DB.CapabilityInstall.Query().CountX(t.Context()) }
	before := installs()

	install := func(c *servertest.Caller, id, pw string) *servertest.Response {
		return c.Do(http.MethodPost, capsPath, map[string]any{"capabilityId": id, "accessPassword": pw})
	}
	for i := range 10 {
		if res := install(s.WithKey(keys[i]), locked, fmt.Sprintf("guess-%d", i)); res.Status != http.StatusPaymentRequired {
			t.Fatalf("wrong password %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	want429(t, install(s.WithKey(keys[10]), locked, "guess-10"), "the 11th wrong password from one address")
	want429(t, install(s.WithKey(keys[10]), other, "guess-11"), "another pack from the same address")
	want429(t, install(s.WithKey(keys[11]), locked, password), "the right password in a spent window")
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(keys[11])))
		c := switchboardv1connect.NewCapabilityServiceClient(s.Client(name), s.URL, opts...)
		_, err := c.InstallOrCreateCapability(t.Context(), &switchboardv1.InstallOrCreateCapabilityRequest{
			CapabilityId: locked, AccessPassword: proto.String(password)})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") == "" {
			t.Fatalf("%s: the right password in a spent window: %v", name, err)
		}
	}
	want429(t, s.Anonymous().Do(http.MethodPost, "/api/auth/login",
		map[string]any{"username": "owner", "password": servertest.Password}), "a login from the guessing address")

	// Another address: the pack's own window is spent, another pack is not.
	elsewhere := s.From("127.0.0.2").WithKey(keys[11])
	if res := install(elsewhere, other, "guess-12"); res.Status != http.StatusPaymentRequired {
		t.Fatalf("another pack from another address: %d %s", res.Status, res.Body)
	}
	want429(t, install(elsewhere, locked, password), "the guessed pack from another address")
	if n := installs(); n != before {
		t.Fatalf("refused guesses wrote %d installs", n-before)
	}
}

// createPack creates a pack over REST and answers its id.
func createPack(t *testing.T, api *servertest.Caller, body map[string]any) string {
	t.Helper()
	res := api.Do(http.MethodPost, capsPath, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body["name"], res.Status, res.Body)
	}
	return res.JSON(t)["capability"].(map[string]any)["capabilityId"].(string)
}
