package main

import (
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// RULINGS "Details for replicas": the running binary serves GET /metrics on
// --debug-addr without a token, and on the main address only to
// --metrics-token (SWITCHBOARD_METRICS_TOKEN) as a bearer.
func TestMetricsOfTheBinary(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, slices.Concat(serveArgs, []string{"--db", dbtest.DSN(t), "--debug-addr", "127.0.0.1:0"})...)
	cmd.Env = append(cmd.Environ(), "SWITCHBOARD_METRICS_TOKEN=process-token")
	base, lines := startLogged(t, cmd)
	var debug string
	for _, l := range lines {
		if l.str("msg") == "debug endpoints listening" {
			debug = "http://" + l.str("addr")
		}
	}
	if debug == "" {
		t.Fatal("the binary did not log its debug address")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	get := func(url, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	// A request the app answers (/healthz and /readyz are answered before
	// it, uncounted).
	if code, _ := get(base+"/api/v2/settings", ""); code != http.StatusUnauthorized {
		t.Fatalf("settings without a key: %d", code)
	}
	code, body := get(debug+"/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("debug /metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil || fams["switchboard_requests_total"] == nil || fams["switchboard_db_pool_open_connections"] == nil {
		t.Fatalf("debug /metrics: %v\n%s", err, body)
	}
	if code, body := get(base+"/metrics", "wrong"); code != http.StatusUnauthorized || !strings.Contains(body, `"success":false`) {
		t.Fatalf("main /metrics, wrong token: %d %s", code, body)
	}
	// One registry: the main address counts what the debug listener shows.
	if code, body := get(base+"/metrics", "process-token"); code != http.StatusOK || !strings.Contains(body, `switchboard_requests_total{code="401",procedure="other",protocol="http"} 1`) {
		t.Fatalf("main /metrics with the token: %d %s", code, body)
	}
	terminate(t, cmd, "")
}
