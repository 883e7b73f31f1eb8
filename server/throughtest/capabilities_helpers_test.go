package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const capsPath = "/api/marketplace-capabilities"

// capsFixture is a server with two accounts, ann and bob, each with a key of the
// store scope.
type capsFixture struct{ storeAccounts }

func newCapsFixture(t *testing.T, opts ...servertest.Option) *capsFixture {
	t.Helper()
	return &capsFixture{newStoreAccounts(t, opts...)}
}

// client is a Connect client over protocol (a key of servertest.Protocols).
func (f *capsFixture) client(protocol, key string) switchboardv1connect.CapabilityServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewCapabilityServiceClient(f.s.Client(protocol), f.s.URL, opts...)
}

// samplePack is a free pack with two editable fields, one with a default.
func samplePack() map[string]any {
	return map[string]any{
		"action": "create", "name": "Follow-up writer", "description": "Writes polite follow-ups",
		"icon": "✉️", "category": "writing", "pricingModel": "free",
		"prompt": "Write a follow-up to {{recipient}} in a {{ tone }} tone. Sign as {{recipient}}'s friend.",
		"editableFields": `[{"name":"recipient","label":"Recipient","type":"text","default":""},` +
			`{"name":"tone","label":"Tone","type":"text","default":"warm"}]`,
	}
}

// create makes a pack over REST and answers it.
func (f *capsFixture) create(t *testing.T, api *servertest.Caller, body map[string]any) map[string]any {
	t.Helper()
	res := api.Do(http.MethodPost, capsPath, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["capability"].(map[string]any)
}

// counts are the rows a refusal must leave alone.
func (f *capsFixture) counts(t *testing.T) [2]int {
	t.Helper()
	ctx := context.Background()
	packs, err := f.s.DB.CapabilityPack.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	installs, err := f.s.DB.CapabilityInstall.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return [2]int{packs, installs}
}
