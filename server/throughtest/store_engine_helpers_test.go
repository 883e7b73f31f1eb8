package throughtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// call is one request a fake agent received.
type call struct {
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// engineAgent is a fake agent server on loopback (something outside the machine:
// the store calls real agents over HTTP). answer decides each reply.
type engineAgent struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []call
	answer func(c call, w http.ResponseWriter)
}

func newEngineAgent(t *testing.T, answer func(c call, w http.ResponseWriter)) *engineAgent {
	t.Helper()
	a := &engineAgent{answer: answer}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := call{Header: r.Header.Clone(), Raw: raw}
		_ = json.Unmarshal(raw, &c.Body)
		a.mu.Lock()
		a.calls = append(a.calls, c)
		a.mu.Unlock()
		a.answer(c, w)
	}))
	t.Cleanup(a.Server.Close)
	return a
}

func (a *engineAgent) received() []call {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]call(nil), a.calls...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// engineFixture is a server (private endpoints allowed: the agents are on
// loopback) with two accounts: dev owns listings, req executes them.
type engineFixture struct {
	s        *servertest.Server
	dev, req *servertest.Caller
	reqID    string
	devID    string
	reqKey   string
}

func withExecutions(x server.ExecutionConfig) servertest.Option {
	return func(c *server.Config) { c.Executions = x }
}

// newEngineFixture starts the server (after t.Parallel(), like the store's tests).
func newEngineFixture(t *testing.T, opts ...servertest.Option) *engineFixture {
	t.Helper()
	opts = append([]servertest.Option{servertest.WithPrivateEndpoints(),
		withExecutions(server.ExecutionConfig{CallTimeout: 2 * time.Second, BreakerOpenFor: time.Minute})}, opts...)
	s := servertest.New(t, opts...)
	dev, req := s.SignUp("dev"), s.SignUp("req")
	reqKey := req.NewKey("req", "store")
	return &engineFixture{s: s, dev: s.WithKey(dev.NewKey("dev", "store")), req: s.WithKey(reqKey),
		devID: dev.ID, reqID: req.ID, reqKey: reqKey}
}

// listing registers an agent of dev's calling url.
func (f *engineFixture) listing(t *testing.T, url string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{"name": "Agent " + t.Name(), "endpointUrl": url}
	for k, v := range extra {
		body[k] = v
	}
	res := f.dev.Do(http.MethodPost, "/api/marketplace", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create listing: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["agent"].(map[string]any)["id"].(string)
}

// execute posts an execute and answers status and body.
func (f *engineFixture) execute(t *testing.T, c *servertest.Caller, id string, body map[string]any) (int, map[string]any) {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/marketplace/"+id+"/execute", body)
	var m map[string]any
	_ = json.Unmarshal(res.Body, &m)
	return res.Status, m
}

// row reads an execution straight from the database.
func (f *engineFixture) row(t *testing.T, id string) *ent.Execution {
	t.Helper()
	ex, err := f.s.DB.Execution.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("execution %s: %v", id, err)
	}
	return ex
}
