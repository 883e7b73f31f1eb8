package server

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// Issue 11, item 2 (one clock): the clock is one required field, checked when
// the server is built, not a per-package fallback to the wall clock.
func TestClockIsRequiredAtConstruction(t *testing.T) {
	now := func() time.Time { return time.Unix(0, 0) }
	for _, tc := range []struct {
		name string
		svc  any
		want string // "" when construction may go on
	}{
		{"every service has its clock", struct {
			K *kanban.Service
			Q *queue.Service
		}{&kanban.Service{Now: now}, &queue.Service{Now: now}}, ""},
		{"one service without its clock", struct {
			K *kanban.Service
			Q *queue.Service
		}{&kanban.Service{Now: now}, &queue.Service{}}, "queue.Service has no clock"},
		{"a service not wired is not checked", struct{ K *kanban.Service }{nil}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := requireClocks(tc.svc)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("requireClocks: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("requireClocks = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// New refuses a configuration without the clock before it starts anything.
func TestNewWithoutClockFails(t *testing.T) {
	app, err := New(Config{})
	if err == nil || !strings.Contains(err.Error(), "Config.Clock is required") {
		t.Fatalf("New without a clock = %v, %v; want the clock error", app, err)
	}
}
