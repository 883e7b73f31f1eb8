package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// internals are what no answer may show: parser, strconv and protobuf
// wording, and resolver or network details (docs/decisions.md "Errors").
var internals = []string{
	"unexpected EOF", "strconv.", "parsing field", "invalid character", "proto:", "protojson",
	"syntax error", "(line ", "unmarshal into", "dial tcp", "lookup ", "127.0.0.53",
	"connect: connection refused", "no such host", "Post \"", "type mismatch", "denied by", "prohibited IP",
}

// TestErrorMessagesTable pins the message of each class of refusal on both
// transports (REST, and Connect through the generated client in JSON and
// binary, or by hand where a client cannot send the mistake), and checks
// that no answer shows parser, protobuf or network internals.
func TestErrorMessagesTable(t *testing.T) {
	const limit = 40
	s := servertest.New(t, servertest.WithPrivateEndpoints(),
		servertest.WithLimits(gate.Limits{PerKey: limit, Auth: 1000, Heavy: 1000, Federation: 1000}),
		func(c *server.Config) { c.Executions.CallTimeout = 5 * time.Second })
	// A redirect would hide what the server answered (an empty path id).
	s.HTTP.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ann := s.SignUp("ann")
	key := ann.NewKey("table")
	api := s.WithKey(key)
	ctx := context.Background()

	// A closed loopback port: the outbound call fails without leaving the host.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String() + "/agent"
	_ = ln.Close()
	res := api.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Gone", "endpointUrl": deadURL})
	if res.Status != http.StatusCreated {
		t.Fatalf("create listing: %d %s", res.Status, res.Body)
	}
	listing := res.JSON(t)["agent"].(map[string]any)["id"].(string)

	var seen []string // every answer's text, for the internals check
	const queuePath = "/switchboard.v1.QueueService/CreateQueueItem"

	rest := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"malformed JSON", "POST", "/api/v2/queue", `{"title" "x"}`, 400, "body is not valid JSON: unexpected '\"' at character 10"},
		{"truncated JSON", "POST", "/api/v2/queue", `{"title": "x"`, 400, "body is not valid JSON: it ends early"},
		{"wrong type in body", "POST", "/api/v2/queue", `{"title": 5}`, 400, "title must be a string"},
		{"wrong type in query", "GET", "/api/v2/queue?limit=abc", "", 400, "limit must be a whole number"},
		{"query number too large", "GET", "/api/v2/queue?limit=99999999999", "", 400, "limit must be a whole number from -2147483648 to 2147483647"},
		{"out-of-range number", "GET", "/api/v2/queue?limit=-1", "", 400, negativeLimit},
		{"number too large in body", "POST", "/api/v2/kanban", `{"title": "x", "order": 99999999999}`, 400, "order must be a whole number from -2147483648 to 2147483647"},
		{"wrong type for a list", "POST", "/api/v2/kanban", `{"title": "x", "labels": "x"}`, 400, "labels must be a list of strings"},
		{"wrong type in a list", "POST", "/api/v2/kanban", `{"title": "x", "labels": ["a", 2]}`, 400, "labels[1] must be a string"},
		{"not a time", "POST", "/api/v2/kanban", `{"title": "x", "dueDate": "soon"}`, 400, "dueDate must be a time such as 2026-01-02T15:04:05Z (RFC 3339)"},
		{"not an object", "POST", "/api/v2/queue", `["x"]`, 400, "body must be a JSON object"},
		{"unknown field", "POST", "/api/v2/queue", `{"title": "x", "titel": "y"}`, 400, `unknown field "titel"`},
		{"unknown query parameter", "GET", "/api/v2/queue?limt=5", "", 400, `unknown query parameter "limt"`},
		{"empty path id", "GET", "/api/v2/queue/", "", 400, "id is required"},
		{"empty path id in the middle", "PATCH", "/api/v2/kanban//checklist/x", `{"completed": true}`, 400, "cardId is required"},
	}
	for _, tc := range rest {
		t.Run("rest/"+tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			res := api.Do(tc.method, tc.path, body)
			seen = append(seen, string(res.Body))
			servertest.WantError(t, res, tc.status)
			if got := res.JSON(t)["error"]; got != tc.want {
				t.Errorf("error = %q, want %q", got, tc.want)
			}
		})
	}

	// Connect by hand, in JSON: the mistakes a generated client cannot make.
	for _, tc := range []struct {
		name, body, want string
	}{
		{"malformed JSON", `{"title" "x"}`, "unmarshal message: body is not valid JSON: unexpected '\"' at character 10"},
		{"truncated JSON", `{"title": "x"`, "unmarshal message: body is not valid JSON: it ends early"},
		{"wrong type in body", `{"title": 5}`, "unmarshal message: title must be a string"},
		{"unknown field", `{"title": "x", "titel": "y"}`, `unmarshal message: unknown field "titel"`},
	} {
		t.Run("connect-json/"+tc.name, func(t *testing.T) {
			res := api.Do(http.MethodPost, queuePath, tc.body)
			seen = append(seen, string(res.Body))
			if res.Status != http.StatusBadRequest {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
			m := res.JSON(t)
			if m["code"] != "invalid_argument" || m["message"] != tc.want {
				t.Errorf("got %s, want invalid_argument %q", res.Body, tc.want)
			}
		})
	}
	// A binary body that ends inside a field.
	t.Run("connect-proto/truncated body", func(t *testing.T) {
		res := api.Do(http.MethodPost, queuePath, []byte{0x0a, 0x05, 'x'}, "Content-Type", "application/proto")
		seen = append(seen, string(res.Body), res.Header.Get("Grpc-Message"))
		if res.Status != http.StatusBadRequest {
			t.Fatalf("status %d %s", res.Status, res.Body)
		}
		if got := res.JSON(t)["message"]; got != "unmarshal message: body is not a valid protobuf message" {
			t.Errorf("message = %q", got)
		}
	})

	// The generated client, on each protocol: a value out of range and an
	// outbound call that cannot connect.
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))
		q := switchboardv1connect.NewQueueServiceClient(s.Client(name), s.URL, opts...)
		t.Run(name+"/out-of-range number", func(t *testing.T) {
			_, err := q.ListQueueItems(ctx, &switchboardv1.ListQueueItemsRequest{Limit: -1})
			seen = append(seen, errText(err))
			wantConnect(t, err, connect.CodeInvalidArgument, negativeLimit)
		})
		t.Run(name+"/empty id", func(t *testing.T) {
			_, err := q.GetQueueItem(ctx, &switchboardv1.GetQueueItemRequest{})
			seen = append(seen, errText(err))
			wantConnect(t, err, connect.CodeInvalidArgument, "id is required")
		})
		x := switchboardv1connect.NewStoreExecutionServiceClient(s.Client(name), s.URL, opts...)
		t.Run(name+"/unreachable outbound address", func(t *testing.T) {
			out, err := x.ExecuteStoreAgent(ctx, &switchboardv1.ExecuteStoreAgentRequest{Id: listing, Input: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, out.GetError())
			if out.GetStatus() != "failed" || out.GetError() != unreachable {
				t.Errorf("status %q, error %q", out.GetStatus(), out.GetError())
			}
		})
	}
	t.Run("rest/unreachable outbound address", func(t *testing.T) {
		res := api.Do(http.MethodPost, "/api/marketplace/"+listing+"/execute", map[string]any{"input": "hi"})
		seen = append(seen, string(res.Body))
		m := res.JSON(t)
		if res.Status != http.StatusOK || m["status"] != "failed" || m["error"] != unreachable {
			t.Errorf("%d %s", res.Status, res.Body)
		}
	})

	// The rate limit last: spend what is left of the key's budget.
	t.Run("rate limit", func(t *testing.T) {
		var res *servertest.Response
		for range limit + 1 {
			if res = api.Do(http.MethodGet, "/api/v2/settings", nil); res.Status == http.StatusTooManyRequests {
				break
			}
		}
		seen = append(seen, string(res.Body))
		servertest.WantError(t, res, http.StatusTooManyRequests)
		ra := res.Header.Get("Retry-After")
		if want := "rate limit exceeded: try again in " + ra + " seconds"; ra == "" || res.JSON(t)["error"] != want {
			t.Errorf("Retry-After %q, error %s, want %q", ra, res.Body, want)
		}
		for name, opts := range servertest.Protocols() {
			opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))
			c := switchboardv1connect.NewSettingsServiceClient(s.Client(name), s.URL, opts...)
			_, err := c.GetSettings(ctx, &switchboardv1.GetSettingsRequest{})
			seen = append(seen, errText(err))
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Meta().Get("Retry-After") == "" {
				t.Fatalf("%s: %v", name, err)
			}
			wantConnect(t, err, connect.CodeResourceExhausted,
				"rate limit exceeded: try again in "+ce.Meta().Get("Retry-After")+" seconds")
		}
	})

	for _, text := range seen {
		for _, bad := range internals {
			if strings.Contains(text, bad) {
				t.Errorf("an answer shows %q: %s", bad, text)
			}
		}
	}
}

// negativeLimit is the refusal of a negative page size (a larger one than
// 100 is cut to 100, docs/decisions.md).
const negativeLimit = "limit must not be negative: use 1 to 100, or 0 for the default of 50"

// unreachable is the execution's error when the agent's port is closed.
const unreachable = "the agent could not be reached: the connection was refused"

func wantConnect(t *testing.T, err error, code connect.Code, msg string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code || ce.Message() != msg {
		t.Errorf("got %v, want %s %q", err, code, msg)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
