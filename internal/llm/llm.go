// Package llm calls an OpenAI-compatible chat-completions provider, the one
// kind of language model Switchboard can be configured with (docs/decisions.md
// "Language model"). Features that use it fall back or refuse without one.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Config names a provider; an empty BaseURL means none is configured.
type Config struct {
	BaseURL string // e.g. https://api.example.com/v1
	APIKey  string
	Model   string
}

// Client calls one provider.
type Client struct {
	cfg  Config
	http *http.Client
}

// New answers a client, or nil when no provider is configured.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		return nil
	}
	return &Client{cfg: cfg, http: &http.Client{Timeout: 20 * time.Second}}
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type request struct {
	Model          string            `json:"model"`
	Messages       []message         `json:"messages"`
	Temperature    float64           `json:"temperature"`
	ResponseFormat map[string]string `json:"response_format,omitempty"`
}

type response struct {
	Choices []struct {
		Message message `json:"message"`
	} `json:"choices"`
}

// maxResponse bounds what is read from the provider.
const maxResponse = 1 << 20

// CompleteJSON asks for a JSON object answer to system and user prompts and
// decodes it into out.
func (c *Client) CompleteJSON(ctx context.Context, system, user string, out any) error {
	body, err := json.Marshal(request{
		Model: c.cfg.Model, Temperature: 0,
		Messages:       []message{{"system", system}, {"user", user}},
		ResponseFormat: map[string]string{"type": "json_object"},
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.cfg.BaseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("llm: read: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("llm: provider answered %d", res.StatusCode)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("llm: malformed answer: %w", err)
	}
	if len(r.Choices) == 0 {
		return errors.New("llm: answer has no choices")
	}
	if err := json.Unmarshal([]byte(r.Choices[0].Message.Content), out); err != nil {
		return fmt.Errorf("llm: content is not the JSON asked for: %w", err)
	}
	return nil
}
