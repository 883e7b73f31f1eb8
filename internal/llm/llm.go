// Package llm calls an OpenAI-compatible HTTP provider, the one kind of
// language model Switchboard can be configured with (docs/decisions.md
// "Language model", "The assistant (issue 16)"): chat completions as JSON
// (the prompt optimizer) or streamed (the assistant), audio transcriptions
// and image generations. Features that use it fall back or refuse without one.
//
// It is written on net/http rather than a client library: the libraries end a
// stream that stops without `data: [DONE]` as if it had finished, and a
// truncated reply must never pass for a complete one (README "Libraries").
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// DefaultContextTokens is the assistant's prompt budget without
// --llm-context-tokens.
const DefaultContextTokens = 8000

// Config names a provider; an empty BaseURL means none is configured.
type Config struct {
	BaseURL string // e.g. https://api.example.com/v1
	APIKey  string
	// Model answers chat completions (--llm-model).
	Model string
	// TranscriptionModel transcribes audio (--llm-transcription-model).
	TranscriptionModel string
	// ImageModel generates images (--llm-image-model).
	ImageModel string
	// ContextTokens is the assistant's prompt budget (--llm-context-tokens);
	// DefaultContextTokens when zero.
	ContextTokens int
	// Timeouts bound each call; zero fields take the defaults.
	Timeouts Timeouts
}

// Timeouts bound the calls to the provider. A stream has no total: a long
// answer is fine as long as chunks keep coming.
type Timeouts struct {
	// Connect bounds the dial and the TLS handshake (10 s).
	Connect time.Duration
	// Headers bounds the wait for a stream's response headers (30 s).
	Headers time.Duration
	// Idle bounds the silence between a stream's chunks, and before the
	// first one (60 s).
	Idle time.Duration
	// JSON is the total of a CompleteJSON call (20 s).
	JSON time.Duration
	// Transcription is the total of a Transcribe call (2 min).
	Transcription time.Duration
	// Images is the total of a GenerateImages call (3 min: a provider answers
	// only when every image is drawn).
	Images time.Duration
	// Backoff is the pause before the one retry a safe failure gets (300 ms).
	Backoff time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&t.Connect, 10*time.Second)
	set(&t.Headers, 30*time.Second)
	set(&t.Idle, 60*time.Second)
	set(&t.JSON, 20*time.Second)
	set(&t.Transcription, 2*time.Minute)
	set(&t.Images, 3*time.Minute)
	set(&t.Backoff, 300*time.Millisecond)
	return t
}

// Client calls one provider. Its methods are safe for concurrent use.
type Client struct {
	cfg  Config
	t    Timeouts
	http *http.Client
}

// New answers a client, or nil when no provider is configured.
//
// The provider's address is the operator's own configuration, like the
// other flags, so the private-address rule for user-supplied URLs
// (internal/egress) does not guard it: a model server on loopback or the
// local network is a common setup. What the provider answers never makes
// the client dial elsewhere: redirects are not followed and image URLs are
// not fetched.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		return nil
	}
	if cfg.ContextTokens <= 0 {
		cfg.ContextTokens = DefaultContextTokens
	}
	t := cfg.Timeouts.withDefaults()
	cfg.Timeouts = t
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: t.Connect,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Client{cfg: cfg, t: t, http: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// ContextTokens is the assistant's prompt budget in tokens.
func (c *Client) ContextTokens() int { return c.cfg.ContextTokens }

// ErrNoModel is a transcription or image call on a provider configured
// without that model; the caller answers 503 as for no provider.
var ErrNoModel = errors.New("llm: no model is configured for this")

// CanTranscribe says whether c is configured with a transcription model;
// false for a nil client.
func (c *Client) CanTranscribe() bool { return c != nil && c.cfg.TranscriptionModel != "" }

// CanDraw says whether c is configured with an image model; false for a nil
// client.
func (c *Client) CanDraw() bool { return c != nil && c.cfg.ImageModel != "" }

// ImageModel is the configured image model; "" for a nil client.
func (c *Client) ImageModel() string {
	if c == nil {
		return ""
	}
	return c.cfg.ImageModel
}

// Message is one turn of a chat.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

type request struct {
	Model          string            `json:"model"`
	Messages       []Message         `json:"messages"`
	Temperature    *float64          `json:"temperature,omitempty"`
	ResponseFormat map[string]string `json:"response_format,omitempty"`
	Stream         bool              `json:"stream,omitempty"`
}

type response struct {
	Choices []struct {
		Message Message `json:"message"`
	} `json:"choices"`
}

// maxResponse bounds a JSON answer read from the provider.
const maxResponse = 1 << 20

// StatusError is the provider answering something other than 200. It names
// the status and the provider's error type and code when they are plain
// words; never the provider's message, which may quote the key.
type StatusError struct {
	Status int
	Type   string
	Code   string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("llm: provider answered %d", e.Status)
	if e.Type != "" || e.Code != "" {
		s += " (" + strings.Trim(e.Type+" "+e.Code, " ") + ")"
	}
	return s
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// statusError reads a non-200 answer's error body, keeping only what is
// safe to show.
func statusError(res *http.Response) error {
	var body struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = json.Unmarshal(raw, &body)
	e := &StatusError{Status: res.StatusCode}
	if plainWord.MatchString(body.Error.Type) {
		e.Type = body.Error.Type
	}
	if code, ok := body.Error.Code.(string); ok && plainWord.MatchString(code) {
		e.Code = code
	}
	return e
}

// retryable says whether a failed attempt may be tried once more: the
// connection was refused (nothing was sent), or, where the caller allows
// it, the provider answered 502 or 503 before doing any work.
func retryable(err error, status int, gateway bool) bool {
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	return gateway && (status == http.StatusBadGateway || status == http.StatusServiceUnavailable)
}

// attempts is how many times a safe failure is tried in all.
const attempts = 2

// send posts body to path and answers the 200 response; any other status is
// a *StatusError. It tries again once, after the backoff, when retryable
// says so (gateway: whether a 502 or 503 may be retried). newBody gives a
// fresh body for each attempt.
func (c *Client) send(ctx context.Context, path, contentType string, newBody func() io.Reader, gateway bool) (*http.Response, error) {
	for i := 1; ; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.cfg.BaseURL, "/")+path, newBody())
		if err != nil {
			return nil, fmt.Errorf("llm: %w", err)
		}
		req.Header.Set("Content-Type", contentType)
		if c.cfg.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
		}
		res, err := c.http.Do(req)
		switch {
		case err != nil:
			if i >= attempts || !retryable(err, 0, gateway) {
				if u := c.unreachable(err); u != nil && ctx.Err() == nil {
					return nil, u
				}
				return nil, fmt.Errorf("llm: %w", err)
			}
		case res.StatusCode == http.StatusOK:
			return res, nil
		default:
			err = statusError(res)
			_ = res.Body.Close()
			if i >= attempts || !retryable(nil, res.StatusCode, gateway) {
				return nil, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("llm: %w", ctx.Err())
		case <-time.After(c.t.Backoff):
		}
	}
}

// postJSON sends v as JSON and decodes the 200 answer (at most limit bytes)
// into out.
func (c *Client) postJSON(ctx context.Context, path string, v, out any, limit int64, gateway bool) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	res, err := c.send(ctx, path, "application/json", func() io.Reader { return bytes.NewReader(body) }, gateway)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return decodeAnswer(res.Body, limit, out)
}

// decodeAnswer decodes a JSON answer of at most limit bytes into out.
func decodeAnswer(r io.Reader, limit int64, out any) error {
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return fmt.Errorf("llm: read: %w", err)
	}
	if int64(len(raw)) > limit {
		return fmt.Errorf("llm: answer larger than %d bytes", limit)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("llm: malformed answer: %w", err)
	}
	return nil
}

// CompleteJSON asks for a JSON object answer to system and user prompts and
// decodes it into out. Only a refused connection is retried: the optimizer
// falls back without a model, so waiting out a busy provider would only
// delay the edit.
func (c *Client) CompleteJSON(ctx context.Context, system, user string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.t.JSON)
	defer cancel()
	var r response
	err := c.postJSON(ctx, "/chat/completions", request{
		Model: c.cfg.Model, Temperature: new(float64),
		Messages:       []Message{{"system", system}, {"user", user}},
		ResponseFormat: map[string]string{"type": "json_object"},
	}, &r, maxResponse, false)
	if err != nil {
		return err
	}
	if len(r.Choices) == 0 {
		return errors.New("llm: answer has no choices")
	}
	if err := json.Unmarshal([]byte(r.Choices[0].Message.Content), out); err != nil {
		return fmt.Errorf("llm: content is not the JSON asked for: %w", err)
	}
	return nil
}
