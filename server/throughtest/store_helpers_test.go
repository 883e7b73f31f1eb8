package throughtest

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// publicURL is a public address literal: the address rule passes it without
// a DNS look-up, and nothing in these tests ever calls it.
const publicURL = "https://93.184.215.14/agent"

// marketFixture is a server with two accounts, ann and bob, each with a key.
type marketFixture struct{ storeAccounts }

// newMarketFixture starts the server; call it before t.Parallel(), since ent's
// migration is not safe to run concurrently.
func newMarketFixture(t *testing.T, opts ...servertest.Option) *marketFixture {
	t.Helper()
	return &marketFixture{newStoreAccounts(t, opts...)}
}

// client is a Connect client over protocol (a key of servertest.Protocols).
func (f *marketFixture) client(protocol, key string) switchboardv1connect.StoreServiceClient {
	opts := append(servertest.Protocols()[protocol], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewStoreServiceClient(f.s.Client(protocol), f.s.URL, opts...)
}

// create registers a listing over REST and answers it.
func (f *marketFixture) create(t *testing.T, api *servertest.Caller, body map[string]any) map[string]any {
	t.Helper()
	if _, ok := body["endpointUrl"]; !ok {
		body["endpointUrl"] = publicURL
	}
	res := api.Do(http.MethodPost, "/api/marketplace", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)["agent"].(map[string]any)
}

// put updates a listing over REST and answers the whole body.
func (f *marketFixture) put(t *testing.T, api *servertest.Caller, id string, body map[string]any) map[string]any {
	t.Helper()
	res := api.Do(http.MethodPut, "/api/marketplace/"+id, body)
	if res.Status != http.StatusOK {
		t.Fatalf("put %v: %d %s", body, res.Status, res.Body)
	}
	return res.JSON(t)
}

// get answers GET /api/marketplace/{id} whole.
func (f *marketFixture) get(t *testing.T, api *servertest.Caller, id string) map[string]any {
	t.Helper()
	res := api.Do(http.MethodGet, "/api/marketplace/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, res.Status, res.Body)
	}
	return res.JSON(t)
}

// storeRowCounts are the rows a store write may touch.
type storeRowCounts struct{ agents, installs, subscriptions, memory, executions int }

func (f *marketFixture) counts(t *testing.T) storeRowCounts {
	t.Helper()
	ctx := context.Background()
	var rc storeRowCounts
	var err error
	for _, c := range []struct {
		dst *int
		q   func() (int, error)
	}{
		{&rc.agents, func() (int, error) { return f.s.DB.StoreAgent.Query().Count(ctx) }},
		{&rc.installs, func() (int, error) { return f.s.DB.StoreInstall.Query().Count(ctx) }},
		{&rc.subscriptions, func() (int, error) { return f.s.DB.StoreSubscription.Query().Count(ctx) }},
		{&rc.memory, func() (int, error) { return f.s.DB.MemoryEntry.Query().Count(ctx) }},
		{&rc.executions, func() (int, error) { return f.s.DB.Execution.Query().Count(ctx) }},
	} {
		if *c.dst, err = c.q(); err != nil {
			t.Fatal(err)
		}
	}
	return rc
}

// execution stores an execution of agentID by userID directly (the engine
// that makes them comes later; rating and earnings read them).
func (f *marketFixture) execution(t *testing.T, userID, agentID string, edit func(*ent.ExecutionCreate)) *ent.Execution {
	t.Helper()
	c := f.s.DB.Execution.Create().SetUserID(userID).SetAgentID(agentID).SetStatus(execution.StatusCompleted).
		SetInput("Summarise the report").SetCreatedAt(f.s.Clock.Now()).SetUpdatedAt(f.s.Clock.Now())
	if edit != nil {
		edit(c)
	}
	row, err := c.Save(context.Background())
	if err != nil {
		t.Fatalf("create execution: %v", err)
	}
	return row
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func equalJSON(a, b any) bool { return reflect.DeepEqual(a, b) }
