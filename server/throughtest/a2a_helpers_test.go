package throughtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// a2aRPC posts one JSON-RPC call with the key (and extra header pairs).
func a2aRPC(t *testing.T, s *servertest.Server, key, method string, params any, hdr ...string) map[string]any {
	t.Helper()
	res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, hdr...)
	if res.Status != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", method, res.Status, res.Body)
	}
	return res.JSON(t)
}

// a2aResult is the call's result object; the test fails on an error answer.
func a2aResult(t *testing.T, ans map[string]any) map[string]any {
	t.Helper()
	r, ok := ans["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in %v", ans)
	}
	return r
}

// rpcCode is the error code of an error answer.
func rpcCode(t *testing.T, ans map[string]any) int {
	t.Helper()
	e, ok := ans["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in %v", ans)
	}
	return int(e["code"].(float64))
}

// volatile keys are replaced by placeholders in golden files: ids and times
// change on every run.
var volatile = map[string]bool{
	"id": true, "taskId": true, "contextId": true, "sessionId": true, "messageId": true, "queueItemId": true,
	"artifactId": true, "timestamp": true, "a2aTaskId": true, "a2aContextId": true, "url": true,
	"documentationUrl": true, "dueDate": true, "nextPageToken": true,
}

func normalize(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e, k)
		}
	case []any:
		for i, e := range v {
			v[i] = normalize(e, key)
		}
	case string:
		if volatile[key] {
			return "<" + key + ">"
		}
	}
	return v
}

// a2aGolden compares v, normalised, with testdata/a2a/<name>.golden.json.
func a2aGolden(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(normalize(generic, "")); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", "a2a", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./server/a2a/ -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run: go test ./server/a2a/ -update, then read the diff)\ngot:\n%s", name, path, got)
	}
}

// setupA2A is a server with one account and a key with the a2a scope.
func setupA2A(t *testing.T, opts ...servertest.Option) (*servertest.Server, *servertest.Account, string) {
	t.Helper()
	s := servertest.New(t, opts...)
	acct := s.SignUp("ana")
	return s, acct, acct.NewKey("travel-agent", "a2a")
}

// a2aItem is the queue item as the operator sees it.
func a2aItem(t *testing.T, acct *servertest.Account, id string) map[string]any {
	t.Helper()
	res := acct.Session.Do(http.MethodGet, "/api/v2/queue/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET item %s: %d %s", id, res.Status, res.Body)
	}
	return res.JSON(t)["item"].(map[string]any)
}

// operator moves the item as the operator, through the queue API.
func operator(t *testing.T, acct *servertest.Account, method, path string, body any) {
	t.Helper()
	res := acct.Session.Do(method, path, body)
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
}

// queueCount is how many items the account has.
func queueCount(t *testing.T, acct *servertest.Account) int {
	t.Helper()
	res := acct.Session.Do(http.MethodGet, "/api/v2/queue", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET queue: %d %s", res.Status, res.Body)
	}
	return len(res.JSON(t)["data"].(map[string]any)["items"].([]any))
}
