package throughtest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Idempotency": a key is 1–255 printable ASCII characters; anything
// else is 400 on both transports and writes nothing. Procedures whose answer
// holds a secret shown once refuse the header, and reads ignore it
// (docs/decisions.md, "Idempotency").
func TestBadKeysAreRefused(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	key := acct.NewKey("agent")
	api := s.WithKey(key)
	queue := switchboardv1connect.NewQueueServiceClient(s.HTTP, s.URL,
		connect.WithProtoJSON(), connect.WithInterceptors(servertest.BearerInterceptor(key)))
	for _, tc := range []struct {
		name   string
		values []string
	}{
		{"empty", []string{""}},
		{"too long", []string{strings.Repeat("k", 256)}},
		{"not ASCII", []string{"clé"}},
		{"control character", []string{"a\tb"}},
		{"two headers", []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantErrorContaining(t, postWithKeys(t, s, api, "/api/v2/queue", `{"title":"x"}`, tc.values), http.StatusBadRequest, keyHeader)
			ctx, info := connect.NewClientContext(t.Context())
			for _, v := range tc.values {
				info.RequestHeader().Add(keyHeader, v)
			}
			_, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: "x"})
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
			if n := creates[0].count(t, s, acct.ID); n != 0 {
				t.Fatalf("%d items written", n)
			}
		})
	}
	t.Run("longest key", func(t *testing.T) {
		res := api.Do(http.MethodPost, "/api/v2/queue", `{"title":"x"}`, keyHeader, strings.Repeat("~", 255))
		servertest.WantStatus(t, res, http.StatusCreated)
	})
	t.Run("secret shown once", func(t *testing.T) {
		res := acct.Session.Do(http.MethodPost, "/api/v2/keys", `{"label":"x","scopes":[]}`, keyHeader, "k1")
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, "secret")
	})
	t.Run("no credential to scope by", func(t *testing.T) {
		res := s.Anonymous().Do(http.MethodPost, "/api/auth/login", `{"username":"ann","password":"x"}`, keyHeader, "k1")
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, keyHeader)
	})
	t.Run("gRPC", func(t *testing.T) {
		c := switchboardv1connect.NewQueueServiceClient(s.H2C, s.URL, connect.WithGRPC(),
			connect.WithInterceptors(servertest.BearerInterceptor(key)))
		ctx, _ := withKey(t.Context(), "k1")
		_, err := c.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: "x"})
		servertest.WantCode(t, err, connect.CodeInvalidArgument)
	})
	t.Run("a read ignores it", func(t *testing.T) {
		for range 2 {
			res := api.Do(http.MethodGet, "/api/v2/queue", nil, keyHeader, "read")
			servertest.WantStatus(t, res, http.StatusOK)
			if res.Header.Get(replayedHeader) != "" {
				t.Fatal("a read was replayed")
			}
		}
	})
}

// postWithKeys posts with each value as its own Idempotency-Key header line.
func postWithKeys(t *testing.T, s *servertest.Server, c *servertest.Caller, path, body string, values []string) *servertest.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = c.Header().Clone()
	req.Header.Set("Content-Type", "application/json")
	for _, v := range values {
		req.Header.Add(keyHeader, v)
	}
	res, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &servertest.Response{Status: res.StatusCode, Header: res.Header, Body: data}
}
