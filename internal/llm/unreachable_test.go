package llm

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// A provider nobody answers at is an *UnreachableError naming the base URL
// without its user information or query, never the key; a context that
// ended is not.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	c := New(Config{BaseURL: "http://me:pw@" + addr + "/v1/?k=v#f", APIKey: "sk-secret", Model: "m",
		Timeouts: Timeouts{Backoff: time.Millisecond}})
	_, err = c.Stream(context.Background(), []Message{{Role: "user", Content: "hi"}}, func(string) error { return nil })
	u, ok := errors.AsType[*UnreachableError](err)
	if !ok {
		t.Fatalf("Stream = %v, want an *UnreachableError", err)
	}
	if want := "http://" + addr + "/v1/"; u.URL != want || c.BaseURL() != want {
		t.Errorf("URL %q, BaseURL %q, want %q", u.URL, c.BaseURL(), want)
	}
	if u.Reason != "the connection was refused" {
		t.Errorf("reason %q", u.Reason)
	}
	for _, secret := range []string{"sk-secret", "pw", "k=v"} {
		if strings.Contains(u.Error(), secret) {
			t.Errorf("%q shows %q", u.Error(), secret)
		}
	}
	var out map[string]any
	if err := c.CompleteJSON(context.Background(), "s", "u", &out); !errors.As(err, &u) {
		t.Errorf("CompleteJSON = %v, want unreachable", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Stream(ctx, []Message{{Role: "user", Content: "hi"}}, func(string) error { return nil }); err == nil || errors.As(err, new(*UnreachableError)) {
		t.Errorf("a cancelled call = %v, want the cancellation", err)
	}

	bad := New(Config{BaseURL: "http://nohost.invalid/v1", Model: "m", Timeouts: Timeouts{Backoff: time.Millisecond}})
	_, err = bad.Stream(context.Background(), []Message{{Role: "user", Content: "hi"}}, func(string) error { return nil })
	if u, ok := errors.AsType[*UnreachableError](err); !ok || u.Reason != "its host name did not resolve" {
		t.Errorf("an unknown host: %v", err)
	}
	if shownURL("::bad") != "the configured --llm-base-url" {
		t.Errorf("an unparsable URL: %q", shownURL("::bad"))
	}
}
