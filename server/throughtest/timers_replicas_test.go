package throughtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/behaviorsignal"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/learning"
	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/peerpattern"
	"github.com/switchboard-hq/switchboard/ent/teamsubscription"
	"github.com/switchboard-hq/switchboard/ent/timerlease"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server"
	boardsvc "github.com/switchboard-hq/switchboard/server/board"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
	"github.com/switchboard-hq/switchboard/server/groups"
	"github.com/switchboard-hq/switchboard/server/learnings"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	netop "github.com/switchboard-hq/switchboard/server/network/operator"
	"github.com/switchboard-hq/switchboard/server/network/relays"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/payments"
	"github.com/switchboard-hq/switchboard/server/store/review"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// timerWorld is three replicas on one database on one fake clock. On SQLite
// too: one process owns a SQLite file in production, but the leases hold
// for servers sharing one (internal/timers), and three show more than one.
type timerWorld struct {
	clock    *clockwork.FakeClock
	replicas []*servertest.Server
	// admin is the instance's owner (the first account).
	admin *servertest.Account
	// accounts numbers the accounts probes sign up, one per due item.
	accounts int
}

// signUp signs up a fresh account on the first replica: a probe making a
// second due item needs a second account of the same kind.
func (w *timerWorld) signUp(kind string) *servertest.Account {
	return w.replicas[0].SignUp(fmt.Sprintf("%s%d", kind, w.nextAccount()))
}

func (w *timerWorld) nextAccount() int {
	w.accounts++
	return w.accounts
}

func newTimerWorld(t *testing.T, opts ...servertest.Option) *timerWorld {
	t.Helper()
	w := &timerWorld{clock: clockwork.NewFakeClockAt(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))}
	dsn := dbtest.DSN(t)
	// Replicas share the instance key, as the README asks: what one seals
	// (a spoke's platform token) another opens.
	key := make([]byte, secrets.KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		d, err := db.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		w.replicas = append(w.replicas, servertest.New(t, append([]servertest.Option{servertest.WithDB(d), servertest.WithPrivateEndpoints(), servertest.WithSecretKey(key),
			withExecutions(server.ExecutionConfig{CallTimeout: 2 * time.Second, BreakerOpenFor: time.Minute}),
			servertest.WithSelfPublicURL(), // after the executions' config, which holds it
			// Peers reach the replicas on loopback (the digests, the patterns).
			servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true}),
			func(cfg *server.Config) { cfg.Clock = w.clock }}, opts...)...))
	}
	w.admin = w.replicas[0].SignUp("owner")
	return w
}

// fire moves the clock by d and has every replica run the named timer
// again until each has run a pass since: whatever was due has been seen
// by all of them, so an item fired twice would show.
func (w *timerWorld) fire(t *testing.T, name string, d time.Duration) {
	t.Helper()
	if w.replicas[0].App.Timers.Owns(name) {
		w.clock.Advance(d)
		return // it claims each row itself and wakes on its own
	}
	w.idle(t, name)
	w.advanceUntil(t, name, d, "a pass of "+name+" on every replica", (*timers.Set).Passes)
	w.idle(t, name)
}

// idle waits until no live replica has held name's lease for a few looks
// in a row: no pass of it is in flight. The clock moved past the lease of a
// pass in flight is a replica stalled longer than its lease, whose pass may
// act beside the next holder's; that is the killed holder's case, which the
// walk makes on purpose, not by the clock's moves between passes.
func (w *timerWorld) idle(t *testing.T, name string) {
	t.Helper()
	looks := 0
	servertest.WaitFor(t, "no pass of "+name+" in flight", func() bool {
		row, err := w.replicas[0].DB.TimerLease.Get(t.Context(), name)
		switch {
		case ent.IsNotFound(err):
		case err != nil:
			t.Fatal(err)
		case row.Holder != "" && row.Holder != deadReplica:
			looks = 0
			return false
		}
		looks++
		return looks >= 4 // a woken loop starts its next pass at once
	})
}

// A dueItem is one item of a timer made due: how far the clock moves until
// it is due, and how often the timer has acted on it, counted in the
// database (where a run leaves nothing to count, a deletion or a refresh,
// the passes that ran it, once the database shows it done).
type dueItem struct {
	due   time.Duration
	fired func() int
	// heldFor is how long a dead dispatcher's claim on the item lasts after
	// due (timers registered with Own, which claim each row themselves).
	heldFor time.Duration
}

// A timerProbe readies what its timer needs once (accounts, a peer) and
// answers how to make one more item due: the walk makes two, the second
// behind a lease of a replica that no longer runs. deadClaim asks a timer
// that claims each row itself (Own) for an item already claimed by a
// dispatcher that no longer runs; the others' lease is the walk's to write.
type timerProbe func(t *testing.T, w *timerWorld) (next func(deadClaim bool) dueItem)

// timerProbes cover the registry: a timer registered in internal/timers is
// covered by adding its probe here (TestEveryTimerFiresOnceAcrossReplicas
// fails for a registered timer that has none). groups.RenewalTimer is
// registered on a hub only, and the heartbeat's probe needs the replicas
// joined to a hub, which a hub cannot: it is walked in a second world of
// hubs.
var timerProbes = map[string]timerProbe{
	// The 6-hour board scan: one cortex_scan entry per account and period.
	boardsvc.TimerName: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		return func(bool) dueItem {
			ann := w.signUp("scanned")
			cortexCard(t, ann, map[string]any{"title": "Scan me"})
			return dueItem{due: periodDue(t, w, boardsvc.TimerName),
				fired: func() int { return countActivity(t, w.replicas[0], ann.ID, "cortex_scan") }}
		}
	},
	// The team plans' renewal: a platform team's plan renews once at its
	// period's end, one more subscription charge for it in the ledger.
	groups.RenewalTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		s := w.replicas[0]
		return func(bool) dueItem {
			owner := w.signUp("teamowner")
			res := owner.Session.Do(http.MethodPost, "/api/teams", map[string]any{"name": fmt.Sprintf("Renewed team %d", w.nextAccount())})
			team := jsonObj(t, wantOK(t, res, http.StatusCreated), "team")
			if team["isSelfHosted"] != false {
				t.Fatalf("a platform team: %v", team)
			}
			id := team["id"].(string)
			servertest.WantStatus(t, owner.Session.Do(http.MethodPost, "/api/teams/"+id+"/subscription", map[string]any{"plan": "starter"}), http.StatusOK)
			sub, err := s.DB.TeamSubscription.Query().Where(teamsubscription.TeamID(id)).Only(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return dueItem{due: sub.CurrentPeriodEnd.Sub(w.clock.Now()) + time.Second, fired: func() int {
				n, err := s.DB.LedgerEntry.Query().Where(ledgerentry.HoldID(sub.ID), ledgerentry.Kind(payments.KindSubscription)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n - 1 // the first month's, charged when subscribing
			}}
		}
	},
	// The executions' sweep: an execution past its executionTimeout times
	// out once (its listing's execution count moves once per end).
	engine.SweepTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		s := w.replicas[0]
		dev, req := s.SignUp("timeoutdev"), s.SignUp("timeoutreq")
		devKey, reqKey := dev.NewKey("dev", "store"), req.NewKey("req", "store")
		return func(bool) dueItem {
			agent := newAsyncAgent(t)
			res := s.WithKey(devKey).Do(http.MethodPost, "/api/marketplace",
				map[string]any{"name": fmt.Sprintf("Slow agent %d", w.nextAccount()), "endpointUrl": agent.URL, "executionTimeout": 30})
			servertest.WantStatus(t, res, http.StatusCreated)
			id := res.JSON(t)["agent"].(map[string]any)["id"].(string)
			ex := s.WithKey(reqKey).Do(http.MethodPost, "/api/marketplace/"+id+"/execute", map[string]any{"input": "slow"})
			if ex.Status != http.StatusOK && ex.Status != http.StatusCreated {
				t.Fatalf("execute: %d %s", ex.Status, ex.Body)
			}
			return dueItem{due: 31 * time.Second, fired: func() int {
				a, err := s.DB.StoreAgent.Get(t.Context(), id)
				if err != nil {
					t.Fatal(err)
				}
				return a.ExecutionCount
			}}
		}
	},
	// The review windows: a completed paid execution's window closes by
	// itself once, its payment captured once (one developer's capture line
	// in the ledger).
	review.TimerName: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		s := w.replicas[0]
		dev, req := s.SignUp("reviewdev"), s.SignUp("reviewreq")
		devKey, reqKey := dev.NewKey("dev", "store"), req.NewKey("req", "store")
		return func(bool) dueItem {
			agent := newReviewAgent(t)
			res := s.WithKey(devKey).Do(http.MethodPost, "/api/marketplace",
				map[string]any{"name": fmt.Sprintf("Paid scout %d", w.nextAccount()), "endpointUrl": agent.URL, "pricingModel": "per_task", "pricePerTask": 2.5})
			servertest.WantStatus(t, res, http.StatusCreated)
			id := res.JSON(t)["agent"].(map[string]any)["id"].(string)
			ex := s.WithKey(reqKey).Do(http.MethodPost, "/api/marketplace/"+id+"/execute", map[string]any{"input": "Scout the market"})
			if ex.Status != http.StatusOK && ex.Status != http.StatusCreated {
				t.Fatalf("execute: %d %s", ex.Status, ex.Body)
			}
			exID := ex.JSON(t)["executionId"].(string)
			servertest.WaitFor(t, "the review opened", func() bool {
				e, err := s.DB.Execution.Get(t.Context(), exID)
				return err == nil && e.ReviewStatus != nil && *e.ReviewStatus == execution.ReviewStatusPendingReview
			})
			return dueItem{due: review.Window + time.Minute, fired: func() int {
				n, err := s.DB.LedgerEntry.Query().Where(ledgerentry.ExecutionID(exID), ledgerentry.Kind(payments.KindCaptureDeveloper)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n
			}}
		}
	},
	// The heartbeat: a joined spoke (the replicas) beats once a period,
	// counted in its hub's audit log.
	spoke.HeartbeatTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		hub := servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints())
		hubAdmin := hub.SignUp("hubowner")
		tok := hubAdmin.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "instance"})
		servertest.WantStatus(t, tok, http.StatusCreated)
		servertest.WantStatus(t, w.admin.Session.Do(http.MethodPost, "/api/federation/join", map[string]any{
			"hubUrl": hub.URL, "connectToken": tok.JSON(t)["token"].(map[string]any)["token"].(string), "name": "Replicated spoke",
		}), http.StatusOK)
		beats := func() int {
			n, err := hub.DB.FederationAuditLog.Query().Where(federationauditlog.DirectionEQ(federationauditlog.DirectionInbound),
				federationauditlog.EndpointContainsFold("heartbeat")).Count(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if joined := beats(); joined != 1 {
			t.Fatalf("%d heartbeats at the join, want 1", joined)
		}
		return func(bool) dueItem {
			before := beats()
			return dueItem{due: periodDue(t, w, spoke.HeartbeatTimer), fired: func() int { return beats() - before }}
		}
	},
	// The outbox: each push to a webhook target arrives once (its delivery
	// id), whichever replica's dispatcher claims it. Its rows are claimed one
	// by one, so the dead holder's is a claim on the row itself.
	webhooks.TimerName: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		var mu sync.Mutex
		got := map[string]int{}
		recv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			mu.Lock()
			got[r.Header.Get(webhooks.HeaderDelivery)]++
			mu.Unlock()
		}))
		t.Cleanup(recv.Close)
		arrived := func(id string) int {
			mu.Lock()
			defer mu.Unlock()
			if id != "" {
				return got[id]
			}
			most := 0
			for _, n := range got {
				most = max(most, n) // the one push, or one arriving twice
			}
			return most
		}
		ann := w.replicas[0].SignUp("pushed")
		api := w.replicas[len(w.replicas)-1].WithKey(ann.NewKey("push"))
		servertest.WantStatus(t, api.Do(http.MethodPatch, "/api/v2/settings", map[string]any{
			"serviceKeys": []map[string]any{{"service": "webhook_push", "url": recv.URL, "secret": "a-long-enough-secret"}},
		}), http.StatusOK)
		return func(deadClaim bool) dueItem {
			if !deadClaim {
				servertest.WantStatus(t, api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Pushed"}), http.StatusCreated)
				return dueItem{fired: func() int { return arrived("") }}
			}
			// A push a dispatcher claimed and died with: its row as the claim
			// leaves it, due again when the claim's lease ends.
			now := w.clock.Now().UTC()
			row, err := w.replicas[0].DB.WebhookDelivery.Create().SetUserID(ann.ID).SetEvent("queue.created").
				SetKind(webhookdelivery.KindPush).SetURL(recv.URL).SetPayload(`{"event":"queue.created"}`).
				SetNextAttemptAt(now.Add(webhooks.Lease)).SetClaimToken("claim-of-a-dead-replica").
				SetCreatedAt(now).SetUpdatedAt(now).Save(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return dueItem{heldFor: webhooks.Lease, fired: func() int { return arrived(row.ID) }}
		}
	},
	// The economy: an auction ends once, awarding its one applicant one
	// contract.
	economy.TimerName: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		return func(bool) dueItem {
			client, bidder := w.signUp("auctioneer"), w.signUp("bidder")
			declare(t, bidder, "technical", "go")
			closes := w.clock.Now().UTC().Add(time.Hour)
			id := postJob(t, client, map[string]any{"mode": "auction", "maxPriceCents": 10000, "closesAt": closes.Format(time.RFC3339)})["id"].(string)
			apply(t, bidder, id, 5000, 10, http.StatusCreated)
			return dueItem{due: time.Hour + time.Minute, fired: func() int {
				n, err := w.replicas[0].DB.Contract.Query().Where(contract.ClientUserID(client.ID)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n
			}}
		}
	},
	// The quiet-hours digest: a relay a peer sent during the operator's
	// quiet hours is told in one relay_digest message when they end.
	relays.DigestTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		peer := servertest.New(t, networktest.Options()...)
		sender, quiet := peer.SignUp("relaysender"), w.replicas[0].SignUp("quiet")
		toQuiet, _ := networktest.Connect(t, peer, sender, w.replicas[0], quiet)
		n := 0
		return func(bool) dueItem {
			n++
			now := w.clock.Now().UTC()
			servertest.WantStatus(t, quiet.Session.Do(http.MethodPut, "/api/federation/preferences", map[string]any{
				"quietHours": map[string]any{"start": now.Add(-time.Hour).Format("15:04"), "end": now.Add(time.Hour).Format("15:04"), "timeZone": "UTC"},
			}), http.StatusOK)
			subject := fmt.Sprintf("Weekly news %d", n)
			res := sender.Session.Do(http.MethodPost, "/api/federation/relays",
				map[string]any{"connectionId": toQuiet, "subject": subject, "type": "notification"})
			servertest.WantStatus(t, res, http.StatusOK)
			if ans := jsonObj(t, res.JSON(t), "answer"); ans["reason"] != "quiet-hours" {
				t.Fatalf("a relay during quiet hours: %s", res.Body)
			}
			return dueItem{due: time.Hour + time.Minute, fired: func() int {
				n, err := w.replicas[0].DB.ChatMessage.Query().Where(chatmessage.UserID(quiet.ID), chatmessage.MetadataType("relay_digest"),
					chatmessage.ContentContains(subject)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n
			}}
		}
	},
	// The patterns refresh: a peer whose kept patterns are missing is asked
	// for them once, counted in the peer's audit log.
	netop.PatternsTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		peer := servertest.New(t, networktest.Options()...)
		asker, learner := peer.SignUp("patternpeer"), w.replicas[0].SignUp("learner")
		// The replicas accept, learning the peer's patterns at once.
		_, atReplicas := networktest.Connect(t, peer, asker, w.replicas[0], learner)
		asked := func() int {
			n, err := peer.DB.FederationAuditLog.Query().Where(federationauditlog.DirectionEQ(federationauditlog.DirectionInbound),
				federationauditlog.EndpointHasSuffix("/GetPatterns")).Count(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		return func(bool) dueItem {
			// Forgotten, they are due on the refresh's next period.
			if _, err := w.replicas[0].DB.PeerPattern.Delete().Where(peerpattern.ConnectionID(atReplicas)).Exec(t.Context()); err != nil {
				t.Fatal(err)
			}
			before := asked()
			return dueItem{due: periodDue(t, w, netop.PatternsTimer), fired: func() int { return asked() - before }}
		}
	},
	// The daily analysis: an account with signals gets its learnings. A
	// second run would refresh them, not add any, so the rows show that it
	// ran and the replicas' count of passes that ran the period shows how
	// often.
	learnings.TimerAnalysis: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		return func(bool) dueItem {
			ann := w.signUp("analyzed")
			seedSignals(t, ann.Session, "approve", 9, 2, 10)
			runs := w.runs(learnings.TimerAnalysis)
			return dueItem{due: periodDue(t, w, learnings.TimerAnalysis), fired: func() int {
				n, err := w.replicas[0].DB.Learning.Query().Where(learning.UserID(ann.ID)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					return 0
				}
				return runs()
			}}
		}
	},
	// The signals' retention: a signal past it is deleted. A deletion shows
	// no second time, so the count is the passes that ran the period once
	// the row is gone.
	learnings.TimerRetention: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		return func(bool) dueItem {
			ann := w.signUp("forgotten")
			at := w.clock.Now().UTC().AddDate(-1, 0, 0) // well past the 180 days
			sig, err := w.replicas[0].DB.BehaviorSignal.Create().SetUserID(ann.ID).SetAction("old").SetHour(1).SetDayOfWeek(1).
				SetCreatedAt(at).SetUpdatedAt(at).Save(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return w.deletion(t, learnings.TimerRetention, func() bool {
				n, err := w.replicas[0].DB.BehaviorSignal.Query().Where(behaviorsignal.ID(sig.ID)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n == 0
			})
		}
	},
	// The audit log's retention: a row past it is deleted (counted as the
	// signals' retention is).
	audit.RetentionTimer: func(t *testing.T, w *timerWorld) func(bool) dueItem {
		return func(bool) dueItem {
			at := w.clock.Now().UTC().AddDate(-1, 0, 0) // well past --audit-retention
			row, err := w.replicas[0].DB.FederationAuditLog.Create().SetDirection(federationauditlog.DirectionInbound).
				SetEndpoint("/api/federation/old").SetStatus(federationauditlog.StatusOk).SetCreatedAt(at).SetUpdatedAt(at).Save(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return w.deletion(t, audit.RetentionTimer, func() bool {
				n, err := w.replicas[0].DB.FederationAuditLog.Query().Where(federationauditlog.ID(row.ID)).Count(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return n == 0
			})
		}
	},
}

// periodDue is how far the clock moves until the periodic timer's next
// period is due, read from its row.
func periodDue(t *testing.T, w *timerWorld, name string) time.Duration {
	t.Helper()
	row, err := w.replicas[0].DB.PeriodicRun.Get(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return max(row.NextAt.Sub(w.clock.Now()), 0) + time.Minute
}

// runs counts from now the passes of the named timer that did work
// (alarm.Fired: timers_fired_total), summed over the replicas.
func (w *timerWorld) runs(name string) func() int {
	fires := func() int {
		n := 0
		for _, r := range w.replicas {
			n += int(r.App.Timers.Fires(name))
		}
		return n
	}
	before := fires()
	return func() int { return fires() - before }
}

// deletion is a periodic deletion's item: the passes that ran its next
// period, counted once gone reports the row deleted.
func (w *timerWorld) deletion(t *testing.T, name string, gone func() bool) dueItem {
	t.Helper()
	runs := w.runs(name)
	return dueItem{due: periodDue(t, w, name), fired: func() int {
		if !gone() {
			return 0
		}
		return runs()
	}}
}

// deadReplica is the holder of leases whose replica no longer runs.
const deadReplica = "replica-killed-mid-pass"

// holdDead writes name's lease as a replica killed mid-pass leaves it:
// held, until a time it will not renew. It waits for the lease to be free,
// so that no live pass loses it.
func (w *timerWorld) holdDead(t *testing.T, name string, until time.Time) {
	t.Helper()
	servertest.WaitFor(t, "the lease of "+name+" free", func() bool {
		now := w.clock.Now().UTC()
		n, err := w.replicas[0].DB.TimerLease.Update().
			Where(timerlease.ID(name), timerlease.Or(timerlease.Holder(""), timerlease.UntilLTE(now))).
			SetHolder(deadReplica).SetUntil(until.UTC()).Save(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
}

// yields moves the clock by d and has every replica look at name's lease
// until each has found it held and run no pass.
func (w *timerWorld) yields(t *testing.T, name string, d time.Duration) {
	t.Helper()
	w.advanceUntil(t, name, d, "every replica finding "+name+"'s lease held", (*timers.Set).Yielded)
}

// advanceUntil moves the clock by d and wakes name on every replica until
// count (of that replica's timers, for name) has moved on each.
func (w *timerWorld) advanceUntil(t *testing.T, name string, d time.Duration, what string, count func(*timers.Set, string) int64) {
	t.Helper()
	before := make([]int64, len(w.replicas))
	for i, r := range w.replicas {
		before[i] = count(r.App.Timers, name)
	}
	w.clock.Advance(d)
	servertest.WaitFor(t, what, func() bool {
		all := true
		for i, r := range w.replicas {
			if count(r.App.Timers, name) <= before[i] {
				r.App.Timers.Wake(name)
				all = false
			}
		}
		return all
	})
}

// Issue 32: every registered durable timer fires once per due item across
// three replicas on one database, and the same after the replica holding
// its lease is killed.
func TestEveryTimerFiresOnceAcrossReplicas(t *testing.T) {
	spokes := newTimerWorld(t)
	walked := map[string]bool{}
	for _, name := range spokes.replicas[0].App.Timers.Names() {
		walked[name] = true
		walkTimer(t, spokes, name)
	}
	// A hub's own timers (team_renewals) in a world of hubs: only those the
	// first world does not register, as it walked the rest.
	hubs := newTimerWorld(t, servertest.WithRole("hub"))
	for _, name := range hubs.replicas[0].App.Timers.Names() {
		if !walked[name] {
			walked[name] = true
			walkTimer(t, hubs, name)
		}
	}
	// A probe neither world walks covers nothing: its timer was renamed, or
	// left the worlds.
	for name := range timerProbes {
		if !walked[name] {
			t.Errorf("timerProbes has a probe for %s, which neither world registers", name)
		}
	}
}

// walkTimer fires the named timer of w on every replica for a due item of
// its probe, then for another behind a dead replica's lease, and checks
// each was acted on once.
func walkTimer(t *testing.T, w *timerWorld, name string) {
	t.Helper()
	probe, ok := timerProbes[name]
	if !ok {
		t.Errorf("timer %s is registered but has no probe in timerProbes", name)
		return
	}
	t.Run(name, func(t *testing.T) {
		owns := w.replicas[0].App.Timers.Owns(name)
		// What an earlier probe's moves of the clock made due runs now,
		// not inside this probe's counts.
		w.fire(t, name, 0)
		next := probe(t, w)
		it := next(false)
		w.fire(t, name, it.due)
		servertest.WaitFor(t, name+" fired", func() bool { return it.fired() >= 1 })
		w.fire(t, name, 0) // every replica looks once more
		if n := it.fired(); n != 1 {
			t.Fatalf("%s fired %d times for one due item", name, n)
		}

		// The replica holding the lease is killed: its lease stands until
		// it lapses, then one live replica takes the item, once.
		if owns {
			it = next(true)
			w.clock.Advance(it.due + it.heldFor - time.Second)
			for _, r := range w.replicas {
				r.App.Timers.Wake(name)
			}
			stillFor(t, name+" not sent under a dead dispatcher's claim", 300*time.Millisecond, func() bool { return it.fired() == 0 })
			w.fire(t, name, 2*time.Second)
		} else {
			lease := w.replicas[0].App.Timers.Lease()
			w.holdDead(t, name, w.clock.Now().Add(24*365*time.Hour))
			it = next(false)
			until := w.clock.Now().Add(it.due + lease).UTC()
			if err := w.replicas[0].DB.TimerLease.Update().Where(timerlease.ID(name), timerlease.Holder(deadReplica)).
				SetUntil(until).Exec(t.Context()); err != nil {
				t.Fatal(err)
			}
			held, err := w.replicas[0].DB.TimerLease.Get(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			w.yields(t, name, it.due)
			if n := it.fired(); n != 0 {
				t.Fatalf("%s fired %d times under a dead replica's live lease", name, n)
			}
			if row, err := w.replicas[0].DB.TimerLease.Get(t.Context(), name); err != nil || row.Holder != deadReplica || row.Passes != held.Passes {
				t.Fatalf("the dead replica's lease of %s after the replicas looked: %+v %v, want held with %d passes", name, row, err, held.Passes)
			}
			w.fire(t, name, lease+time.Second)
		}
		servertest.WaitFor(t, name+" fired after the dead holder's lease", func() bool { return it.fired() >= 1 })
		w.fire(t, name, 0)
		if n := it.fired(); n != 1 {
			t.Fatalf("%s fired %d times for one due item after its holder was killed", name, n)
		}
	})
}

// stillFor fails unless ok holds throughout d: what must not happen is
// given d to happen.
func stillFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !ok() {
			t.Fatalf("%s: it did not hold", what)
		}
	}
}
