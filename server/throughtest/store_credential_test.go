package throughtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// rawCredential reads the stored column as the database holds it.
func rawCredential(t *testing.T, f *marketFixture, id string) []byte {
	t.Helper()
	var raw []byte
	err := f.s.DB.SQL.QueryRowContext(context.Background(),
		"SELECT auth_credential_encrypted FROM store_agents WHERE id = $1", id).Scan(&raw)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// RULINGS "Store, federation, MCP, A2A": agent credentials are stored
// encrypted at rest. The column holds a value sealed with the instance key
// for this listing only; no answer on any transport and no log line carries
// the credential, only the owner learns that one is set.
func TestCredentialStoredEncryptedNeverAnswered(t *testing.T) {
	t.Parallel()
	key := make([]byte, secrets.KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	f := newMarketFixture(t, servertest.WithSecretKey(key),
		servertest.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	const cred = "tok_live_9f8e7d6c5b4a"
	const rotated = "tok_live_rotated_0001"
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}

	var bodies [][]byte
	keep := func(res *servertest.Response, want int) *servertest.Response {
		t.Helper()
		if res.Status != want {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		bodies = append(bodies, res.Body)
		return res
	}
	res := keep(f.api.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Secretive", "endpointUrl": publicURL,
		"authMethod": "bearer", "authCredential": cred}), http.StatusCreated)
	id := res.JSON(t)["agent"].(map[string]any)["id"].(string)

	raw := rawCredential(t, f, id)
	if len(raw) == 0 || bytes.Contains(raw, []byte(cred)) {
		t.Fatalf("stored column %q is empty or holds the credential", raw)
	}
	if got, err := box.Open(raw, store.CredentialAAD(id)); err != nil || string(got) != cred {
		t.Fatalf("the column does not open to the credential: %q %v", got, err)
	}
	if _, err := box.Open(raw, store.CredentialAAD("another-listing")); err == nil {
		t.Fatal("the sealed credential opens for another listing")
	}

	keep(f.api.Do(http.MethodGet, "/api/marketplace/"+id, nil), http.StatusOK)
	keep(f.api.Do(http.MethodGet, "/api/marketplace?mine=true", nil), http.StatusOK)
	keep(f.bobAPI.Do(http.MethodGet, "/api/marketplace/"+id, nil), http.StatusOK)
	keep(f.bobAPI.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil), http.StatusCreated)
	keep(f.bobAPI.Do(http.MethodPost, "/api/marketplace/"+id+"/subscribe", nil), http.StatusCreated)
	keep(f.api.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"description": "d"}), http.StatusOK)
	if got, _ := box.Open(rawCredential(t, f, id), store.CredentialAAD(id)); string(got) != cred {
		t.Fatalf("an update without authCredential changed it: %q", got)
	}
	// Rotating the credential is a change, but not a breaking one.
	up := keep(f.api.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"authCredential": rotated}), http.StatusOK).JSON(t)
	if ch := up["change"].(map[string]any); ch["breaking"] != false || strs(ch["fields"])[0] != "authCredential" {
		t.Fatalf("rotation change = %v", ch)
	}
	if got, _ := box.Open(rawCredential(t, f, id), store.CredentialAAD(id)); string(got) != rotated {
		t.Fatalf("rotated credential = %q", got)
	}
	// Connect answers too.
	c := f.client("connect+json", f.annKey)
	got, err := c.GetStoreAgent(context.Background(), &switchboardv1.GetStoreAgentRequest{Id: id})
	if err != nil || !got.GetAgent().GetAuthCredentialSet() {
		t.Fatalf("owner's view: %v %v", got, err)
	}
	bodies = append(bodies, []byte(got.String()))
	bobs := f.get(t, f.bobAPI, id)["agent"].(map[string]any)
	if bobs["authCredentialSet"] != nil {
		t.Fatalf("another account learns authCredentialSet: %v", bobs["authCredentialSet"])
	}
	keep(f.api.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"authMethod": "none"}), http.StatusOK)
	if raw := rawCredential(t, f, id); raw != nil {
		t.Fatalf("switching to authMethod none kept the credential: %q", raw)
	}
	// A refused request that carries a credential (another account's id).
	servertest.WantError(t, f.bobAPI.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"authMethod": "bearer", "authCredential": cred}),
		http.StatusNotFound)
	for _, b := range bodies {
		if strings.Contains(string(b), cred) || strings.Contains(string(b), rotated) {
			t.Fatalf("an answer carries the credential: %s", b)
		}
	}
	if out := logs.String(); !strings.Contains(out, "/api/marketplace") || strings.Contains(out, cred) || strings.Contains(out, rotated) {
		t.Fatalf("the logs carry the credential (or nothing was logged):\n%s", out)
	}
}

// RULINGS "Store, federation, MCP, A2A" (decision): without an instance key
// the server cannot store a credential, so a listing that needs one is
// refused with 503 and a clear reason; listings without one still work.
func TestNoSecretKeyRefusesCredentials(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t, servertest.WithoutSecretKey())
	res := f.api.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Needs key", "endpointUrl": publicURL,
		"authMethod": "api_key", "authCredential": "key_123456"})
	servertest.WantError(t, res, http.StatusServiceUnavailable)
	if msg := res.JSON(t)["error"].(string); !strings.Contains(msg, "SWITCHBOARD_SECRET_KEY") || strings.Contains(msg, "key_123456") {
		t.Fatalf("message = %q", msg)
	}
	_, err := f.client("grpc", f.annKey).CreateStoreAgent(context.Background(), &switchboardv1.CreateStoreAgentRequest{
		Agent: &switchboardv1.StoreAgentInput{Name: proto.String("Needs key"), EndpointUrl: proto.String(publicURL),
			AuthMethod: proto.String("bearer"), AuthCredential: proto.String("tok_1")}})
	servertest.WantCode(t, err, connect.CodeUnavailable)
	if n := f.counts(t).agents; n != 0 {
		t.Fatalf("%d listings written", n)
	}
	f.create(t, f.api, map[string]any{"name": "Open agent"})
}
