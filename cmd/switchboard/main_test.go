package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

func TestParseServeDefaultsAndEnv(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.addr != "127.0.0.1:8080" || o.dsn != "sqlite:./switchboard.db" || o.heartbeat != 30*time.Second || o.rateLimit != 120 || o.maxBody != 1<<20 || o.dbMaxConns != 20 {
		t.Fatalf("defaults = %+v", o)
	}
	if _, err := parseServe([]string{"--db-max-conns", "0"}, io.Discard, io.Discard); err == nil {
		t.Fatal("--db-max-conns 0 accepted")
	}
	t.Setenv("SWITCHBOARD_RATE_LIMIT_PER_MINUTE", "7")
	t.Setenv("SWITCHBOARD_HEARTBEAT", "1s")
	t.Setenv("SWITCHBOARD_ADDR", "127.0.0.1:9999")
	o, err = parseServe([]string{"--addr", "127.0.0.1:7777"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.llm.BaseURL != "" || o.llm.APIKey != "" {
		t.Fatalf("no language model by default: %+v", o.llm)
	}
	t.Setenv("SWITCHBOARD_LLM_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("SWITCHBOARD_LLM_API_KEY", "sk-test")
	o, err = parseServe([]string{"--addr", "127.0.0.1:7777", "--llm-model", "m"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.llm.BaseURL != "http://127.0.0.1:9/v1" || o.llm.APIKey != "sk-test" || o.llm.Model != "m" {
		t.Fatalf("llm = %+v", o.llm)
	}
	if o.rateLimit != 7 || o.heartbeat != time.Second || o.addr != "127.0.0.1:7777" {
		t.Fatalf("env and flags = %+v (flags must win over env)", o)
	}
	// RULINGS "Store, federation, MCP, A2A": private endpoints are refused
	// unless the instance allows them, by env or flag.
	if o.allowPrivate {
		t.Fatal("private endpoints allowed by default")
	}
	t.Setenv("SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS", "true")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || !o.allowPrivate {
		t.Fatalf("SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS=true: %v, %v", o.allowPrivate, err)
	}
	if o, err = parseServe([]string{"--allow-private-endpoints=false"}, io.Discard, io.Discard); err != nil || o.allowPrivate {
		t.Fatalf("--allow-private-endpoints=false over the env: %v, %v", o.allowPrivate, err)
	}
	t.Setenv("SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS", "sometimes")
	if _, err := parseServe(nil, io.Discard, io.Discard); err == nil {
		t.Error("a non-boolean SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS was accepted")
	}
	t.Setenv("SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS", "")
	for _, bad := range [][]string{{"--heartbeat", "soon"}, {"--rate-limit-per-minute", "0"}, {"extra"}} {
		if _, err := parseServe(bad, io.Discard, io.Discard); err == nil {
			t.Errorf("parseServe(%v) accepted", bad)
		}
	}
	t.Setenv("SWITCHBOARD_RATE_LIMIT_PER_MINUTE", "many")
	if _, err := parseServe(nil, io.Discard, io.Discard); err == nil {
		t.Error("a non-numeric SWITCHBOARD_RATE_LIMIT_PER_MINUTE was accepted")
	}
}

// Issue 32: serve migrates at start unless --migrate=false (or
// SWITCHBOARD_MIGRATE=false); --shutdown-timeout (SWITCHBOARD_SHUTDOWN_TIMEOUT)
// is 20s by default, and the flag wins over the environment.
func TestMigrateAndShutdownFlags(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || !o.migrate || o.shutdownTimeout != 20*time.Second {
		t.Fatalf("defaults: migrate %v, shutdown timeout %v, %v", o.migrate, o.shutdownTimeout, err)
	}
	t.Setenv("SWITCHBOARD_MIGRATE", "false")
	t.Setenv("SWITCHBOARD_SHUTDOWN_TIMEOUT", "45s")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.migrate || o.shutdownTimeout != 45*time.Second {
		t.Fatalf("env: migrate %v, shutdown timeout %v, %v", o.migrate, o.shutdownTimeout, err)
	}
	if o, err = parseServe([]string{"--migrate", "--shutdown-timeout", "5s"}, io.Discard, io.Discard); err != nil || !o.migrate || o.shutdownTimeout != 5*time.Second {
		t.Fatalf("flags over env: migrate %v, shutdown timeout %v, %v", o.migrate, o.shutdownTimeout, err)
	}
}

// TestFederationRateLimitFlag: issue 14 item 9: the federation class is 30
// a minute by default, SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE sets it,
// --federation-rate-limit-per-minute wins over the environment, and it must
// be a positive number.
// TestHeavyRateLimitFlag: the heavy class (store executions, A2A sends) is
// 20 a minute per client IP by default; SWITCHBOARD_HEAVY_RATE_LIMIT_PER_MINUTE
// and --heavy-rate-limit-per-minute set it (the dispatch benchmark raises
// it), and it must be positive.
func TestHeavyRateLimitFlag(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.heavyRateLimit != 20 {
		t.Fatalf("default: %d %v", o.heavyRateLimit, err)
	}
	t.Setenv("SWITCHBOARD_HEAVY_RATE_LIMIT_PER_MINUTE", "45")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.heavyRateLimit != 45 {
		t.Fatalf("env: %d %v", o.heavyRateLimit, err)
	}
	if o, err = parseServe([]string{"--heavy-rate-limit-per-minute", "7"}, io.Discard, io.Discard); err != nil || o.heavyRateLimit != 7 {
		t.Fatalf("flag over env: %d %v", o.heavyRateLimit, err)
	}
	if _, err := parseServe([]string{"--heavy-rate-limit-per-minute", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("a limit of 0 accepted")
	}
}

// TestPasswordGuessLimitFlag: issue 35 point 3: attempts at one pack's or
// listing's access password are 10 a minute across client IPs by default;
// SWITCHBOARD_PASSWORD_GUESS_LIMIT_PER_MINUTE and
// --password-guess-limit-per-minute set it, and it must be positive.
func TestPasswordGuessLimitFlag(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.guessRateLimit != 10 {
		t.Fatalf("default: %d %v", o.guessRateLimit, err)
	}
	t.Setenv("SWITCHBOARD_PASSWORD_GUESS_LIMIT_PER_MINUTE", "25")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.guessRateLimit != 25 {
		t.Fatalf("env: %d %v", o.guessRateLimit, err)
	}
	if o, err = parseServe([]string{"--password-guess-limit-per-minute", "3"}, io.Discard, io.Discard); err != nil || o.guessRateLimit != 3 {
		t.Fatalf("flag over env: %d %v", o.guessRateLimit, err)
	}
	if _, err := parseServe([]string{"--password-guess-limit-per-minute", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("a limit of 0 accepted")
	}
}

// TestStreamCapFlags: RULINGS "Security details": at most 50 streams and 50
// MCP sessions open at once per key by default; the environment sets them,
// the flags win over it, and they must be positive.
func TestStreamCapFlags(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.maxStreams != 50 || o.maxMCPSessions != 50 {
		t.Fatalf("default: %d %d %v", o.maxStreams, o.maxMCPSessions, err)
	}
	t.Setenv("SWITCHBOARD_MAX_STREAMS_PER_KEY", "8")
	t.Setenv("SWITCHBOARD_MAX_MCP_SESSIONS_PER_KEY", "9")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.maxStreams != 8 || o.maxMCPSessions != 9 {
		t.Fatalf("env: %d %d %v", o.maxStreams, o.maxMCPSessions, err)
	}
	o, err = parseServe([]string{"--max-streams-per-key", "3", "--max-mcp-sessions-per-key", "4"}, io.Discard, io.Discard)
	if err != nil || o.maxStreams != 3 || o.maxMCPSessions != 4 {
		t.Fatalf("flags over env: %d %d %v", o.maxStreams, o.maxMCPSessions, err)
	}
	for _, flag := range []string{"--max-streams-per-key", "--max-mcp-sessions-per-key"} {
		if _, err := parseServe([]string{flag, "0"}, io.Discard, io.Discard); err == nil {
			t.Errorf("%s 0 accepted", flag)
		}
	}
}

// TestTimerLeaseFlag: RULINGS "Details for replicas": timer leases, and
// how long a dead replica's idempotency claims and stream slots still
// count, last at most --timer-lease (SWITCHBOARD_TIMER_LEASE), default 10s;
// the flag wins over the environment and must be positive.
func TestTimerLeaseFlag(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.timerLease != 10*time.Second {
		t.Fatalf("default: %s %v", o.timerLease, err)
	}
	t.Setenv("SWITCHBOARD_TIMER_LEASE", "4s")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.timerLease != 4*time.Second {
		t.Fatalf("env: %s %v", o.timerLease, err)
	}
	if o, err = parseServe([]string{"--timer-lease", "2s"}, io.Discard, io.Discard); err != nil || o.timerLease != 2*time.Second {
		t.Fatalf("flag over env: %s %v", o.timerLease, err)
	}
	if _, err := parseServe([]string{"--timer-lease", "0s"}, io.Discard, io.Discard); err == nil {
		t.Error("a lease of 0 accepted")
	}
}

// TestLLMFlags: RULINGS "The assistant": a model each for chat,
// transcription and images and the prompt budget (default 8,000), each with
// its environment twin, flags over the environment; the key only from the
// environment; the provider's URL checked at start-up.
func TestLLMFlags(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.llm.ContextTokens != 8000 || o.llm.TranscriptionModel != "" || o.llm.ImageModel != "" {
		t.Fatalf("defaults: %+v %v", o.llm, err)
	}
	t.Setenv("SWITCHBOARD_LLM_BASE_URL", "https://llm.example/v1")
	t.Setenv("SWITCHBOARD_LLM_API_KEY", "sk-env")
	t.Setenv("SWITCHBOARD_LLM_MODEL", "chat-env")
	t.Setenv("SWITCHBOARD_LLM_TRANSCRIPTION_MODEL", "stt-env")
	t.Setenv("SWITCHBOARD_LLM_IMAGE_MODEL", "img-env")
	t.Setenv("SWITCHBOARD_LLM_CONTEXT_TOKENS", "16000")
	o, err = parseServe(nil, io.Discard, io.Discard)
	want := llm.Config{BaseURL: "https://llm.example/v1", APIKey: "sk-env", Model: "chat-env",
		TranscriptionModel: "stt-env", ImageModel: "img-env", ContextTokens: 16000}
	if err != nil || o.llm != want {
		t.Fatalf("env: %+v %v", o.llm, err)
	}
	o, err = parseServe([]string{"--llm-base-url", "http://127.0.0.1:11434/v1", "--llm-model", "chat-flag",
		"--llm-transcription-model", "stt-flag", "--llm-image-model", "img-flag", "--llm-context-tokens", "4000"}, io.Discard, io.Discard)
	want = llm.Config{BaseURL: "http://127.0.0.1:11434/v1", APIKey: "sk-env", Model: "chat-flag",
		TranscriptionModel: "stt-flag", ImageModel: "img-flag", ContextTokens: 4000}
	if err != nil || o.llm != want {
		t.Fatalf("flags over env: %+v %v", o.llm, err)
	}
	for _, bad := range [][]string{
		{"--llm-context-tokens", "0"}, {"--llm-context-tokens", "many"}, {"--llm-api-key", "sk-flag"},
		{"--llm-base-url", "llm.example/v1"}, {"--llm-base-url", "https://user:sk-x@llm.example/v1"},
	} {
		if _, err := parseServe(bad, io.Discard, io.Discard); err == nil {
			t.Errorf("parseServe(%v) accepted", bad)
		} else if strings.Contains(err.Error(), "sk-x") {
			t.Errorf("parseServe(%v): the error %q quotes the key", bad, err)
		}
	}
	t.Setenv("SWITCHBOARD_LLM_CONTEXT_TOKENS", "lots")
	if _, err := parseServe(nil, io.Discard, io.Discard); err == nil {
		t.Error("a non-numeric SWITCHBOARD_LLM_CONTEXT_TOKENS was accepted")
	}
}

func TestFederationRateLimitFlag(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.fedRateLimit != 30 {
		t.Fatalf("default: %d %v", o.fedRateLimit, err)
	}
	t.Setenv("SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE", "45")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.fedRateLimit != 45 {
		t.Fatalf("env: %d %v", o.fedRateLimit, err)
	}
	if o, err = parseServe([]string{"--federation-rate-limit-per-minute", "7"}, io.Discard, io.Discard); err != nil || o.fedRateLimit != 7 {
		t.Fatalf("flag over env: %d %v", o.fedRateLimit, err)
	}
	if _, err := parseServe([]string{"--federation-rate-limit-per-minute", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("a limit of 0 accepted")
	}
	t.Setenv("SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE", "lots")
	if _, err := parseServe(nil, io.Discard, io.Discard); err == nil {
		t.Error("a non-numeric SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE was accepted")
	}
}

func TestVersionCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "switchboard ") {
		t.Fatalf("version: %q %v", out.String(), err)
	}
	if err := run([]string{"frobnicate"}, io.Discard, io.Discard); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// buildBinary compiles the real binary once for the end-to-end test.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := binaryOnce()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// binDir holds the binary the package's tests share: built once, removed by
// TestMain after the last test.
var binDir string

// binaryOnce builds the binary, unless .ci/run has built it for all its
// steps from this checkout (CI_SWITCHBOARD_BINARY).
var binaryOnce = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("CI_SWITCHBOARD_BINARY"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(binDir, "switchboard")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
})

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "switchboard-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startBinary runs `switchboard serve` on a free loopback port and returns its
// base URL once it logs that it listens.
func startBinary(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	// A small pool: tests run side by side against one PostgreSQL.
	return startCmd(t, exec.Command(bin, slices.Concat(serveArgs, args)...))
}

// serveArgs start `switchboard serve` on a free loopback port.
var serveArgs = []string{"serve", "--addr", "127.0.0.1:0", "--db-max-conns", "4"}

// startCmd starts a server process and returns its base URL once it is up
// (it has logged where it listens and where the dashboard is).
func startCmd(t *testing.T, cmd *exec.Cmd) (string, *exec.Cmd) {
	t.Helper()
	base, _ := startLogged(t, cmd)
	return base, cmd
}

// keepKeyOutOfTree runs cmd in a directory of the test's own: on PostgreSQL
// the generated instance key is written to the working directory, which would
// otherwise be this package's source directory.
func keepKeyOutOfTree(t *testing.T, cmd *exec.Cmd) {
	if cmd.Dir == "" {
		cmd.Dir = t.TempDir()
	}
}

// Issue acceptance: setup → login → create key → settings over REST, Connect
// JSON and gRPC, and reflection, against the running binary.
func TestBinaryEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	base, cmd := startBinary(t, bin, "--db", dbtest.DSN(t))
	jar, _ := cookiejar.New(nil)
	web := &http.Client{Timeout: 10 * time.Second, Jar: jar}
	// post answers with the status and the whole body.
	post := func(path, body string, hdr ...string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := web.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatalf("POST %s: reading the answer: %v", path, err)
		}
		return res.StatusCode, data
	}
	const username = "owner"
	if code, _ := post("/api/setup", `{"username":"`+username+`","email":"`+username+`@example.com","password":"`+servertest.Password+`","name":"E2E","acceptedTerms":true}`); code != http.StatusCreated {
		t.Fatalf("setup/signup: %d", code)
	}
	if code, _ := post("/api/auth/login", `{"username":"`+username+`","password":"`+servertest.Password+`"}`); code != 200 {
		t.Fatalf("login: %d", code)
	}
	code, data := post("/api/v2/keys", `{"label":"e2e","scopes":["settings"]}`, "Origin", base)
	var created struct{ APIKey string }
	if err := json.Unmarshal(data, &created); err != nil || code != 201 || created.APIKey == "" {
		t.Fatalf("create key: %d %v", code, err)
	}

	// REST.
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v2/settings", nil)
	req.Header.Set("Authorization", "Bearer "+created.APIKey)
	rest, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rest.Body.Close()
	var settings map[string]any
	if err := json.NewDecoder(rest.Body).Decode(&settings); err != nil || settings["mode"] != "cockpit" || settings["queueAutoApprove"] != false {
		t.Fatalf("REST settings: %v %v", settings, err)
	}
	// Connect JSON, plain HTTP.
	code, body := post("/switchboard.v1.SettingsService/GetSettings", `{}`, "Authorization", "Bearer "+created.APIKey)
	if code != 200 || !strings.Contains(string(body), `"mode":"cockpit"`) || !strings.Contains(string(body), `"queueAutoApprove":false`) {
		t.Fatalf("Connect JSON: %d %s", code, body)
	}
	// gRPC, with the generated client over h2c.
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	grpc := switchboardv1connect.NewSettingsServiceClient(h2c, base, connect.WithGRPC(),
		connect.WithInterceptors(servertest.BearerInterceptor(created.APIKey)))
	got, err := grpc.GetSettings(context.Background(), &switchboardv1.GetSettingsRequest{})
	if err != nil || got.GetMode() != "cockpit" || got.GetQueueAutoApprove() {
		t.Fatalf("gRPC: %v %v", got, err)
	}
	// Reflection, as grpcurl list does it.
	stream := grpcreflect.NewClient(h2c, base).NewStream(context.Background())
	names, err := stream.ListServices()
	stream.Close()
	if err != nil || !slices.Contains(names, switchboardv1connect.SettingsServiceName) {
		t.Fatalf("reflection: %v %v", names, err)
	}

	// Graceful shutdown on SIGTERM: exit status 0.
	terminate(t, cmd, "")
}

// terminate sends SIGTERM and waits (at most 20 s) for exit status 0; what
// names the situation in failure messages.
func terminate(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM%s: %v", what, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit within 20s of SIGTERM%s", what)
	}
}

// The debug listener exists for benchmarks (bench/README.md) and scrapers: loopback only.
func TestDebugAddrIsLoopbackOnly(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:0"} {
		if srv, err := serveDebug(addr, logger, http.NotFoundHandler()); err == nil {
			srv.Close()
			t.Errorf("serveDebug(%q) accepted a non-loopback address", addr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv, err := serveDebug(addr, logger, http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Get("http://" + addr + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var vars struct {
		Memstats struct{ HeapInuse, StackInuse uint64 }
	}
	if err := json.NewDecoder(res.Body).Decode(&vars); err != nil || vars.Memstats.HeapInuse == 0 || vars.Memstats.StackInuse == 0 {
		t.Fatalf("memstats: %+v, %v", vars.Memstats, err)
	}
}

// RULINGS "Store, federation, MCP, A2A": the review policy is configuration
// (flag and env), zero-gate by default; the instance key that encrypts agent
// credentials comes from the environment or a file, never a flag value, and
// errors never repeat it.
func TestParseServeStoreOptions(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.reviewPolicy != store.ZeroGate || o.secretKey != nil {
		t.Fatalf("defaults: policy %q key %v err %v", o.reviewPolicy, o.secretKey != nil, err)
	}
	t.Setenv("SWITCHBOARD_REVIEW_POLICY", "review")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.reviewPolicy != store.Review {
		t.Fatalf("SWITCHBOARD_REVIEW_POLICY=review: %q %v", o.reviewPolicy, err)
	}
	if o, err = parseServe([]string{"--review-policy", "zero-gate"}, io.Discard, io.Discard); err != nil || o.reviewPolicy != store.ZeroGate {
		t.Fatalf("--review-policy over the env: %q %v", o.reviewPolicy, err)
	}
	if _, err := parseServe([]string{"--review-policy", "lenient"}, io.Discard, io.Discard); err == nil {
		t.Error("an unknown review policy was accepted")
	}
	// The store's callback and approve URLs (docs/decisions.md, "Store executions").
	if o, err = parseServe([]string{"--public-url", "https://sb.example.com"}, io.Discard, io.Discard); err != nil || o.publicURL != "https://sb.example.com" {
		t.Fatalf("--public-url: %q %v", o.publicURL, err)
	}
	if _, err := parseServe([]string{"--public-url", "sb.example.com"}, io.Discard, io.Discard); err == nil {
		t.Error("a public URL without a scheme was accepted")
	}
	// Tracing (docs/decisions.md, "Federation: tracing (issue 14)").
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.otlpEndpoint != "" {
		t.Fatalf("--otlp-endpoint default: %q %v", o.otlpEndpoint, err)
	}
	t.Setenv("SWITCHBOARD_OTLP_ENDPOINT", "http://collector:4318")
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || o.otlpEndpoint != "http://collector:4318" {
		t.Fatalf("SWITCHBOARD_OTLP_ENDPOINT: %q %v", o.otlpEndpoint, err)
	}
	if _, err := parseServe([]string{"--otlp-endpoint", "collector:4318"}, io.Discard, io.Discard); err == nil {
		t.Error("an OTLP endpoint without a scheme was accepted")
	}
	t.Setenv("SWITCHBOARD_OTLP_ENDPOINT", "")
	t.Setenv("SWITCHBOARD_REVIEW_POLICY", "")

	const key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" // 32 bytes
	t.Setenv("SWITCHBOARD_SECRET_KEY", key)
	if o, err = parseServe(nil, io.Discard, io.Discard); err != nil || string(o.secretKey) != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("SWITCHBOARD_SECRET_KEY: %q %v", o.secretKey, err)
	}
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parseServe([]string{"--secret-key-file", file}, io.Discard, io.Discard); err == nil {
		t.Error("both a key file and SWITCHBOARD_SECRET_KEY were accepted")
	}
	t.Setenv("SWITCHBOARD_SECRET_KEY", "")
	if o, err = parseServe([]string{"--secret-key-file", file}, io.Discard, io.Discard); err != nil || len(o.secretKey) != 32 {
		t.Fatalf("--secret-key-file: %v", err)
	}
	const short = "c2hvcnQga2V5"
	t.Setenv("SWITCHBOARD_SECRET_KEY", short)
	if _, err := parseServe(nil, io.Discard, io.Discard); err == nil || strings.Contains(err.Error(), short) {
		t.Errorf("a short key: %v", err)
	}
}

// TestNetworkFlags: RULINGS "The operator network" (the switch): off by
// default, the allowlist read as origins, env twins, flags over env.
func TestNetworkFlags(t *testing.T) {
	o, err := parseServe(nil, io.Discard, io.Discard)
	if err != nil || o.federation.Network.Enabled || o.federation.Network.AllowPrivate || len(o.federation.Network.Allowlist) != 0 {
		t.Fatalf("defaults: %+v %v", o.federation.Network, err)
	}
	t.Setenv("SWITCHBOARD_FEDERATION", "true")
	t.Setenv("SWITCHBOARD_FEDERATION_ALLOWLIST", "https://A.example/, https://b.example:8443")
	t.Setenv("SWITCHBOARD_FEDERATION_ALLOW_PRIVATE", "true")
	o, err = parseServe(nil, io.Discard, io.Discard)
	if err != nil || !o.federation.Network.Enabled || !o.federation.Network.AllowPrivate ||
		!slices.Equal(o.federation.Network.Allowlist, []string{"https://a.example", "https://b.example:8443"}) {
		t.Fatalf("from the environment: %+v %v", o.federation.Network, err)
	}
	o, err = parseServe([]string{"--federation=false", "--federation-allowlist", ""}, io.Discard, io.Discard)
	if err != nil || o.federation.Network.Enabled || len(o.federation.Network.Allowlist) != 0 {
		t.Fatalf("flags over env: %+v %v", o.federation.Network, err)
	}
	if _, err := parseServe([]string{"--federation-allowlist", "https://a.example/path"}, io.Discard, io.Discard); err == nil {
		t.Error("an allowlist entry with a path was accepted")
	}
}
