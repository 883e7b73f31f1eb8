package network_test

import (
	"context"
	"net/http"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// userGone removes a user's row and nothing else, as a user who no longer
// exists leaves the connections that name them. No route removes a user
// yet, and the connection's foreign key would refuse it, so the row goes
// with that check off for this one statement (SQLite: the connection's
// foreign_keys pragma; PostgreSQL: the transaction's replication role).
func userGone(t *testing.T, in *instance, userID string) {
	t.Helper()
	ctx := context.Background()
	conn, err := in.DB.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if in.DB.Dialect == dialect.Postgres {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM users WHERE id = $1", userID); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	} else {
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
			t.Fatal(err)
		}
		_, err := conn.ExecContext(ctx, "DELETE FROM users WHERE id = ?", userID)
		if _, onErr := conn.ExecContext(ctx, "PRAGMA foreign_keys = ON"); onErr != nil {
			t.Fatal(onErr)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := in.DB.User.Query().Count(ctx); err != nil || n == 0 {
		t.Fatalf("users left: %d %v", n, err)
	}
}

// TestRelayFallbackToOwner: document 2 "Relay" (the unknown-recipient
// answer `{relayId, fallback: true, message}`, surfaced to the instance
// owner) and RULINGS "The operator network: connections and relays" (if
// the local user no longer exists the relay goes to the instance owner,
// `fallback`); docs/decisions.md (the owner is the oldest admin; the answer
// then carries fallback: true). Carol, a member of B, is connected to A's
// alice; once Carol is gone, A's request relay becomes Bob's (B's owner)
// item and A's ambient relay Bob's comms message, each answered with
// fallback; a duplicate is answered as a duplicate only; Bob's approval
// reaches A as for any relay.
func TestRelayFallbackToOwner(t *testing.T) {
	t.Parallel()
	// The outbox's acks reach loopback (as newRelayPair's instances).
	a, b := newInstance(t, "alice", on(), servertest.WithPrivateEndpoints()), newInstance(t, "bob", on(), servertest.WithPrivateEndpoints())
	carol := b.SignUp("carol")
	aID, bID := networktest.Connect(t, a.Server, a.user, b.Server, carol)
	send := func(body map[string]any) map[string]any {
		t.Helper()
		body["connectionId"] = aID
		return answer(t, a.user.Session.Do(http.MethodPost, "/api/federation/relays", body))
	}
	// While Carol is there, her relays are hers: no fallback.
	ans := send(map[string]any{"subject": "Hello Carol", "type": "notification"})
	if ans["ambient"] != true || ans["fallback"] != nil {
		t.Fatalf("Carol's own relay: %v", ans)
	}

	userGone(t, b, carol.ID)
	ans = send(map[string]any{"subject": "Review the budget", "intent": "assign_task", "type": "request"})
	id, _ := ans["relayId"].(string)
	if ans["success"] != true || ans["fallback"] != true || ans["task"] != true || id == "" || ans["cardId"] == nil ||
		ans["message"] != "queued for Bob's confirmation" {
		t.Fatalf("the fallback answer: %v", ans)
	}
	list := items(t, b)
	if len(list) != 1 || deref(list[0].RequesterEmail) != "alice@example.com" || deref(list[0].CardID) != ans["cardId"] {
		t.Fatalf("Bob's queue: %+v", list)
	}
	r, err := b.DB.Relay.Query().Where(relay.RelayID(id)).Only(context.Background())
	if err != nil || r.UserID != b.user.ID || r.ConnectionID != bID || r.ItemID == nil || *r.ItemID != list[0].ID {
		t.Fatalf("B's relay: %+v %v", r, err)
	}

	// The same relay again: a duplicate, not a second fallback.
	dup := b.Anonymous().Do(http.MethodPost, "/api/v2/relay", map[string]any{"relayId": id, "subject": "Review the budget",
		"toUserEmail": carol.Email}, "X-Federation-Token", a.peerToken(t, a.only(t)))
	servertest.WantStatus(t, dup, http.StatusOK)
	if body := dup.JSON(t); body["duplicate"] != true || body["fallback"] != nil || len(items(t, b)) != 1 {
		t.Fatalf("the duplicate: %s", dup.Body)
	}

	// An ambient relay: Bob's comms message, answered with fallback.
	ans = send(map[string]any{"subject": "Budget moved to Friday", "type": "notification"})
	if ans["ambient"] != true || ans["fallback"] != true || ans["filtered"] != nil || ans["message"] != "delivered to Bob" {
		t.Fatalf("the ambient fallback: %v", ans)
	}
	if got := comms(t, b, "relay_received"); len(got) != 1 || got[0].Content == "" {
		t.Fatalf("Bob's relay messages: %d", len(got))
	}

	// Bob's approval of the item reaches A as any relay's does.
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/queue/confirm",
		map[string]any{"id": list[0].ID, "action": "approve"}), http.StatusOK)
	servertest.WaitFor(t, "the fallback relay accepted at A", func() bool {
		res := a.user.Session.Do(http.MethodGet, "/api/federation/relays/"+id, nil)
		return res.Status == http.StatusOK && object(t, res, "relay")["state"] == "accepted"
	})
}
