// Package dispatch builds and sends the store's outbound call to an agent
// (store_execution.proto): a POST to the listing's endpointUrl with
// a body shaped by inputFormat, auth headers by authMethod, the service
// headers, and a 30-second timeout, through the egress guard (docs/decisions.md "Store,
// federation, MCP, A2A": private addresses are refused unless allowed). It
// parses the agent's answer into output text, a price quote (dynamic
// pricing) or an "accepted" answer whose result comes back through the
// callback. Calls to one target URL share a circuit breaker ("Circuit breaker
// states").
//
// It knows nothing about the database: the engine decides what a result
// means for the execution, and the developer-registration probe uses Send
// with Test set and Conforms for its verdict.
package dispatch

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/switchboard-hq/switchboard/internal/breaker"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Input formats and auth methods of a listing (the store's enumerations).
const (
	FormatText = string(vocab.InputFormatText)
	FormatJSON = string(vocab.InputFormatJSON)
	FormatA2A  = string(vocab.InputFormatA2A)

	AuthNone   = string(vocab.AuthMethodNone)
	AuthBearer = string(vocab.AuthMethodBearer)
	AuthAPIKey = string(vocab.AuthMethodAPIKey)
	AuthHMAC   = "hmac"
)

// Headers of the outbound call.
const (
	HeaderExecutionID   = "X-Service-Execution-Id"
	HeaderSource        = "X-Service-Source"
	HeaderTest          = "X-Service-Test"
	HeaderSignature     = "X-Service-Signature"
	HeaderAPIKey        = "X-API-Key"
	HeaderCallbackURL   = "X-Service-Callback-Url"
	HeaderCallbackToken = "X-Service-Callback-Token"
	HeaderQuoteApproved = "X-Service-Quote-Approved"
)

// DefaultTimeout is the synchronous agent call's limit (docs/decisions.md "Store limits").
const DefaultTimeout = 30 * time.Second

// maxAnswer bounds how much of an agent's answer is read.
const maxAnswer = 1 << 20

// Call is one outbound request to an agent.
type Call struct {
	// URL is the listing's endpointUrl.
	URL string
	// ExecutionID goes in X-Service-Execution-Id and in the json and a2a
	// bodies.
	ExecutionID string
	// Input is the task text.
	Input string
	// Format is text, json or a2a (text when empty).
	Format string
	// AuthMethod is none, bearer, api_key or hmac (none when empty);
	// Credential is the opened secret for the other three.
	AuthMethod string
	Credential string
	// Test marks a conformance probe: header X-Service-Test: true and body
	// field "test": true. Probes bypass the circuit breaker: they diagnose
	// the agent and must see its real answer.
	Test bool
	// Source is X-Service-Source; "marketplace" when empty.
	Source string
	// CallbackURL and CallbackToken tell an agent that answers later where
	// to deliver its result and how to prove it is the one asked (sent as
	// headers, and in the json body).
	CallbackURL   string
	CallbackToken string
	// QuoteApproved marks the real run after the requester approved the
	// agent's price quote (body field "quoteApproved": true, header
	// X-Service-Quote-Approved: true), so the agent does not quote again.
	QuoteApproved bool
	// Context is the layer-2 context sent only to full_access executions
	// (body field "context" in the json and a2a formats); nil for
	// output_only, which sees the prompt alone.
	Context map[string]any
}

// Kind is what the agent's answer means.
type Kind string

// The kinds of answer.
const (
	// KindOutput is a finished answer: Output holds its text.
	KindOutput Kind = "output"
	// KindQuote is a price_quote (dynamic pricing): Quote is set.
	KindQuote Kind = "quote"
	// KindAccepted is an agent that took the task and will answer through
	// the callback (HTTP 202, or a status such as accepted/working).
	KindAccepted Kind = "accepted"
)

// Quote is an agent's price for the task.
type Quote struct {
	// Rounded half away from zero to the cent when read, so the amount
	// shown for approval is the amount held.
	Amount    money.Cents `json:"amount"`
	Currency  string      `json:"currency"`
	Breakdown string      `json:"breakdown"`
}

// Result is a 2xx answer of an agent.
type Result struct {
	Kind       Kind
	Output     string
	Quote      *Quote
	StatusCode int
	Elapsed    time.Duration
}

// StatusError is an answer outside 2xx.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("agent answered HTTP %d: %s", e.Code, e.Body)
}

// ErrTimeout marks a call the agent did not answer within the timeout.
var ErrTimeout = errors.New("the agent did not answer in time")

// ErrOpen marks a call refused at once because the target's breaker is open
// (or half-open and already probing).
var ErrOpen = errors.New("circuit breaker open for this agent endpoint")

// Config tunes a Dispatcher; zero values take the documented defaults.
type Config struct {
	// Egress guards every connection.
	Egress egress.Policy
	// Timeout of one call; DefaultTimeout when zero.
	Timeout time.Duration
	// Breaker settings (docs/decisions.md "Store limits"): zero fields take
	// the defaults, 5 failures, 60 s open, 2 probes, which run at most two
	// at once (CapProbes is always set).
	Breaker breaker.Config
	// Now is the clock the breakers' open period runs on; the wall clock
	// when nil (the server passes its injected one).
	Now func() time.Time
}

// Dispatcher sends calls; safe for concurrent use.
type Dispatcher struct {
	client   *http.Client
	timeout  time.Duration
	breakers *breaker.Set
}

// New makes a Dispatcher.
func New(cfg Config) *Dispatcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now //nolint:forbidigo // a Dispatcher made without the server's clock: package tests
	}
	cfg.Breaker.CapProbes = true
	return &Dispatcher{client: cfg.Egress.Client(cfg.Timeout), timeout: cfg.Timeout, breakers: breaker.New(cfg.Breaker, cfg.Now)}
}

// Send makes the call through the target's breaker. A non-2xx answer is a
// *StatusError; a call past the timeout is ErrTimeout; a fast reject is
// ErrOpen. Every failure counts against the breaker except the caller's own
// cancellation.
func (d *Dispatcher) Send(ctx context.Context, c Call) (Result, error) {
	body, err := Body(c)
	if err != nil {
		return Result{}, err
	}
	if c.Test {
		return d.send(ctx, c, body)
	}
	return guard(d.breakers, c.URL, func() (Result, error) { return d.send(ctx, c, body) })
}

// Guarded runs fn, another kind of call to target (a hub's dispatch to a
// spoke), through target's breaker, with the call timeout on its context:
// a failing target fast-rejects every call to it like an agent's endpoint.
func (d *Dispatcher) Guarded(ctx context.Context, target string, fn func(ctx context.Context) error) error {
	_, err := guard(d.breakers, target, func() (Result, error) {
		ctx, cancel := context.WithTimeout(ctx, d.timeout)
		defer cancel()
		if err := fn(ctx); err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Result{}, fmt.Errorf("%w (%s)", ErrTimeout, d.timeout)
			}
			return Result{}, err
		}
		return Result{}, nil
	})
	return err
}

// State answers the breaker state of a target URL: closed, open or
// half-open.
func (d *Dispatcher) State(url string) string { return d.breakers.State(url).String() }

// guard runs fn through target's breaker: refused at once (ErrOpen) while it
// is open or busy probing; the caller's own cancellation does not count.
func guard(set *breaker.Set, target string, fn func() (Result, error)) (Result, error) {
	ticket, _, ok := set.Allow(target)
	if !ok {
		return Result{}, ErrOpen
	}
	res, err := fn()
	switch {
	case err == nil:
		set.Record(ticket, breaker.Success)
	case errors.Is(err, context.Canceled):
		set.Record(ticket, breaker.Abandoned)
	default:
		set.Record(ticket, breaker.Failure)
	}
	return res, err
}

func (d *Dispatcher) send(ctx context.Context, c Call, body []byte) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("the agent's endpointUrl is not a valid URL: %w", err)
	}
	setHeaders(req.Header, c, body)
	start := time.Now() //nolint:forbidigo // measures the network call's real duration, not business time
	res, err := d.do(ctx, req, c.Format)
	res.Elapsed = time.Since(start) //nolint:forbidigo // as above: the call's real duration
	return res, err
}

func (d *Dispatcher) do(ctx context.Context, req *http.Request, format string) (Result, error) {
	resp, err := d.client.Do(req)
	if err != nil {
		return Result{}, d.callError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return Result{}, d.callError(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Result{}, &StatusError{Code: resp.StatusCode, Body: clip(string(raw), 500)}
	}
	res, err := Parse(format, resp.StatusCode, raw)
	res.StatusCode = resp.StatusCode
	return res, err
}

// callError marks a call past the timeout (the context's, or the
// transport's wait for headers) as ErrTimeout.
func (d *Dispatcher) callError(ctx context.Context, err error) error {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w (%s)", ErrTimeout, d.timeout)
	}
	return &UnreachableError{cause: err}
}

// UnreachableError is a call that got no answer. Its text is shown to the
// requester (the execution's error), so it says why in words only
// (egress.Reason); the cause, with addresses, is kept for errors.Is and logs.
type UnreachableError struct{ cause error }

func (e *UnreachableError) Error() string {
	return "the agent could not be reached: " + egress.Reason(e.cause)
}

func (e *UnreachableError) Unwrap() error { return e.cause }

// Body is the request body for c's input format.
func Body(c Call) ([]byte, error) {
	var v map[string]any
	switch c.Format {
	case FormatText, "":
		v = map[string]any{"message": c.Input}
	case FormatJSON:
		v = map[string]any{"task": c.Input, "executionId": c.ExecutionID}
		if c.CallbackURL != "" {
			v["callbackUrl"] = c.CallbackURL
		}
	case FormatA2A:
		v = map[string]any{
			"jsonrpc": "2.0",
			"id":      c.ExecutionID,
			"method":  "tasks/send",
			"params": map[string]any{
				"id": c.ExecutionID,
				"message": map[string]any{
					"role":  "user",
					"parts": []any{map[string]any{"type": "text", "text": c.Input}},
				},
			},
		}
	default:
		return nil, fmt.Errorf("unknown input format %q", c.Format)
	}
	if c.Context != nil && c.Format != FormatText && c.Format != "" {
		if c.Format == FormatA2A {
			v["params"].(map[string]any)["metadata"] = map[string]any{"context": c.Context}
		} else {
			v["context"] = c.Context
		}
	}
	if c.QuoteApproved {
		v["quoteApproved"] = true
	}
	if c.Test {
		v["test"] = true
	}
	return json.Marshal(v)
}

func setHeaders(h http.Header, c Call, body []byte) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/plain;q=0.9")
	h.Set(HeaderExecutionID, c.ExecutionID)
	source := c.Source
	if source == "" {
		source = "marketplace"
	}
	h.Set(HeaderSource, source)
	if c.Test {
		h.Set(HeaderTest, "true")
	}
	if c.QuoteApproved {
		h.Set(HeaderQuoteApproved, "true")
	}
	if c.CallbackURL != "" {
		h.Set(HeaderCallbackURL, c.CallbackURL)
	}
	if c.CallbackToken != "" {
		h.Set(HeaderCallbackToken, c.CallbackToken)
	}
	switch c.AuthMethod {
	case AuthBearer:
		h.Set("Authorization", "Bearer "+c.Credential)
	case AuthAPIKey:
		h.Set(HeaderAPIKey, c.Credential)
	case AuthHMAC:
		h.Set(HeaderSignature, Sign(c.Credential, body))
	}
}

// Sign is the hmac auth method's signature: hex HMAC-SHA256 of the body
// under the shared secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Timeout reports whether err is a call the agent did not answer in time.
func Timeout(err error) bool { return errors.Is(err, ErrTimeout) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
