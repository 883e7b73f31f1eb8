package events

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// postgresOnly opens a PostgreSQL test database, or answers nil on the SQLite
// leg, where there is no second replica and no listener to test (the test is
// then absent: it says so in the log). With SWITCHBOARD_TEST_POSTGRES set, an
// unreachable PostgreSQL fails the test.
func postgresOnly(t *testing.T) *db.DB {
	t.Helper()
	if os.Getenv(dbtest.TestPostgresEnv) == "" {
		t.Logf("needs PostgreSQL (%s): absent on the SQLite leg", dbtest.TestPostgresEnv)
		return nil
	}
	return dbtest.Open(t)
}

// RULINGS "Shared chat and events": events reach every subscriber on every
// replica. Two buses on one schema stand for two replicas: what one publishes
// the other delivers, in commit order; and when the listener's connection
// drops, what commits until it is back is caught up from the store, so nothing
// is lost and nothing repeats.
func TestListenerReconnectLosesNothing(t *testing.T) {
	d := postgresOnly(t)
	if d == nil {
		return
	}
	ctx := context.Background()
	publisher := newBus(t, d, Config{})
	replica := newBus(t, d, Config{})
	ann := newUser(t, d, "ann") // once a bus has set the database's clock
	if publisher.channel != replica.channel || replica.channel == "" {
		t.Fatalf("channels %q and %q", publisher.channel, replica.channel)
	}
	sub, _, err := replica.Subscribe(ctx, ann, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	next := func() string {
		t.Helper()
		var f *Frame
		waitFor(t, "an event", func() bool {
			select {
			case f = <-sub.c:
				return true
			default:
				return false
			}
		})
		return f.Msg.GetEvent().GetMessage().GetContent()
	}
	if err := publisher.Publish(ctx, ann, message("before")); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "before" {
		t.Fatalf("got %q", got)
	}

	// Hold the replica's reconnection until two events have committed.
	entered, release := make(chan struct{}), make(chan struct{})
	replica.lis.mu.Lock()
	sessions := replica.lis.sessions
	pid := replica.lis.pid
	replica.lis.beforeConnect = func(n int) {
		if n == sessions {
			close(entered)
			<-release
		}
	}
	replica.lis.mu.Unlock()
	if pid == 0 {
		t.Fatal("the replica is not listening")
	}
	if _, err := d.SQL.ExecContext(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	<-entered
	for _, c := range []string{"while down 1", "while down 2"} {
		if err := publisher.Publish(ctx, ann, message(c)); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := publisher.Publish(ctx, ann, message("after")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		got = append(got, next())
	}
	if !slices.Equal(got, []string{"while down 1", "while down 2", "after"}) {
		t.Fatalf("after the reconnect the replica delivered %v", got)
	}
	if err := publisher.Publish(ctx, ann, message("last")); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "last" {
		t.Fatalf("then %q (a repeat?)", got)
	}
	if replica.listenerSessions() < 2 {
		t.Fatalf("the listener did not reconnect")
	}
}
