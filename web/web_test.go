package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func serve(t *testing.T, s *Site, method, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// The page carries its security headers and is revalidated on every load
// (issue 6: the dashboard served at "/").
func TestIndexHeaders(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	w := serve(t, s, http.MethodGet, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /: %d", w.Code)
	}
	h := w.Header()
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-cache",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": ContentSecurityPolicy,
		"Referrer-Policy":         "no-referrer",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "connect-src 'self'"} {
		if !strings.Contains(ContentSecurityPolicy, directive) {
			t.Errorf("the policy lacks %s", directive)
		}
	}
	body := w.Body.String()
	if !strings.Contains(body, `<div id="app">`) {
		t.Fatalf("not the dashboard's page:\n%s", body)
	}
	// The built page has no inline script or style for the policy to refuse.
	if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(body) || strings.Contains(body, "<style") || strings.Contains(body, "style=") {
		t.Fatalf("inline script or style in the page:\n%s", body)
	}
}

// Every asset the page names is embedded, typed, and cacheable for good (its
// name changes with its content).
func TestAssetsReferencedByThePage(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	page := serve(t, s, http.MethodGet, "/").Body.String()
	refs := regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 2 {
		t.Fatalf("expected a script and a stylesheet in the page:\n%s", page)
	}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	for _, m := range refs {
		path := m[1]
		w := serve(t, s, http.MethodGet, path)
		if w.Code != http.StatusOK || w.Body.Len() == 0 {
			t.Fatalf("%s: %d, %d bytes", path, w.Code, w.Body.Len())
		}
		if got := w.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s Cache-Control = %q", path, got)
		}
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s X-Content-Type-Options = %q", path, got)
		}
		for ext, want := range types {
			if strings.HasSuffix(path, ext) && w.Header().Get("Content-Type") != want {
				t.Errorf("%s Content-Type = %q, want %q", path, w.Header().Get("Content-Type"), want)
			}
		}
	}
}

// A client that takes gzip gets it, with its own ETag; a conditional request
// for what it has answers 304.
func TestGzipAndConditionalRequests(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	plain := serve(t, s, http.MethodGet, "/")
	zipped := serve(t, s, http.MethodGet, "/", "Accept-Encoding", "br, gzip;q=0.8")
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("no gzip: %v", zipped.Header())
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || string(unzipped) != plain.Body.String() {
		t.Fatalf("the gzipped page differs from the plain one (%v)", err)
	}
	if plain.Header().Get("ETag") == zipped.Header().Get("ETag") || plain.Header().Get("ETag") == "" {
		t.Fatalf("ETags: plain %q, gzip %q", plain.Header().Get("ETag"), zipped.Header().Get("ETag"))
	}
	if w := serve(t, s, http.MethodGet, "/", "Accept-Encoding", "gzip;q=0"); w.Header().Get("Content-Encoding") != "" {
		t.Fatalf("gzip sent to a client that refused it")
	}
	if w := serve(t, s, http.MethodGet, "/", "If-None-Match", plain.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match with the current ETag: %d", w.Code)
	}
	if w := serve(t, s, http.MethodGet, "/", "If-None-Match", `"stale"`); w.Code != http.StatusOK {
		t.Fatalf("If-None-Match with another ETag: %d", w.Code)
	}
	if w := serve(t, s, http.MethodHead, "/"); w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Fatalf("HEAD /: %d with %d bytes", w.Code, w.Body.Len())
	}
}

// Serves claims only reads of built files: the rest stays with the server's
// own routes and its JSON 404.
func TestServesOnlyBuiltFiles(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		want         bool
	}{
		{http.MethodGet, "/", true},
		{http.MethodHead, "/", true},
		{http.MethodGet, "/favicon.svg", true},
		{http.MethodPost, "/", false},
		{http.MethodGet, "/index.html", false},
		{http.MethodGet, "/queue", false},
		{http.MethodGet, "/assets/nope.js", false},
		{http.MethodGet, "/api/v2/queue", false},
		{http.MethodGet, "/switchboard.v1.QueueService/ListQueueItems", false},
		{http.MethodGet, "/healthz", false},
	} {
		if got := s.Serves(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("Serves(%s %s) = %v, want %v", c.method, c.path, got, c.want)
		}
	}
}

func TestABuildWithoutAPageIsRefused(t *testing.T) {
	_, err := newSite(fstest.MapFS{"dist/assets/a.js": {Data: []byte("x")}})
	if err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Fatalf("err = %v", err)
	}
}

// Every server of a process shares one read of the embedded build: a test
// binary starts hundreds of servers, and gzipping the dashboard for each was
// half of a race-built test run's CPU.
func TestEmbeddedBuildIsReadOnce(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("New read the embedded build again")
	}
}
