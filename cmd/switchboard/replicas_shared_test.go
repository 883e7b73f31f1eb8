package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// replicaHeavyLimit is the heavy class's limit the replicas of
// TestThreeReplicasBehindABalancer run with: low enough that two sends to
// each of the three replicas reach it.
const replicaHeavyLimit = 6

// answer is one response's status, headers and decoded body.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

// call sends body to base+path with the key as bearer and extra name, value
// header pairs.
func call(t *testing.T, base, key, method, path, body string, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, base, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return answer{status: res.StatusCode, header: res.Header, body: out}
}

// keyed adds the bearer to every request of an MCP client.
type keyed struct {
	key  string
	next http.RoundTripper
}

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return k.next.RoundTrip(r)
}

// sharedAcrossReplicas is the rest of issue 32's process-level acceptance,
// each replica addressed directly so that what one replica did is seen by
// another: a key's rate count and the heavy class's limit are one count, an
// Idempotency-Key's second use on another replica answers the stored
// answer, and an MCP session on replica 1 hears tools/list_changed after an
// install on replica 2.
func sharedAcrossReplicas(t *testing.T, replicas []*replicaProc, key string) {
	base := make([]string, len(replicas))
	for i, r := range replicas {
		base[i] = "http://" + r.addr
	}

	t.Run("a key's rate count is one across replicas", func(t *testing.T) {
		remaining := make([]int, len(base))
		for i, b := range base {
			a := call(t, b, key, http.MethodGet, "/api/v2/queue?limit=1", "")
			if a.status != http.StatusOK {
				t.Fatalf("replica %d: %d %v", i+1, a.status, a.body)
			}
			n, err := strconv.Atoi(a.header.Get("X-RateLimit-Remaining"))
			if err != nil {
				t.Fatalf("replica %d: X-RateLimit-Remaining %q", i+1, a.header.Get("X-RateLimit-Remaining"))
			}
			remaining[i] = n
		}
		// Per-process counts would leave each replica's first request at
		// the same remainder; one count goes down by one a request (the
		// sliding window's weight of the previous minute only lowers it
		// further).
		for i := 1; i < len(remaining); i++ {
			if remaining[i] >= remaining[i-1] {
				t.Fatalf("remaining after one request on each replica: %v, want strictly falling", remaining)
			}
		}
	})

	t.Run("the heavy class's limit holds across replicas", func(t *testing.T) {
		send := func(b string, n int) answer {
			return call(t, b, key, http.MethodPost, "/api/a2a", fmt.Sprintf(
				`{"jsonrpc":"2.0","id":%d,"method":"message/send","params":{"message":{"role":"user","messageId":"m-%d","parts":[{"kind":"text","text":"task %d"}]}}}`, n, n, n))
		}
		n := 0
		for range replicaHeavyLimit / len(base) {
			for i, b := range base {
				n++
				if a := send(b, n); a.status != http.StatusOK || a.body["error"] != nil {
					t.Fatalf("send %d on replica %d: %d %v", n, i+1, a.status, a.body)
				}
			}
		}
		for i, b := range base {
			n++
			a := send(b, n)
			if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" {
				t.Fatalf("send %d (over %d a minute) on replica %d: %d %v, want 429 with Retry-After", n, replicaHeavyLimit, i+1, a.status, a.body)
			}
		}
	})

	t.Run("an Idempotency-Key's second use on another replica replays", func(t *testing.T) {
		const body = `{"title":"Once across replicas"}`
		first := call(t, base[0], key, http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", "replicas-once")
		if first.status != http.StatusCreated {
			t.Fatalf("first: %d %v", first.status, first.body)
		}
		id := first.body["item"].(map[string]any)["id"]
		for i, b := range base[1:] {
			again := call(t, b, key, http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", "replicas-once")
			if again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replica %d: %d replayed=%q %v", i+2, again.status, again.header.Get("Idempotent-Replayed"), again.body)
			}
			if got := again.body["item"].(map[string]any)["id"]; got != id {
				t.Fatalf("replica %d answered item %v, the first answer was %v", i+2, got, id)
			}
		}
	})

	t.Run("tools/list_changed reaches a session on another replica", func(t *testing.T) {
		agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"output":"done"}`))
		}))
		t.Cleanup(agent.Close)
		listing := call(t, base[2], key, http.MethodPost, "/api/marketplace",
			`{"name":"Replicated Scout","endpointUrl":"`+agent.URL+`","pricingModel":"free"}`)
		if listing.status != http.StatusCreated {
			t.Fatalf("listing: %d %v", listing.status, listing.body)
		}
		id := listing.body["agent"].(map[string]any)["id"].(string)

		changed := make(chan struct{}, 8)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		client := sdk.NewClient(&sdk.Implementation{Name: "replicas-test", Version: "1"}, &sdk.ClientOptions{
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
		})
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
			Endpoint:   base[0] + "/api/mcp",
			HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: keyed{key, http.DefaultTransport}},
		}, nil)
		if err != nil {
			t.Fatalf("MCP connect to replica 1: %v", err)
		}
		defer cs.Close()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if a := call(t, base[1], key, http.MethodPost, "/api/marketplace/"+id+"/install", `{}`); a.status != http.StatusCreated {
			t.Fatalf("install on replica 2: %d %v", a.status, a.body)
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatal("replica 1's session heard no tools/list_changed within 10s of the install on replica 2")
		}
	})
}
