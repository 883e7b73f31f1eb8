package idempotency

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What counts as the same request (docs/decisions.md, "Idempotency"): JSON
// white space and key order do not; values, paths, queries and content
// types do.
func TestFingerprint(t *testing.T) {
	base := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/api/v2/queue?a=1&b=2", nil)
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	ref := fingerprint("P", base(), []byte(`{"title":"x","priority":"high"}`))
	for _, tc := range []struct {
		name string
		req  func() *http.Request
		body string
		same bool
	}{
		{"white space and key order", base, " {\n\"priority\": \"high\", \"title\":\"x\"}\n", true},
		{"query order", func() *http.Request {
			r := base()
			r.URL.RawQuery = "b=2&a=1"
			return r
		}, `{"title":"x","priority":"high"}`, true},
		{"another value", base, `{"title":"y","priority":"high"}`, false},
		{"an extra field", base, `{"title":"x","priority":"high","n":1.0}`, false},
		{"another path", func() *http.Request {
			r := base()
			r.URL.Path = "/api/queue"
			return r
		}, `{"title":"x","priority":"high"}`, false},
		{"another content type", func() *http.Request {
			r := base()
			r.Header.Set("Content-Type", "application/proto")
			return r
		}, `{"title":"x","priority":"high"}`, false},
		{"trailing data", base, `{"title":"x","priority":"high"} {}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fingerprint("P", tc.req(), []byte(tc.body)) == ref; got != tc.same {
				t.Fatalf("same = %v, want %v", got, tc.same)
			}
		})
	}
}

// RULINGS "Idempotency": 1–255 printable ASCII characters, one header.
func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		ok     bool
	}{
		{"plain", []string{"order-42"}, true},
		{"space and tilde", []string{"a b~"}, true},
		{"255", []string{strings.Repeat("x", 255)}, true},
		{"256", []string{strings.Repeat("x", 256)}, false},
		{"empty", []string{""}, false},
		{"DEL", []string{"a\x7f"}, false},
		{"NUL", []string{"a\x00"}, false},
		{"UTF-8", []string{"clé"}, false},
		{"two", []string{"a", "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.values {
				h.Add(Header, v)
			}
			if _, err := parseKey(h); (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
