package llm

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
)

const testKey = "sk-secret-0123456789"

func newClient(p *llmtest.Provider, t Timeouts) *Client {
	t.Backoff = time.Millisecond
	return New(Config{BaseURL: p.URL, APIKey: testKey, Model: "chat-m", TranscriptionModel: "stt-m", ImageModel: "img-m", Timeouts: t})
}

// waitDisconnect waits for the fake to see the client close a stream. The
// bound only keeps a broken test from hanging; nothing is timed.
func waitDisconnect(t *testing.T, p *llmtest.Provider) {
	t.Helper()
	select {
	case <-p.Disconnected:
	case <-time.After(10 * time.Second):
		t.Fatal("the provider never saw the client close the connection")
	}
}

func TestStreamTokensInOrder(t *testing.T) {
	p := llmtest.New(t)
	p.Chat(llmtest.Reply{Tokens: []string{"Hel", "lo", ", ", "world", " [[create_card {\"title\":\"x\"}]]"}})
	var got []string
	full, err := newClient(p, Timeouts{}).Stream(context.Background(),
		[]Message{{"system", "be brief"}, {"user", "hi"}}, func(s string) error { got = append(got, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Hel", "lo", ", ", "world", ` [[create_card {"title":"x"}]]`}
	if !slices.Equal(got, want) || full != strings.Join(want, "") {
		t.Fatalf("tokens %q, full %q", got, full)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" || reqs[0].Authorization != "Bearer "+testKey {
		t.Fatalf("requests = %+v", reqs)
	}
	body := reqs[0].JSON
	msgs, _ := body["messages"].([]any)
	if body["stream"] != true || body["model"] != "chat-m" || len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "hi" {
		t.Fatalf("body = %v", body)
	}
}

// A stream that does not end with [DONE] is no reply: the tokens already
// shown stay shown, but Stream answers "" and an error.
func TestStreamFailureIsNotAReply(t *testing.T) {
	for name, tc := range map[string]struct {
		then llmtest.Fail
		is   func(error) bool
	}{
		"ends without DONE": {llmtest.End, func(err error) bool { return errors.Is(err, ErrTruncated) }},
		"connection broken": {llmtest.Abort, func(err error) bool { return err != nil && !errors.Is(err, context.Canceled) }},
		"error event": {llmtest.ErrorEvent, func(err error) bool {
			var se *StreamError
			return errors.As(err, &se) && se.Type == "server_error" && se.Code == "internal_error"
		}},
	} {
		t.Run(name, func(t *testing.T) {
			p := llmtest.New(t)
			p.Chat(llmtest.Reply{Tokens: []string{"half", " a reply"}, Then: tc.then})
			var got []string
			full, err := newClient(p, Timeouts{}).Stream(context.Background(), []Message{{"user", "hi"}},
				func(s string) error { got = append(got, s); return nil })
			if !tc.is(err) || full != "" {
				t.Fatalf("full %q, err %v", full, err)
			}
			if !slices.Equal(got, []string{"half", " a reply"}) {
				t.Fatalf("tokens before the failure = %q", got)
			}
			if len(p.Requests()) != 1 {
				t.Fatal("a stream that failed after its first byte was retried")
			}
		})
	}
}

// The operator's client going away (ctx cancelled), the caller refusing a
// token, and the provider falling silent each close the provider's
// connection, and the fake sees it.
func TestStreamStopClosesProviderConnection(t *testing.T) {
	errStop := errors.New("stop")
	for name, tc := range map[string]struct {
		timeouts Timeouts
		onToken  func(cancel context.CancelFunc) func(string) error
		is       func(error) bool
	}{
		"client disconnects": {
			onToken: func(cancel context.CancelFunc) func(string) error {
				return func(s string) error {
					if s == "second" {
						cancel()
					}
					return nil
				}
			},
			is: func(err error) bool { return errors.Is(err, context.Canceled) },
		},
		"caller refuses a token": {
			onToken: func(context.CancelFunc) func(string) error {
				return func(s string) error {
					if s == "second" {
						return errStop
					}
					return nil
				}
			},
			is: func(err error) bool { return errors.Is(err, errStop) },
		},
		"provider falls silent": {
			timeouts: Timeouts{Idle: 50 * time.Millisecond},
			onToken:  func(context.CancelFunc) func(string) error { return func(string) error { return nil } },
			is:       func(err error) bool { return errors.Is(err, ErrIdle) },
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := llmtest.New(t)
			p.Chat(llmtest.Reply{Tokens: []string{"first", "second"}, Then: llmtest.Hang})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			full, err := newClient(p, tc.timeouts).Stream(ctx, []Message{{"user", "hi"}}, tc.onToken(cancel))
			if !tc.is(err) || full != "" {
				t.Fatalf("full %q, err %v", full, err)
			}
			waitDisconnect(t, p)
		})
	}
}

func TestStreamStatusErrorNeverNamesTheKey(t *testing.T) {
	p := llmtest.New(t)
	p.Chat(llmtest.Reply{Status: 401})
	_, err := newClient(p, Timeouts{}).Stream(context.Background(), []Message{{"user", "hi"}}, func(string) error { return nil })
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 || se.Code != "invalid_api_key" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "sk-") {
		t.Fatalf("message %q must name the status and not the key", err)
	}
	if len(p.Requests()) != 1 {
		t.Fatal("a 401 was retried")
	}
}

// A 502 or 503 comes before any token: the stream is tried once more, and
// no more than that.
func TestStreamRetriesOnceBeforeAnyByte(t *testing.T) {
	p := llmtest.New(t)
	p.Chat(llmtest.Reply{Status: 503}, llmtest.Reply{Tokens: []string{"fine"}})
	c := newClient(p, Timeouts{})
	full, err := c.Stream(context.Background(), []Message{{"user", "hi"}}, func(string) error { return nil })
	if err != nil || full != "fine" || len(p.Requests()) != 2 {
		t.Fatalf("full %q, err %v, %d requests", full, err, len(p.Requests()))
	}
	p.Chat(llmtest.Reply{Status: 502}, llmtest.Reply{Status: 503}, llmtest.Reply{Tokens: []string{"third"}})
	_, err = c.Stream(context.Background(), []Message{{"user", "hi"}}, func(string) error { return nil })
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 503 || len(p.Requests()) != 4 {
		t.Fatalf("err %v, %d requests (want the second 503 after two attempts)", err, len(p.Requests()))
	}
}

// A provider that is not listening: the refused connection is answered as
// an error (after the one retry), not a hang.
func TestStreamProviderDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey, Timeouts: Timeouts{Backoff: time.Millisecond}})
	_, err = c.Stream(context.Background(), []Message{{"user", "hi"}}, func(string) error { return nil })
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestContextTokensDefault(t *testing.T) {
	if c := New(Config{BaseURL: "http://127.0.0.1:9"}); c.ContextTokens() != DefaultContextTokens {
		t.Fatalf("default budget = %d", c.ContextTokens())
	}
	if c := New(Config{BaseURL: "http://127.0.0.1:9", ContextTokens: 32000}); c.ContextTokens() != 32000 {
		t.Fatalf("budget = %d", c.ContextTokens())
	}
}

// The retry rule: a refused connection (nothing was sent) always; a 502 or
// 503 only where the caller allows it (streams and transcriptions, not
// images); nothing else.
func TestRetryableRule(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	reset := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	for _, tc := range []struct {
		err     error
		status  int
		gateway bool
		want    bool
	}{
		{refused, 0, false, true},
		{refused, 0, true, true},
		{reset, 0, true, false},
		{context.DeadlineExceeded, 0, true, false},
		{nil, 503, true, true},
		{nil, 502, true, true},
		{nil, 503, false, false},
		{nil, 500, true, false},
		{nil, 429, true, false},
		{nil, 401, true, false},
	} {
		if got := retryable(tc.err, tc.status, tc.gateway); got != tc.want {
			t.Errorf("retryable(%v, %d, %v) = %v", tc.err, tc.status, tc.gateway, got)
		}
	}
}
