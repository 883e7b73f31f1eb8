package throughtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// twoReplicas are two servers on one PostgreSQL database, each with its own
// connections (and so its own event bus), as two processes are. Only on the
// PostgreSQL leg: SQLite has one process.
func twoReplicas(t *testing.T, opts ...servertest.Option) (a, b *servertest.Server, ok bool) {
	t.Helper()
	if os.Getenv(dbtest.TestPostgresEnv) == "" {
		t.Logf("needs PostgreSQL (%s): absent on the SQLite leg", dbtest.TestPostgresEnv)
		return nil, nil, false
	}
	dsn := dbtest.DSN(t)
	open := func() *db.DB {
		d, err := db.Open(context.Background(), dsn)
		if err != nil {
			t.Fatalf("open %s: %v", db.Redact(dsn), err)
		}
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	a = servertest.New(t, append(opts, servertest.WithDB(open()))...)
	b = servertest.New(t, append(opts, servertest.WithDB(open()))...)
	return a, b, true
}

// Issue 32 point 2: an install made through one replica reaches an MCP
// session held on another as tools/list_changed (the door hears the bus's
// store_changed, which every replica delivers).
func TestListChangedReachesSessionsOnEveryReplica(t *testing.T) {
	a, b, ok := twoReplicas(t, servertest.WithPrivateEndpoints())
	if !ok {
		return
	}
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"done"}`))
	}))
	t.Cleanup(agent.Close)
	dora := a.SignUp("dora")
	listing := dora.Session.Do("POST", "/api/marketplace", map[string]any{"name": "Research Scout", "endpointUrl": agent.URL, "pricingModel": "free"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	id := listing.JSON(t)["agent"].(map[string]any)["id"].(string)

	ann := a.SignUp("ann")
	changed := make(chan struct{}, 8)
	cs := mcpConnect(t, b, ann.NewKey("tools", "mcp", "store"), &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)
	waitChanged(t, changed)
	servertest.WantStatus(t, ann.Session.Do("DELETE", "/api/marketplace/"+id+"/install", nil), http.StatusOK)
	waitChanged(t, changed)
}
