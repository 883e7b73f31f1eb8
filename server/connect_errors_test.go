package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/emptypb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Onboarding, sprite, admin views", Connect (and reconciliation
// 10): every /switchboard.v1.* path answers Connect error JSON. A request
// without or with a wrong content type is 415 {"code":"invalid_argument"},
// an unknown service or method 404 {"code":"unimplemented"}, a method the
// procedure does not take 405; credentials still come first, and their
// refusal is Connect JSON too. Plain HTTP, as a client that is not Connect
// sends it.
func TestConnectErrorBodies(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("k")
	call := func(method, path, contentType, bearer, body string) (int, map[string]any, http.Header) {
		t.Helper()
		req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := s.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var m map[string]any
		if res.StatusCode != http.StatusOK {
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%s %s (%q): %d %q is not JSON", method, path, contentType, res.StatusCode, raw)
			}
		}
		return res.StatusCode, m, res.Header
	}
	const settings = "/switchboard.v1.SettingsService/GetSettings"
	const updates = "/switchboard.v1.UpdateService/ListUpdates"
	for _, c := range []struct {
		name                                    string
		method, path, contentType, bearer, body string
		status                                  int
		code, says                              string
	}{
		{"no content type", "POST", settings, "", key, "{}", 415, "invalid_argument", "without a content type"},
		{"text/plain", "POST", settings, "text/plain", key, "{}", 415, "invalid_argument", `"text/plain"`},
		{"an application type no codec reads", "POST", settings, "application/xml", key, "<a/>", 415, "invalid_argument", "application/json"},
		{"a public procedure, no content type", "POST", updates, "", "", "{}", 415, "invalid_argument", "content type"},
		{"credentials first", "POST", settings, "", "", "{}", 401, "unauthenticated", ""},
		{"credentials first, a wrong key", "POST", settings, "text/plain", "sbk_nope", "{}", 401, "unauthenticated", ""},
		{"an unknown method", "POST", "/switchboard.v1.SettingsService/Frobnicate", "application/json", key, "{}", 404, "unimplemented", "Frobnicate"},
		{"an unknown method, no content type", "POST", "/switchboard.v1.SettingsService/Frobnicate", "", "", "", 404, "unimplemented", ""},
		{"an unknown service", "POST", "/switchboard.v1.NoSuchService/Method", "application/json", key, "{}", 404, "unimplemented", "NoSuchService"},
		{"an unknown service, GET", "GET", "/switchboard.v1.NoSuchService/Method", "", "", "", 404, "unimplemented", ""},
		{"a method the procedure does not take", "PUT", settings, "application/json", key, "{}", 405, "unimplemented", "POST"},
	} {
		status, body, hdr := call(c.method, c.path, c.contentType, c.bearer, c.body)
		msg, _ := body["message"].(string)
		if status != c.status || body["code"] != c.code || msg == "" || !strings.Contains(msg, c.says) ||
			!strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %v (%s), want %d {code: %s} saying %q", c.name, status, body, hdr.Get("Content-Type"), c.status, c.code, c.says)
		}
	}
	// The same request with its content type is answered.
	if status, _, _ := call("POST", settings, "application/json", key, "{}"); status != http.StatusOK {
		t.Fatalf("GetSettings with application/json: %d", status)
	}

	// Clients of each protocol read an unknown procedure as unimplemented.
	for name, opts := range servertest.Protocols() {
		client := s.Client(name)
		for _, path := range []string{"/switchboard.v1.SettingsService/Frobnicate", "/switchboard.v1.NoSuchService/Method"} {
			_, err := connect.NewClient[emptypb.Empty, emptypb.Empty](client, s.URL+path, opts...).
				CallUnary(context.Background(), connect.NewRequest(&emptypb.Empty{}))
			if connect.CodeOf(err) != connect.CodeUnimplemented {
				t.Errorf("%s %s: %v, want unimplemented", name, path, err)
			}
		}
	}
	// A known procedure still answers each protocol.
	for name, opts := range servertest.Protocols() {
		client := s.Client(name)
		res, err := switchboardv1connect.NewUpdateServiceClient(client, s.URL, opts...).
			ListUpdates(context.Background(), &switchboardv1.ListUpdatesRequest{})
		if err != nil || res == nil {
			t.Errorf("%s ListUpdates: %v", name, err)
		}
	}
}

// A unary Connect answer in JSON ends in a newline when it goes out as it
// is, as the REST answers do; a client that accepts gzip gets answers under
// a kilobyte uncompressed (so with the newline) and larger ones as a whole
// gzip stream with nothing after it.
func TestConnectAnswersEndInANewline(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("k")
	call := func(path string) (http.Header, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		// Set by hand, so the transport leaves the answer compressed.
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := s.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, res.StatusCode, raw)
		}
		return res.Header, raw
	}

	h, small := call("/switchboard.v1.SettingsService/GetSettings")
	if h.Get("Content-Encoding") != "" || !strings.HasSuffix(string(small), "}\n") || !json.Valid(small) {
		t.Fatalf("a small answer: %q (Content-Encoding %q), want plain JSON ending in a newline", small, h.Get("Content-Encoding"))
	}

	created := s.WithKey(key).Do(http.MethodPost, "/api/v2/kanban",
		map[string]any{"title": "Long", "description": strings.Repeat("a long description ", 100)})
	servertest.WantStatus(t, created, http.StatusCreated)
	h, big := call("/switchboard.v1.KanbanService/ListCards")
	if h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("an answer of %d bytes went out with Content-Encoding %q, want gzip", len(big), h.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr) // a byte after the stream fails here
	if err != nil || !json.Valid(plain) || len(plain) < 1024 {
		t.Fatalf("the compressed answer: %d bytes, %v", len(plain), err)
	}
}
