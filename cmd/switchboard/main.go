// Command switchboard runs the Switchboard server.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"entgo.io/ent/dialect"
	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/internal/release"
	"github.com/switchboard-hq/switchboard/internal/replica"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/store"
)

func main() {
	os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// usageError is a command-line mistake (a command, flag or flag value the
// command does not take; a flag's environment twin counts as the flag):
// exitCode prints it as one line with a hint and answers 2, as the flag
// package's ExitOnError does.
type usageError struct {
	// command is the subcommand the mistake is in ("" for none).
	command string
	err     error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// mistake marks err as a usage error of command.
func mistake(command string, err error) error { return &usageError{command: command, err: err} }

// hint is the line after a usage error: where the usage is.
func (e *usageError) hint() string {
	if e.command == "" {
		return "Run 'switchboard help' for the commands."
	}
	return "Run 'switchboard " + e.command + " -h' for its flags."
}

// exitCode is 0 for success and for a help request, 2 for a command-line
// mistake, 1 for anything else; it prints what went wrong in one line
// (a mistake with the hint after it).
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		prefix := "switchboard"
		if usage.command != "" {
			prefix += " " + usage.command
		}
		fmt.Fprintf(stderr, "%s: %v\n%s\n", prefix, usage.err, usage.hint())
		return 2
	}
	fmt.Fprintln(stderr, "switchboard:", err)
	return 1
}

const usage = `usage: switchboard <command> [flags]

commands:
  serve     run the server (switchboard serve -h for flags)
  migrate   apply this build's schema to the database and exit
  backup    write a consistent copy of a SQLite database, also while it serves
  restore   put a backup in place of a SQLite database that no server holds
  version   print the release version and the commit of the build

Each command takes -h for its flags.
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return mistake("", errors.New("no command given"))
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "migrate":
		return migrateCmd(args[1:], stdout)
	case "backup":
		return backupCmd(args[1:], stdout)
	case "restore":
		return restoreCmd(args[1:], stdout)
	case "version", "--version", "-v":
		if len(args) > 1 {
			return mistake("", fmt.Errorf("version takes no arguments, not %q", strings.Join(args[1:], " ")))
		}
		fmt.Fprintln(stdout, "switchboard", release.Read())
		return nil
	case "help", "-h", "--help":
		return help(args[1:], stdout, stderr)
	}
	return mistake("", fmt.Errorf("unknown command %q", args[0]))
}

// help prints the commands, or with a command's name its flags (help serve
// is serve -h); a name that is no command is a usage error, like any other.
func help(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return nil
	case len(args) > 1:
		return mistake("", fmt.Errorf("help takes one command, not %q", strings.Join(args, " ")))
	}
	switch args[0] {
	case "serve", "migrate", "backup", "restore":
		return run([]string{args[0], "-h"}, stdout, stderr)
	case "version", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return mistake("", fmt.Errorf("help: unknown command %q", args[0]))
}

// options are the serve flags; each has a SWITCHBOARD_* environment twin.
type options struct {
	addr          string
	dsn           string
	heartbeat     time.Duration
	logLevel      string
	rateLimit     int
	authRateLimit int
	// fedRateLimit is the federation class: requests per minute per calling instance.
	fedRateLimit int
	// heavyRateLimit is the heavy class: store executions, A2A sends and
	// the MCP marketplace tools per minute per client IP.
	heavyRateLimit int
	// guessRateLimit is the attempts at one pack's or listing's access password
	// per minute across client IPs (each also counts in the auth class).
	guessRateLimit int
	// maxStreams and maxMCPSessions cap what one key (a session: its
	// account) holds open at once.
	maxStreams     int
	maxMCPSessions int
	maxBody        int64
	holdLimit      int64
	cronSecret     string
	metricsToken   string
	llm            llm.Config
	debugAddr      string
	allowPrivate   bool
	dbMaxConns     int
	reviewPolicy   store.ReviewPolicy
	// publicURL is the instance's address as store agents reach it.
	publicURL string
	// otlpEndpoint is where traces go; "" for none.
	otlpEndpoint string
	// secretKey seals stored secrets; nil when none is configured.
	secretKey []byte
	// federation is --role and the federation timings.
	federation server.FederationConfig
	// timerLease is how long a replica that stopped renewing its row still
	// counts as alive (its stream slots, its idempotency claims).
	timerLease time.Duration
	// migrate is --migrate: migrate the schema at start (false: a replica
	// that waits for `switchboard migrate`).
	migrate bool
	// shutdownTimeout bounds a graceful shutdown (--shutdown-timeout).
	shutdownTimeout time.Duration
}

// parseServe reads the serve flags. A help request prints the usage to
// stdout and answers flag.ErrHelp; a flag the parser refuses, a bad value of
// a flag or of its environment twin, or a stray argument answers a usage
// error (exitCode prints it in one line, without the usage).
func parseServe(args []string, stdout, _ io.Writer) (options, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	// The parser writes before it says whether it was asked for help, so its
	// output waits here until the destination is known.
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: switchboard serve [flags]\n\nEach flag has the environment twin named in its text.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var o options
	var err error
	fs.StringVar(&o.addr, "addr", env("SWITCHBOARD_ADDR", "127.0.0.1:8080"), "listen address (SWITCHBOARD_ADDR)")
	dbFlag(fs, &o.dsn)
	if o.migrate, err = envBoolDefault("SWITCHBOARD_MIGRATE", true); err != nil {
		return o, mistake("serve", err)
	}
	fs.BoolVar(&o.migrate, "migrate", o.migrate,
		"migrate the schema at start; false: wait (/readyz 503) until `switchboard migrate` has (SWITCHBOARD_MIGRATE)")
	shutdown, err := time.ParseDuration(env("SWITCHBOARD_SHUTDOWN_TIMEOUT", "20s"))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_SHUTDOWN_TIMEOUT: %w", err))
	}
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", shutdown,
		"on SIGTERM, how long requests in flight have to finish before the process exits (SWITCHBOARD_SHUTDOWN_TIMEOUT)")
	fs.StringVar(&o.logLevel, "log-level", env("SWITCHBOARD_LOG_LEVEL", "info"), "debug, info, warn or error (SWITCHBOARD_LOG_LEVEL)")
	hb, err := time.ParseDuration(env("SWITCHBOARD_HEARTBEAT", "30s"))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_HEARTBEAT: %w", err))
	}
	fs.DurationVar(&o.heartbeat, "heartbeat", hb, "chat stream heartbeat period (SWITCHBOARD_HEARTBEAT)")
	if o.rateLimit, err = envInt("SWITCHBOARD_RATE_LIMIT_PER_MINUTE", 120); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.rateLimit, "rate-limit-per-minute", o.rateLimit, "requests per minute per API key (SWITCHBOARD_RATE_LIMIT_PER_MINUTE)")
	if o.authRateLimit, err = envInt("SWITCHBOARD_AUTH_RATE_LIMIT_PER_MINUTE", 10); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.authRateLimit, "auth-rate-limit-per-minute", o.authRateLimit,
		"login/signup/setup requests and access-password attempts per minute per client IP (SWITCHBOARD_AUTH_RATE_LIMIT_PER_MINUTE)")
	if o.guessRateLimit, err = envInt("SWITCHBOARD_PASSWORD_GUESS_LIMIT_PER_MINUTE", 10); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.guessRateLimit, "password-guess-limit-per-minute", o.guessRateLimit,
		"attempts at one capability pack's or store listing's access password per minute, across client IPs (SWITCHBOARD_PASSWORD_GUESS_LIMIT_PER_MINUTE)")
	if o.fedRateLimit, err = envInt("SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE", 30); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.fedRateLimit, "federation-rate-limit-per-minute", o.fedRateLimit,
		"federation platform requests per minute per calling instance; per client IP without an instance credential (SWITCHBOARD_FEDERATION_RATE_LIMIT_PER_MINUTE)")
	if o.heavyRateLimit, err = envInt("SWITCHBOARD_HEAVY_RATE_LIMIT_PER_MINUTE", 20); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.heavyRateLimit, "heavy-rate-limit-per-minute", o.heavyRateLimit,
		"store executions, A2A sends and MCP marketplace_* tool calls per minute per client IP (SWITCHBOARD_HEAVY_RATE_LIMIT_PER_MINUTE)")
	if o.maxStreams, err = envInt("SWITCHBOARD_MAX_STREAMS_PER_KEY", 50); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.maxStreams, "max-streams-per-key", o.maxStreams,
		"streams of any kind open at once per API key, per account for the dashboard's session (SWITCHBOARD_MAX_STREAMS_PER_KEY)")
	if o.maxMCPSessions, err = envInt("SWITCHBOARD_MAX_MCP_SESSIONS_PER_KEY", 50); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.maxMCPSessions, "max-mcp-sessions-per-key", o.maxMCPSessions,
		"MCP sessions open at once per API key (SWITCHBOARD_MAX_MCP_SESSIONS_PER_KEY)")
	lease, err := time.ParseDuration(env("SWITCHBOARD_TIMER_LEASE", replica.DefaultLease.String()))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_TIMER_LEASE: %w", err))
	}
	fs.DurationVar(&o.timerLease, "timer-lease", lease,
		"how long a replica that stops renewing its row (a crash) still holds what it held in the database: its stream slots and idempotency claims (SWITCHBOARD_TIMER_LEASE)")
	maxBody, err := envInt("SWITCHBOARD_MAX_BODY_BYTES", httpapi.DefaultBodyLimit)
	if err != nil {
		return o, mistake("serve", err)
	}
	fs.Int64Var(&o.maxBody, "max-body-bytes", int64(maxBody), "request body limit in bytes (SWITCHBOARD_MAX_BODY_BYTES)")
	holdLimit, err := envInt("SWITCHBOARD_ECONOMY_HOLD_LIMIT", 0)
	if err != nil {
		return o, mistake("serve", err)
	}
	fs.Int64Var(&o.holdLimit, "economy-hold-limit", int64(holdLimit),
		"the most, in cents, a client may hold open on the ledger across its contracts; 0 is no limit (SWITCHBOARD_ECONOMY_HOLD_LIMIT)")
	fs.StringVar(&o.cronSecret, "cron-secret", env("SWITCHBOARD_CRON_SECRET", ""),
		"the secret of POST /api/cron/cortex-scan (X-Cron-Secret or Authorization: Bearer); empty: the route answers 404 (SWITCHBOARD_CRON_SECRET)")
	fs.StringVar(&o.llm.BaseURL, "llm-base-url", env("SWITCHBOARD_LLM_BASE_URL", ""), "OpenAI-compatible provider, e.g. https://host/v1; empty for none (SWITCHBOARD_LLM_BASE_URL)")
	fs.StringVar(&o.llm.Model, "llm-model", env("SWITCHBOARD_LLM_MODEL", ""), "chat model name for the provider (SWITCHBOARD_LLM_MODEL)")
	fs.StringVar(&o.llm.TranscriptionModel, "llm-transcription-model", env("SWITCHBOARD_LLM_TRANSCRIPTION_MODEL", ""),
		"audio transcription model for voice messages; empty: voice is not available (SWITCHBOARD_LLM_TRANSCRIPTION_MODEL)")
	fs.StringVar(&o.llm.ImageModel, "llm-image-model", env("SWITCHBOARD_LLM_IMAGE_MODEL", ""),
		"image generation model; empty: the assistant cannot draw (SWITCHBOARD_LLM_IMAGE_MODEL)")
	if o.llm.ContextTokens, err = envInt("SWITCHBOARD_LLM_CONTEXT_TOKENS", llm.DefaultContextTokens); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.llm.ContextTokens, "llm-context-tokens", o.llm.ContextTokens,
		"the assistant's prompt budget in tokens, estimated at 4 characters each (SWITCHBOARD_LLM_CONTEXT_TOKENS)")
	if o.dbMaxConns, err = envInt("SWITCHBOARD_DB_MAX_CONNS", 20); err != nil {
		return o, mistake("serve", err)
	}
	fs.IntVar(&o.dbMaxConns, "db-max-conns", o.dbMaxConns, "PostgreSQL connections this process may open (SWITCHBOARD_DB_MAX_CONNS); SQLite ignores it")
	fs.StringVar(&o.debugAddr, "debug-addr", env("SWITCHBOARD_DEBUG_ADDR", ""), "loopback address for /metrics, /debug/vars and /debug/pprof; empty for none (SWITCHBOARD_DEBUG_ADDR)")
	fs.StringVar(&o.metricsToken, "metrics-token", env("SWITCHBOARD_METRICS_TOKEN", ""),
		"also serve GET /metrics on the main address to \"Authorization: Bearer <token>\"; empty: it answers 404 there (SWITCHBOARD_METRICS_TOKEN)")
	allowPrivate, err := envBool("SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS")
	if err != nil {
		return o, mistake("serve", err)
	}
	fs.BoolVar(&o.allowPrivate, "allow-private-endpoints", allowPrivate,
		"let webhooks reach private, loopback and link-local addresses (SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS)")
	policy := fs.String("review-policy", env("SWITCHBOARD_REVIEW_POLICY", ""),
		"store review policy: zero-gate or review; review on a hub, zero-gate otherwise (SWITCHBOARD_REVIEW_POLICY)")
	fs.StringVar(&o.federation.Role, "role", env("SWITCHBOARD_ROLE", "standalone"),
		"standalone, or hub: serve the federation platform to the instances that join it (SWITCHBOARD_ROLE)")
	beat, err := time.ParseDuration(env("SWITCHBOARD_HEARTBEAT_INTERVAL", "1h"))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_HEARTBEAT_INTERVAL: %w", err))
	}
	fs.DurationVar(&o.federation.HeartbeatInterval, "heartbeat-interval", beat,
		"how often a joined instance sends its hub a heartbeat; 1h to 12h (SWITCHBOARD_HEARTBEAT_INTERVAL)")
	stale, err := time.ParseDuration(env("SWITCHBOARD_STALE_AFTER", "24h"))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_STALE_AFTER: %w", err))
	}
	fs.DurationVar(&o.federation.StaleAfter, "stale-after", stale,
		"on a hub, how long without a heartbeat before an instance is listed stale (SWITCHBOARD_STALE_AFTER)")
	retries := fs.String("federation-retry-schedule", env("SWITCHBOARD_FEDERATION_RETRY_SCHEDULE", "30s,2m,8m"),
		"delays between attempts of an outbound federation delivery, comma-separated (SWITCHBOARD_FEDERATION_RETRY_SCHEDULE)")
	retention, err := time.ParseDuration(env("SWITCHBOARD_AUDIT_RETENTION", "720h"))
	if err != nil {
		return o, mistake("serve", fmt.Errorf("SWITCHBOARD_AUDIT_RETENTION: %w", err))
	}
	fs.DurationVar(&o.federation.AuditRetention, "audit-retention", retention,
		"how long the federation audit log keeps its rows (SWITCHBOARD_AUDIT_RETENTION)")
	if o.federation.Network.Enabled, err = envBool("SWITCHBOARD_FEDERATION"); err != nil {
		return o, mistake("serve", err)
	}
	fs.BoolVar(&o.federation.Network.Enabled, "federation", o.federation.Network.Enabled,
		"serve the operator network (connections between users on different instances); the admin's federation settings start from it (SWITCHBOARD_FEDERATION)")
	allowlist := fs.String("federation-allowlist", env("SWITCHBOARD_FEDERATION_ALLOWLIST", ""),
		"comma-separated origins the operator network admits, e.g. https://a.example,https://b.example; empty admits any (SWITCHBOARD_FEDERATION_ALLOWLIST)")
	if o.federation.Network.AllowPrivate, err = envBool("SWITCHBOARD_FEDERATION_ALLOW_PRIVATE"); err != nil {
		return o, mistake("serve", err)
	}
	fs.BoolVar(&o.federation.Network.AllowPrivate, "federation-allow-private", o.federation.Network.AllowPrivate,
		"let operator-network peers be plain http and private or loopback addresses (SWITCHBOARD_FEDERATION_ALLOW_PRIVATE)")
	fs.StringVar(&o.publicURL, "public-url", env("SWITCHBOARD_PUBLIC_URL", ""),
		"the instance's address as store agents reach it, for their callback URL and quote approve URLs, e.g. https://sb.example.com (SWITCHBOARD_PUBLIC_URL)")
	fs.StringVar(&o.otlpEndpoint, "otlp-endpoint", env("SWITCHBOARD_OTLP_ENDPOINT", ""),
		"base URL of an OTLP/HTTP trace receiver, e.g. http://localhost:4318 (spans go to its /v1/traces); empty for no tracing (SWITCHBOARD_OTLP_ENDPOINT)")
	keyFile := fs.String("secret-key-file", env("SWITCHBOARD_SECRET_KEY_FILE", ""),
		"file holding the instance key that encrypts stored agent credentials: 32 random bytes in base64 or hex "+
			"(SWITCHBOARD_SECRET_KEY_FILE; or the key itself in SWITCHBOARD_SECRET_KEY); without either, the first start "+
			"generates "+generatedKeyName+" beside a SQLite database, or in the working directory with PostgreSQL")
	// The keys come only from the environment or a file: a flag would show in ps.
	o.llm.APIKey = env("SWITCHBOARD_LLM_API_KEY", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = out.WriteTo(stdout)
			return o, err
		}
		// The parser's own text (the error, then the whole usage) is
		// dropped: the error alone is printed, with a hint.
		return o, mistake("serve", err)
	}
	if *policy == "" {
		*policy = string(store.ZeroGate)
		if o.federation.Role == "hub" {
			*policy = string(store.Review)
		}
	}
	if o.reviewPolicy, err = store.ParsePolicy(*policy); err != nil {
		return o, mistake("serve", err)
	}
	for _, part := range strings.Split(*retries, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return o, mistake("serve", fmt.Errorf("--federation-retry-schedule: %q is not a positive duration", part))
		}
		o.federation.RetrySchedule = append(o.federation.RetrySchedule, d)
	}
	if o.federation.Network.Allowlist, err = network.Allowlist(strings.Split(*allowlist, ",")); err != nil {
		return o, mistake("serve", fmt.Errorf("--federation-allowlist: %w", err))
	}
	if o.llm.BaseURL != "" {
		if _, err := egress.ParseURL(o.llm.BaseURL); err != nil {
			return o, mistake("serve", fmt.Errorf("--llm-base-url: %w", err))
		}
	}
	if o.publicURL != "" {
		if _, err := egress.ParseURL(o.publicURL); err != nil {
			return o, mistake("serve", fmt.Errorf("--public-url: %w", err))
		}
	}
	if o.otlpEndpoint != "" {
		if _, err := server.OTLPTracesURL(o.otlpEndpoint); err != nil {
			return o, mistake("serve", err)
		}
	}
	if o.secretKey, err = secretKey(*keyFile, env("SWITCHBOARD_SECRET_KEY", "")); err != nil {
		return o, err // the key's file or value: not the command line's
	}
	if fs.NArg() > 0 {
		return o, mistake("serve", fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " ")))
	}
	if o.rateLimit <= 0 || o.authRateLimit <= 0 || o.fedRateLimit <= 0 || o.heavyRateLimit <= 0 || o.guessRateLimit <= 0 ||
		o.holdLimit < 0 || o.maxStreams <= 0 || o.maxMCPSessions <= 0 || o.maxBody <= 0 || o.heartbeat <= 0 || o.timerLease <= 0 || o.dbMaxConns <= 0 || o.llm.ContextTokens <= 0 ||
		o.federation.HeartbeatInterval <= 0 || o.federation.StaleAfter <= 0 || o.federation.AuditRetention <= 0 || o.shutdownTimeout <= 0 {
		return o, mistake("serve", errors.New("limits, the heartbeats, --timer-lease, --llm-context-tokens, --stale-after, --audit-retention and --shutdown-timeout must be positive"))
	}
	if o.federation.Role != "standalone" && o.federation.Role != "hub" {
		return o, mistake("serve", fmt.Errorf("--role must be standalone or hub, not %q", o.federation.Role))
	}
	return o, nil
}

// secretKey reads the instance key from a file or the environment (one of
// them); neither means none. Errors never quote the key.
func secretKey(file, inline string) ([]byte, error) {
	switch {
	case file != "" && inline != "":
		return nil, errors.New("set SWITCHBOARD_SECRET_KEY or --secret-key-file, not both")
	case file != "":
		return readKeyFile(file)
	case inline != "":
		k, err := secrets.ParseKey(inline)
		if err != nil {
			return nil, fmt.Errorf("SWITCHBOARD_SECRET_KEY: %w", err)
		}
		return k, nil
	}
	return nil, nil
}

func readKeyFile(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("secret key file: %w", err)
	}
	k, err := secrets.ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", file, err)
	}
	return k, nil
}

// generatedKeyName is the file the first start writes the instance key to
// when none is configured (docs/decisions.md, "The instance key").
const generatedKeyName = "switchboard.key"

// generatedKeyPath is where that file lives: beside a SQLite database; with
// PostgreSQL, which has no directory of its own here, the working directory.
func generatedKeyPath(dsn string) string {
	if f := db.SQLiteFile(dsn); f != "" {
		return filepath.Join(filepath.Dir(f), generatedKeyName)
	}
	return generatedKeyName
}

// loadOrCreateKey reads the instance key from path or, when there is no such
// file, writes 32 random bytes there (base64, mode 0600) and answers
// created. The file appears whole or not at all: it is written aside and
// linked into place, and a link never replaces a file, so of two first
// starts at once both end up with the one key that won.
func loadOrCreateKey(path string) (key []byte, created bool, err error) {
	key, err = readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	key = make([]byte, secrets.KeySize)
	// crypto/rand.Read never answers an error: it crashes the program instead.
	_, _ = rand.Read(key)
	// CreateTemp makes the file with mode 0600.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".switchboard.key-*")
	if err != nil {
		return nil, false, fmt.Errorf("instance key: %w", err)
	}
	// The name is only a step on the way to path: linked or not, it goes.
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, false, fmt.Errorf("instance key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		key, err = readKeyFile(path)
		return key, false, err
	} else if err != nil {
		return nil, false, fmt.Errorf("instance key: %w", err)
	}
	return key, true, nil
}

// ensureKey gives o the generated instance key when none is configured, and
// logs the file's path the time it is made (the key itself never).
func ensureKey(o *options, logger *slog.Logger) error {
	if o.secretKey != nil {
		return nil
	}
	path, err := filepath.Abs(generatedKeyPath(o.dsn))
	if err != nil {
		return fmt.Errorf("instance key: %w", err)
	}
	key, created, err := loadOrCreateKey(path)
	if err != nil {
		return err
	}
	o.secretKey = key
	if created {
		logger.Warn(msgKeyCreated, "path", path)
	}
	return nil
}

const msgKeyCreated = "generated the instance key, which seals stored credentials: back this file up, " +
	"without it they cannot be read (or set SWITCHBOARD_SECRET_KEY_FILE to keep it elsewhere)"

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envBool(name string) (bool, error) { return envBoolDefault(name, false) }

func envBoolDefault(name string, def bool) (bool, error) {
	v := env(name, "")
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func envInt(name string, def int) (int, error) {
	v := env(name, "")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

func newLogger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})
	return slog.New(httpapi.LogHandler{Handler: h}), nil
}

func serve(args []string, stdout, stderr io.Writer) error {
	o, err := parseServe(args, stdout, stderr)
	if err != nil {
		return err
	}
	logger, err := newLogger(o.logLevel, stderr)
	if err != nil {
		return err
	}
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// A SQLite database is locked for as long as this process serves it, so
	// that restore refuses to replace it underneath.
	lock, err := lockDatabase(o.dsn, false)
	if err != nil {
		return err
	}
	if lock != nil {
		defer lock.Close()
	}
	var database *db.DB
	if o.migrate {
		database, err = db.Open(ctx, o.dsn)
	} else {
		database, err = db.Connect(ctx, o.dsn)
	}
	if err != nil {
		return err
	}
	defer database.Close()
	if err := ensureKey(&o, logger); err != nil {
		return err
	}
	if database.Dialect == dialect.Postgres {
		database.SQL.SetMaxOpenConns(o.dbMaxConns)
		database.SQL.SetMaxIdleConns(min(o.dbMaxConns, 10))
	}
	// One registry for both addresses that serve it.
	meters := metrics.New()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	listener := &onceCloser{Listener: ln}
	url := dashboardURL(o.publicURL, ln.Addr())
	f := &front{db: database, logger: logger,
		build: func() (*server.App, error) {
			return server.New(server.Config{
				DB: database, Clock: clockwork.NewRealClock(), Logger: logger, BodyLimit: o.maxBody, Heartbeat: o.heartbeat, EconomyHoldLimit: o.holdLimit, CronSecret: o.cronSecret,
				Limits: gate.Limits{PerKey: o.rateLimit, Auth: o.authRateLimit, Federation: o.fedRateLimit, Heavy: o.heavyRateLimit,
					Secret: o.guessRateLimit, StreamsPerKey: o.maxStreams, MCPSessionsPerKey: o.maxMCPSessions},
				LLM: llm.New(o.llm), ContextTokens: o.llm.ContextTokens, AllowPrivateEndpoints: o.allowPrivate,
				SecretKey: o.secretKey, ReviewPolicy: o.reviewPolicy,
				Executions: server.ExecutionConfig{PublicURL: o.publicURL},
				Federation: o.federation, Tracing: server.TracingConfig{OTLPEndpoint: o.otlpEndpoint}, TimerLease: o.timerLease,
				Metrics: meters, MetricsToken: o.metricsToken,
			})
		},
		built: func(*server.App) {
			if err := logDashboard(ctx, logger, database, url); err != nil {
				logger.Warn("looking for the owner", "err", err)
			}
		},
	}
	defer f.close()
	if o.debugAddr != "" {
		dbg, err := serveDebug(o.debugAddr, logger, meters.Handler())
		if err != nil {
			return err
		}
		defer dbg.Close()
	}
	srv := newHTTPServer(f, logger)
	logger.Info("switchboard listening", "addr", ln.Addr().String(), "db", db.Redact(o.dsn), "version", release.Read().String(),
		"llm", o.llm.BaseURL != "", "allow_private_endpoints", o.allowPrivate,
		"review_policy", o.reviewPolicy, "secret_key", o.secretKey != nil, "role", o.federation.Role, "migrate", o.migrate)
	if o.federation.HeartbeatInterval < time.Hour || o.federation.HeartbeatInterval > 12*time.Hour {
		// Accepted for tests; the documented range is what a hub expects.
		logger.Warn("--heartbeat-interval is outside the documented 1h to 12h", "interval", o.federation.HeartbeatInterval)
	}
	// The app is built now when the schema is current (always after a
	// migration); otherwise it waits for `switchboard migrate`.
	if err := f.ready(ctx); err != nil {
		if o.migrate || !errors.Is(err, db.ErrSchemaNotCurrent) {
			return err
		}
		logger.Warn("the database does not carry this build's schema: /readyz answers 503 until switchboard migrate has run", "err", err)
		go f.await(ctx)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(listener) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return shutdown(srv, listener, f, errc, o.shutdownTimeout, logger)
}

// shutdown drains the replica on SIGTERM: /readyz turns 503 and the
// listener closes at once, the open streams end with a reconnect hint, the
// requests in flight finish, all within timeout; then the app closes
// (serve's deferred calls).
func shutdown(srv *http.Server, ln net.Listener, f *front, errc <-chan error, timeout time.Duration, logger *slog.Logger) error {
	logger.Info("shutting down", "shutdown_timeout", timeout.String())
	f.draining.Store(true)
	_ = ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	// Shutdown waits for the requests in flight; the streams, which never
	// end by themselves, are ended meanwhile.
	go func() { done <- srv.Shutdown(ctx) }()
	if app := f.app.Load(); app != nil {
		app.Drain(ctx)
	}
	if err := <-done; err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown: requests still in flight after %s were cut: %w", timeout, err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Messages of the start-up line that says where the dashboard is.
const (
	msgDashboard      = "open the dashboard"
	msgDashboardFirst = "open the dashboard: no owner yet, the first visit creates the owner account"
)

// logDashboard logs one line with the dashboard's address and, while the
// instance has no owner, that the first visit creates it (the login page
// offers that only then).
func logDashboard(ctx context.Context, logger *slog.Logger, d *db.DB, url string) error {
	owned, err := d.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Exist(ctx)
	if err != nil {
		return fmt.Errorf("looking for the owner: %w", err)
	}
	msg := msgDashboard
	if !owned {
		msg = msgDashboardFirst
	}
	logger.Info(msg, "url", url)
	return nil
}

// dashboardURL is where the operator opens the dashboard: the public URL when
// one is set, else the listen address, where a wildcard host (every
// interface) is reached as localhost.
func dashboardURL(publicURL string, addr net.Addr) string {
	if publicURL != "" {
		return strings.TrimSuffix(publicURL, "/") + "/"
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// newHTTPServer serves HTTP/1.1 and cleartext HTTP/2 (h2c, for gRPC clients)
// with timeouts on every phase.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Handler:           h,
		Protocols:         &protocols,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}
