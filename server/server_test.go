package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func rateHeaders(t *testing.T, h http.Header) (limit, remaining int) {
	t.Helper()
	var err error
	if limit, err = strconv.Atoi(h.Get("X-RateLimit-Limit")); err != nil {
		t.Fatalf("X-RateLimit-Limit = %q", h.Get("X-RateLimit-Limit"))
	}
	if remaining, err = strconv.Atoi(h.Get("X-RateLimit-Remaining")); err != nil {
		t.Fatalf("X-RateLimit-Remaining = %q", h.Get("X-RateLimit-Remaining"))
	}
	if _, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err != nil {
		t.Fatalf("X-RateLimit-Reset = %q", h.Get("X-RateLimit-Reset"))
	}
	return limit, remaining
}

// RULINGS "Rate limits": per key, sliding window, headers on every response,
// 429 with Retry-After past the limit, on both transports.
func TestRateLimitPerKey(t *testing.T) {
	const limit = 5
	s := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: limit, Auth: 1000}))
	ann := s.SignUp("ann")
	key, other := ann.NewKey("one"), ann.NewKey("two")
	api := s.WithKey(key)
	for i := range limit {
		res := api.Do(http.MethodGet, "/api/v2/settings", nil)
		if res.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, res.Status, res.Body)
		}
		if l, rem := rateHeaders(t, res.Header); l != limit || rem != limit-i-1 {
			t.Fatalf("request %d: limit=%d remaining=%d", i+1, l, rem)
		}
	}
	res := api.Do(http.MethodGet, "/api/v2/settings", nil)
	servertest.WantError(t, res, http.StatusTooManyRequests)
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra <= 0 {
		t.Fatalf("Retry-After = %q", res.Header.Get("Retry-After"))
	}
	rateHeaders(t, res.Header)

	// Connect shares the budget of the key and answers resource_exhausted.
	c := switchboardv1connect.NewSettingsServiceClient(s.HTTP, s.URL, connect.WithProtoJSON(),
		connect.WithInterceptors(servertest.BearerInterceptor(key)))
	_, err := c.GetSettings(context.Background(), &switchboardv1.GetSettingsRequest{})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") == "" {
		t.Fatalf("Connect over the limit: %v (meta %v)", err, ce)
	}
	// Another key has its own budget, and Connect responses carry the headers too.
	c2 := switchboardv1connect.NewSettingsServiceClient(s.HTTP, s.URL, connect.WithProtoJSON(),
		connect.WithInterceptors(servertest.BearerInterceptor(other)))
	r := s.WithKey(other).Do(http.MethodPost, "/switchboard.v1.SettingsService/GetSettings", `{}`)
	if r.Status != 200 {
		t.Fatalf("other key over Connect: %d %s", r.Status, r.Body)
	}
	if l, _ := rateHeaders(t, r.Header); l != limit {
		t.Fatalf("Connect response limit header = %d", l)
	}
	if _, err := c2.GetSettings(context.Background(), &switchboardv1.GetSettingsRequest{}); err != nil {
		t.Fatalf("other key: %v", err)
	}
}

// Every /api/v2 response carries the headers: errors, public routes, the docs.
func TestRateHeadersOnEveryV2Response(t *testing.T) {
	s := servertest.New(t)
	for _, path := range []string{"/api/v2/settings", "/api/v2/updates", "/api/v2/docs", "/api/v2/keys", "/api/v2/no-such-thing"} {
		res := s.Anonymous().Do(http.MethodGet, path, nil)
		rateHeaders(t, res.Header)
	}
}

// RULINGS "Rate limits": the auth class, 10/min per client IP by default.
func TestAuthClassLimit(t *testing.T) {
	s := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 3}))
	// An account, written directly (setup would count in the class): with
	// none, a login answers "No account exists yet" instead of 401.
	s.DB.User.Create().SetUsername("owner").SetEmail("owner@example.com").SetName("Owner").
		SetPasswordHash("not a hash").SetRole(user.RoleAdmin).ExecX(context.Background())
	body := map[string]any{"username": "nobody", "password": "whatever123"}
	for i := range 3 {
		if res := s.Anonymous().Do(http.MethodPost, "/api/auth/login", body); res.Status != 401 {
			t.Fatalf("attempt %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	res := s.Anonymous().Do(http.MethodPost, "/api/auth/login", body)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("4th login: %d %s", res.Status, res.Body)
	}
	if l, _ := rateHeaders(t, res.Header); l != 3 {
		t.Fatalf("auth class limit header = %d, want 3", l)
	}
}

// RULINGS "Errors": oversized bodies are a clear 4xx and write nothing.
func TestBodyLimit(t *testing.T) {
	s := servertest.New(t)
	key := s.SignUp("ann").NewKey("agent")
	big := `{"mode":"` + strings.Repeat("x", 1<<20) + `"}`
	res := s.WithKey(key).Do(http.MethodPatch, "/api/v2/settings", big)
	servertest.WantError(t, res, http.StatusRequestEntityTooLarge)
	res = s.WithKey(key).Do(http.MethodPost, "/switchboard.v1.SettingsService/UpdateSettings", big)
	if res.Status < 400 || res.Status >= 500 {
		t.Fatalf("Connect: %d %.200s", res.Status, res.Body)
	}
}

// Document 1 "Other v2 endpoints" and RULINGS "Changelog feed".
func TestUpdatesFeed(t *testing.T) {
	s := servertest.New(t)
	res := s.Anonymous().Do(http.MethodGet, "/api/v2/updates", nil)
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if res.Header.Get("Cache-Control") != "public, max-age=300" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("headers = %v", res.Header)
	}
	var feed struct {
		Updates     []map[string]any `json:"updates"`
		Total       int              `json:"total"`
		Returned    int              `json:"returned"`
		Source      string           `json:"source"`
		GeneratedAt string           `json:"generatedAt"`
	}
	if err := json.Unmarshal(res.Body, &feed); err != nil {
		t.Fatal(err)
	}
	if feed.Source != "switchboard" || feed.Total < 2 || feed.Returned != len(feed.Updates) || feed.Returned != feed.Total || feed.GeneratedAt == "" {
		t.Fatalf("feed = %s", res.Body)
	}
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for i, u := range feed.Updates {
		for _, k := range []string{"id", "date", "time", "title", "subtitle", "tags", "content", "adoptionModuleId"} {
			if _, ok := u[k]; !ok {
				t.Fatalf("update %d lacks %q: %v", i, k, u)
			}
		}
		if !date.MatchString(u["date"].(string)) {
			t.Fatalf("date %v", u["date"])
		}
		if i > 0 && u["date"].(string) > feed.Updates[i-1]["date"].(string) {
			t.Fatalf("not newest first")
		}
	}
	limited := s.Anonymous().Do(http.MethodGet, "/api/v2/updates?limit=1", nil).JSON(t)
	if limited["returned"] != 1.0 || limited["total"] != float64(feed.Total) {
		t.Fatalf("limit=1: %v", limited)
	}
	tagged := s.Anonymous().Do(http.MethodGet, "/api/v2/updates?tag=storage", nil).JSON(t)
	for _, u := range tagged["updates"].([]any) {
		if !slices.Contains(u.(map[string]any)["tags"].([]any), any("storage")) {
			t.Fatalf("tag filter let through %v", u)
		}
	}
	if tagged["returned"].(float64) < 1 || tagged["total"] != float64(feed.Total) {
		t.Fatalf("tag=storage: %v", tagged)
	}
	if got := s.Anonymous().Do(http.MethodGet, "/api/v2/updates?since=2999-01-01", nil).JSON(t); got["returned"] != 0.0 {
		t.Fatalf("since in the future: %v", got)
	}
	for _, bad := range []string{"?since=yesterday", "?limit=-1", "?limit=abc", "?limt=5", "?limit=1&limit=2", "?limit=99999999999"} {
		if res := s.Anonymous().Do(http.MethodGet, "/api/v2/updates"+bad, nil); res.Status != 400 {
			t.Fatalf("%s: %d %s", bad, res.Status, res.Body)
		}
	}
}

// GET /api/v2/docs lists every REST binding the contract declares.
func TestDocsListEveryRoute(t *testing.T) {
	s := servertest.New(t)
	res := s.Anonymous().Do(http.MethodGet, "/api/v2/docs", nil)
	if res.Status != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", res.Status, res.Header)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Info    struct{ Version string }  `json:"info"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(res.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") || doc.Info.Version != "2.0.0" {
		t.Fatalf("openapi %q version %q", doc.OpenAPI, doc.Info.Version)
	}
	jsonNames := regexp.MustCompile(`\{([a-z]+(?:_[a-z]+)+)\}`)
	for _, p := range contract.MustLoad().All() {
		for _, b := range p.Bindings {
			// The document names path parameters by their JSON names.
			path := jsonNames.ReplaceAllStringFunc(b.Template, func(m string) string {
				words := strings.Split(strings.Trim(m, "{}"), "_")
				for i := 1; i < len(words); i++ {
					words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
				}
				return "{" + strings.Join(words, "") + "}"
			})
			if _, ok := doc.Paths[path][strings.ToLower(b.Method)]; !ok {
				t.Errorf("docs lack %s %s (%s)", b.Method, b.Template, p.Name)
			}
		}
	}
}

// gRPC server reflection lists every service, as grpcurl and buf curl need.
func TestReflectionListsServices(t *testing.T) {
	s := servertest.New(t)
	client := grpcreflect.NewClient(s.H2C, s.URL)
	stream := client.NewStream(context.Background())
	defer stream.Close()
	names, err := stream.ListServices()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range names {
		got = append(got, string(n))
	}
	// The mount table is the one list: every service of the contract is
	// mounted, and reflection names exactly those.
	var want []string
	protoregistry.GlobalFiles.RangeFilesByPackage("switchboard.v1", func(f protoreflect.FileDescriptor) bool {
		for i := range f.Services().Len() {
			want = append(want, string(f.Services().Get(i).FullName()))
		}
		return true
	})
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 15 || !slices.Equal(got, want) {
		t.Errorf("reflection lists %v, the contract has %v", got, want)
	}
	fd, err := stream.FileContainingSymbol(switchboardv1connect.SettingsServiceName)
	if err != nil || len(fd) == 0 {
		t.Fatalf("FileContainingSymbol: %v", err)
	}
}

func TestHealth(t *testing.T) {
	s := servertest.New(t)
	if res := s.Anonymous().Do(http.MethodGet, "/healthz", nil); res.Status != 200 || string(res.Body) != "ok\n" {
		t.Fatalf("/healthz: %d %q", res.Status, res.Body)
	}
	// The standard grpc.health.v1 service, over gRPC.
	hc := connect.NewClient[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse](
		s.H2C, s.URL+"/grpc.health.v1.Health/Check", connect.WithGRPC())
	for svc, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{
		"": healthpb.HealthCheckResponse_SERVING, switchboardv1connect.SettingsServiceName: healthpb.HealthCheckResponse_SERVING,
	} {
		got, err := hc.CallUnary(context.Background(), connect.NewRequest(&healthpb.HealthCheckRequest{Service: svc}))
		if err != nil || got.Msg.GetStatus() != want {
			t.Fatalf("health %q: %v %v", svc, got, err)
		}
	}
	_, err := hc.CallUnary(context.Background(), connect.NewRequest(&healthpb.HealthCheckRequest{Service: "no.such.Service"}))
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("health of an unknown service: %v", err)
	}
}

func TestUnknownRoutes(t *testing.T) {
	s := servertest.New(t)
	for _, path := range []string{"/api/v2/nope", "/api/nope", "/nope"} {
		t.Run(path, func(t *testing.T) {
			servertest.WantError(t, s.Anonymous().Do(http.MethodGet, path, nil), http.StatusNotFound)
		})
	}
	servertest.WantError(t, s.Anonymous().Do(http.MethodDelete, "/api/v2/settings", nil), http.StatusMethodNotAllowed)
}

// Fields the contract marks (switchboard.v1.required) are enforced: every
// procedure that has one refuses an empty request with 400.
func TestRequiredFieldsAreEnforced(t *testing.T) {
	// A hub with the operator network on, and the credentials the public
	// routes' handlers read: the switch, the role and the credential come
	// before the body (RULINGS "Credentials before bodies").
	s := servertest.New(t, servertest.WithRole("hub"), servertest.WithNetwork(network.Config{Enabled: true}))
	ann := s.SignUp("ann")
	key := s.WithKey(ann.NewKey("all scopes"))
	creds := holdCredentials(t, s, ann)
	checked := 0
	for _, p := range contract.MustLoad().All() {
		fields := p.Descriptor.Input().Fields()
		has := false
		for i := range fields.Len() {
			if proto.GetExtension(fields.Get(i).Options(), switchboardv1.E_Required).(bool) {
				has = true
			}
		}
		if !has || len(p.Bindings) == 0 {
			continue
		}
		caller := key
		if p.AcceptSess && !p.AcceptKey {
			caller = ann.Session
		}
		if p.Public && creds.headers(p) != nil {
			caller = creds.caller(s, p)
		}
		b := p.Bindings[0]
		var body any
		if b.Method != http.MethodGet {
			body = `{}`
		}
		res := caller.Do(b.Method, b.Template, body)
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s %s with no fields: %d %s", b.Method, b.Template, res.Status, res.Body)
		}
		checked++
	}
	if checked < 6 {
		t.Fatalf("checked only %d procedures", checked)
	}
}

// REST pages are gzipped for clients that ask, and plain for those that do not.
func TestRESTGzip(t *testing.T) {
	s := servertest.New(t)
	api := s.WithKey(s.SignUp("ann").NewKey("agent"))
	for i := range 20 {
		api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": fmt.Sprintf("item %d with a long enough title to compress", i)})
	}
	tr := &http.Transport{DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	for _, enc := range []string{"gzip", ""} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v2/queue", nil)
		req.Header.Set("Authorization", api.Header().Get("Authorization"))
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != enc {
			t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q", enc, res.StatusCode, res.Header.Get("Content-Encoding"))
		}
		if enc == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !json.Valid(body) || !strings.Contains(string(body), `"success":true`) {
			t.Fatalf("body (%q) = %.100s", enc, body)
		}
	}
}
