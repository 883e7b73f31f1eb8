package servertest

import (
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
)

// The assertions every package's tests share.

// WantError checks a REST refusal: the status and the documented error body,
// {"success": false, "error": "<message>"}, with a message.
func WantError(t testing.TB, res *Response, status int) {
	t.Helper()
	WantStatus(t, res, status)
	b := res.JSON(t)
	if b["success"] != false {
		t.Fatalf("error body lacks success:false: %s", res.Body)
	}
	if msg, _ := b["error"].(string); msg == "" {
		t.Fatalf("error body lacks a message: %s", res.Body)
	}
}

// WantErrorContaining is WantError whose message must also contain substr,
// for refusals that must name what was wrong.
func WantErrorContaining(t testing.TB, res *Response, status int, substr string) {
	t.Helper()
	WantError(t, res, status)
	if msg, _ := res.JSON(t)["error"].(string); !strings.Contains(msg, substr) {
		t.Fatalf("error message %q does not contain %q", msg, substr)
	}
}

// WantStatus checks a REST answer's status only, showing the body when it
// differs; refusals use WantError, which also checks the error body.
func WantStatus(t testing.TB, res *Response, status int) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status = %d, want %d: %s", res.Status, status, res.Body)
	}
}

// WantCode checks a Connect refusal's code.
func WantCode(t testing.TB, err error, code connect.Code) {
	t.Helper()
	if connect.CodeOf(err) != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

// WaitFor polls cond until it holds, failing the test after 30 s. It waits for
// work in other goroutines or processes; it measures nothing.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AdvanceUntil waits for work a timer on c starts, moving c by step each time
// cond does not hold yet. One Advance can land while a loop is still in its
// previous pass, before it waits on c again; that loop then waits for a time
// nobody moves to. Stepping again wakes it, so step must be small beside what
// the test asserts about time.
func AdvanceUntil(t testing.TB, c *Clock, step time.Duration, what string, cond func() bool) {
	t.Helper()
	WaitFor(t, what, func() bool {
		if cond() {
			return true
		}
		c.Advance(step)
		time.Sleep(20 * time.Millisecond)
		return false
	})
}

// At reads an RFC 3339 timestamp of a JSON answer.
func At(t testing.TB, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %v: %v", v, err)
	}
	return ts
}
