package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/web"
)

// The dashboard is served at "/" by the server itself (issue 6), and takes
// nothing from the API: other paths and methods keep their own answers.
func TestDashboardAtRoot(t *testing.T) {
	s := servertest.New(t)
	anon := s.Anonymous()
	res := anon.Do(http.MethodGet, "/", nil)
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	if res.Header.Get("Content-Security-Policy") != web.ContentSecurityPolicy || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET / headers: %v", res.Header)
	}
	if !strings.Contains(string(res.Body), `<div id="app">`) {
		t.Fatalf("GET / is not the dashboard:\n%s", res.Body)
	}
	if res := anon.Do(http.MethodHead, "/", nil); res.Status != http.StatusOK || len(res.Body) != 0 {
		t.Fatalf("HEAD /: %d, %d bytes", res.Status, len(res.Body))
	}
	// Not the page's: the JSON 404 as before, for other methods and paths.
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/"},
		{http.MethodDelete, "/"},
		{http.MethodGet, "/index.html"},
		{http.MethodGet, "/assets/missing.js"},
		{http.MethodGet, "/queue"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			servertest.WantError(t, anon.Do(c.method, c.path, nil), http.StatusNotFound)
		})
	}
	// The API still answers for itself.
	if res := anon.Do(http.MethodGet, "/api/v2/settings", nil); res.Status != http.StatusUnauthorized {
		t.Errorf("GET /api/v2/settings anonymously: %d %s", res.Status, res.Body)
	}
	if res := anon.Do(http.MethodGet, "/healthz", nil); res.Status != http.StatusOK || string(res.Body) != "ok\n" {
		t.Errorf("/healthz: %d %q", res.Status, res.Body)
	}
}
