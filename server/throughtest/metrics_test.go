package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	boardpkg "github.com/switchboard-hq/switchboard/server/board"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const metricsToken = "scrape-token-for-tests"

// scrape reads GET /metrics as a scraper does and parses the text format.
func scrape(t *testing.T, s *servertest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	res, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// sample is the value of family name's series whose labels include the
// given pairs, summed over the series that match (a histogram's count);
// found is false when the family or every such series is missing.
func sample(fams map[string]*dto.MetricFamily, name string, pairs ...string) (v float64, found bool) {
	f := fams["switchboard_"+name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if !hasLabels(m, pairs) {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			v += m.GetCounter().GetValue()
		case m.Gauge != nil:
			v += m.GetGauge().GetValue()
		case m.Histogram != nil:
			v += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return v, found
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		ok := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// value is sample's value, failing the test when the series is missing.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, pairs ...string) float64 {
	t.Helper()
	v, ok := sample(fams, name, pairs...)
	if !ok {
		t.Fatalf("no series switchboard_%s%v in /metrics", name, pairs)
	}
	return v
}

// waitValue scrapes until the series has the value (what the server does in
// the background lands after the request that caused it).
func waitValue(t *testing.T, s *servertest.Server, want float64, name string, pairs ...string) {
	t.Helper()
	servertest.WaitFor(t, "switchboard_"+name+strings.Join(pairs, ","), func() bool {
		v, _ := sample(scrape(t, s), name, pairs...)
		return v == want
	})
}

// RULINGS "Details for replicas": /metrics on the main address only with
// --metrics-token, sent as a bearer; without the flag it is the normal 404.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	plain := servertest.New(t)
	res := plain.Anonymous().Do(http.MethodGet, "/metrics", nil, "Authorization", "Bearer "+metricsToken)
	servertest.WantError(t, res, http.StatusNotFound)

	s := servertest.New(t, servertest.WithMetricsToken(metricsToken))
	for _, hdr := range [][]string{
		nil, // missing
		{"Authorization", "Bearer " + metricsToken + "x"},
		{"Authorization", "Basic " + metricsToken},
	} {
		servertest.WantError(t, s.Anonymous().Do(http.MethodGet, "/metrics", nil, hdr...), http.StatusUnauthorized)
	}
	// An API key is no metrics token.
	key := s.SignUp("ann").NewKey("agent")
	servertest.WantError(t, s.WithKey(key).Do(http.MethodGet, "/metrics", nil), http.StatusUnauthorized)
	fams := scrape(t, s)
	for _, name := range []string{"requests_total", "db_pool_open_connections", "db_pool_in_use_connections",
		"db_pool_idle_connections", "db_pool_wait_count_total", "db_pool_wait_duration_seconds_total",
		"outbox_depth", "outbox_deliveries_total", "streams_open", "timers_fired_total"} {
		if fams["switchboard_"+name] == nil {
			t.Errorf("switchboard_%s missing", name)
		}
	}
	// The refusals above were counted, by status, under no procedure.
	if v := value(t, fams, "requests_total", "procedure", "other", "protocol", "http", "code", "401"); v != 4 {
		t.Errorf("401s on /metrics counted %v times, want 4", v)
	}
}

// RULINGS "Replicas and operations": requests by procedure, protocol and
// code with a latency histogram, on both transports; the procedure is the
// contract's for REST too, and a path no procedure serves is "other".
func TestMetricsRequests(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithMetricsToken(metricsToken))
	key := s.SignUp("ann").NewKey("agent")
	get := switchboardv1connect.SettingsServiceGetSettingsProcedure

	if res := s.WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil); res.Status != http.StatusOK {
		t.Fatalf("REST: %d %s", res.Status, res.Body)
	}
	servertest.WantError(t, s.Anonymous().Do(http.MethodGet, "/api/v2/settings", nil), http.StatusUnauthorized)
	servertest.WantError(t, s.Anonymous().Do(http.MethodGet, "/no/such/page", nil), http.StatusNotFound)
	protocols := map[string]string{"connect+json": "connect", "grpc": "grpc", "grpcweb": "grpcweb"}
	for name, label := range protocols {
		opts := servertest.Protocols()[name]
		c := switchboardv1connect.NewSettingsServiceClient(s.Client(name), s.URL,
			append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))...)
		if _, err := c.GetSettings(t.Context(), &switchboardv1.GetSettingsRequest{}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		anon := switchboardv1connect.NewSettingsServiceClient(s.Client(name), s.URL, opts...)
		_, err := anon.GetSettings(t.Context(), &switchboardv1.GetSettingsRequest{})
		servertest.WantCode(t, err, connect.CodeUnauthenticated)
	}

	// A body connect-go cannot decode is refused before any interceptor:
	// the code comes from the error it wrote.
	if res := s.WithKey(key).Do(http.MethodPost, get, "{", "Content-Type", "application/json"); res.Status != http.StatusBadRequest {
		t.Fatalf("undecodable Connect body: %d %s", res.Status, res.Body)
	}

	fams := scrape(t, s)
	for _, c := range []struct {
		procedure, protocol, code string
	}{
		{get, "connect", "invalid_argument"},
		{get, "rest", "200"}, {get, "rest", "401"}, {"other", "http", "404"},
		{get, "connect", "ok"}, {get, "connect", "unauthenticated"},
		{get, "grpc", "ok"}, {get, "grpc", "unauthenticated"},
		{get, "grpcweb", "ok"}, {get, "grpcweb", "unauthenticated"},
	} {
		if v := value(t, fams, "requests_total", "procedure", c.procedure, "protocol", c.protocol, "code", c.code); v != 1 {
			t.Errorf("requests_total{%s,%s,%s} = %v, want 1", c.procedure, c.protocol, c.code, v)
		}
	}
	for protocol, want := range map[string]float64{"rest": 2, "connect": 3, "grpc": 2, "grpcweb": 2} {
		if v := value(t, fams, "request_duration_seconds", "procedure", get, "protocol", protocol); v != want {
			t.Errorf("request_duration_seconds{%s} counted %v requests, want %v", protocol, v, want)
		}
	}
	// No series is named by a raw path.
	for _, m := range fams["switchboard_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "procedure" && strings.Contains(l.GetValue(), "no/such") {
				t.Errorf("a raw path became a label: %s", l.GetValue())
			}
		}
	}
	if v := value(t, fams, "db_pool_open_connections"); v < 1 {
		t.Errorf("db_pool_open_connections = %v after requests", v)
	}
}

// RULINGS "Replicas and operations": open streams, as a gauge that goes up
// when a stream opens and down when it ends.
func TestMetricsStreamsOpen(t *testing.T) {
	t.Parallel()
	// A hijacked stream learns its client left at the next heartbeat.
	s := servertest.New(t, servertest.WithMetricsToken(metricsToken), servertest.WithHeartbeat(50*time.Millisecond))
	key := s.SignUp("ann").NewKey("agent")
	api := s.WithKey(key)
	if v := value(t, scrape(t, s), "streams_open"); v != 0 {
		t.Fatalf("streams_open = %v before any stream", v)
	}
	st := api.Stream(streamPath)
	st.NextOf("connected")
	if v := value(t, scrape(t, s), "streams_open"); v != 1 {
		t.Fatalf("streams_open = %v with one stream open", v)
	}
	st.Close()
	waitValue(t, s, 0, "streams_open")
	// The ended stream is one request of its procedure, outside REST.
	waitValue(t, s, 1, "requests_total", "procedure", switchboardv1connect.EventServiceStreamEventsProcedure,
		"protocol", "http", "code", "200")

	// The Connect twin: open while it runs, closed when the client leaves.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := switchboardv1connect.NewEventServiceClient(s.HTTP, s.URL, connect.WithInterceptors(servertest.BearerInterceptor(key)))
	stream, err := c.StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil || !stream.Receive() {
		t.Fatalf("Connect stream: %v %v", err, stream.Err())
	}
	if v := value(t, scrape(t, s), "streams_open"); v != 1 {
		t.Fatalf("streams_open = %v with the Connect stream open", v)
	}
	cancel()
	_ = stream.Close()
	waitValue(t, s, 0, "streams_open")
	waitValue(t, s, 1, "requests_total", "procedure", switchboardv1connect.EventServiceStreamEventsProcedure, "protocol", "connect")
}

// RULINGS "Replicas and operations": the outbox's depth and its delivery
// outcomes, and the dispatcher counted as a timer when a pass found rows due.
func TestMetricsOutbox(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithPrivateEndpoints(), servertest.WithMetricsToken(metricsToken))
	e := hookEnv{s: s, api: s.WithKey(s.SignUp("ann").NewKey("agent"))}
	r := newHookReceiver(t, s.Clock.Now, func(n int) int { return map[bool]int{true: 503, false: 200}[n == 0] })
	e.configure(t, push(r.URL, hookSecretA))
	fams := scrape(t, s)
	if v := value(t, fams, "outbox_depth"); v != 0 {
		t.Fatalf("outbox_depth = %v before any event", v)
	}
	for _, o := range []string{"delivered", "retry_pending", "retry_exhausted", "deferred", "cancelled"} {
		if v := value(t, fams, "outbox_deliveries_total", "outcome", o); v != 0 {
			t.Errorf("outbox_deliveries_total{%s} = %v before any attempt", o, v)
		}
	}

	e.switchMode(t)
	r.waitHits(t, 1)
	waitValue(t, s, 1, "outbox_deliveries_total", "outcome", "retry_pending")
	if v := value(t, scrape(t, s), "outbox_depth"); v != 1 {
		t.Fatalf("outbox_depth = %v with one delivery waiting for its retry", v)
	}
	s.Clock.Advance(30 * time.Second)
	// As TestRetrySucceeds: the retry's timer may be armed just after the
	// advance, so nudge the clock on until the retry comes.
	servertest.WaitFor(t, "the retry", func() bool {
		if len(r.got()) >= 2 {
			return true
		}
		s.Clock.Advance(time.Second)
		return false
	})
	waitValue(t, s, 1, "outbox_deliveries_total", "outcome", "delivered")
	fams = scrape(t, s)
	if v := value(t, fams, "outbox_depth"); v != 0 {
		t.Errorf("outbox_depth = %v once delivered", v)
	}
	if v := value(t, fams, "timers_fired_total", "timer", "outbox"); v < 1 {
		t.Errorf("timers_fired_total{outbox} = %v after the retry's pass", v)
	}
}

// RULINGS "Replicas and operations": timers fired, by the timer's stable
// name: the board scan's period passing is one fire.
func TestMetricsTimersFired(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithMetricsToken(metricsToken))
	if v, _ := sample(scrape(t, s), "timers_fired_total", "timer", boardpkg.TimerName); v != 0 {
		t.Fatalf("board scan fired %v times before its period", v)
	}
	s.Clock.Advance(boardpkg.Every)
	servertest.WaitFor(t, "the board scan's fire", func() bool {
		s.App.BoardScan.Wake()
		v, _ := sample(scrape(t, s), "timers_fired_total", "timer", boardpkg.TimerName)
		return v == 1
	})
}

// RULINGS "Replicas and operations": store executions by status, counted
// when they are created and when they finish.
func TestMetricsExecutions(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t, servertest.WithMetricsToken(metricsToken))
	a := newEngineAgent(t, func(_ call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "ok"}) })
	id := f.listing(t, a.URL, nil)
	if status, out := f.execute(t, f.req, id, map[string]any{"input": "x"}); status != http.StatusOK || out["status"] != "completed" {
		t.Fatalf("execute: %d %v", status, out)
	}
	waitValue(t, f.s, 1, "executions_total", "status", "completed")
	// Created, then completed: two statuses reached.
	waitValue(t, f.s, 2, "executions_total")
}
