package main

// In-process benchmarks of the same paths, for CPU profiles (the server binary
// has no pprof endpoint). They run the real handler from server.New via
// servertest, over SQLite WAL in a temp dir:
//
//	go test ./bench -run '^$' -bench . -benchtime 2s -cpuprofile /tmp/cpu.out
//	go tool pprof -top -nodecount 40 /tmp/cpu.out
//
// The *Service benchmarks call the queue service directly (no HTTP, no gate,
// no rendering), so their profile is the storage path alone.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const profileItems = 10000

type fixture struct {
	s      *servertest.Server
	key    string
	userID string
}

func newFixture(b *testing.B, items int) fixture {
	b.Helper()
	s := servertest.New(b)
	acct := s.SignUp("bench")
	key := acct.NewKey("bench")
	if err := seedItems(context.Background(), s.DB.Client, acct.ID, items); err != nil {
		b.Fatal(err)
	}
	return fixture{s: s, key: key, userID: acct.ID}
}

// principal is what the gate would hand the service for the bench key.
func (f fixture) principal() context.Context { return asBench(context.Background(), f.userID) }

func expect(b *testing.B, res *servertest.Response, status int) {
	if res.Status != status {
		b.Fatalf("status %d: %.300s", res.Status, res.Body)
	}
}

func BenchmarkListREST(b *testing.B) {
	f := newFixture(b, profileItems)
	c := f.s.WithKey(f.key)
	for b.Loop() {
		expect(b, c.Do(http.MethodGet, listPath, nil), http.StatusOK)
	}
}

func BenchmarkListConnect(b *testing.B) {
	f := newFixture(b, profileItems)
	c := f.s.WithKey(f.key)
	for b.Loop() {
		expect(b, c.Do(http.MethodPost, connectPath, `{"limit":50}`), http.StatusOK)
	}
}

// BenchmarkListMCP is variant (m), the bare body: queue_list through the MCP
// door (the same ListQueueItems call as BenchmarkListConnect).
func BenchmarkListMCP(b *testing.B) {
	f := newFixture(b, profileItems)
	c := f.s.WithKey(f.key)
	body := `{"method":"tools/call","params":{"name":"queue_list","arguments":{"limit":50}}}`
	for b.Loop() {
		expect(b, c.Do(http.MethodPost, mcpPath, body), http.StatusOK)
	}
}

// BenchmarkListRaw is variant (b) over the server's own *sql.DB.
func BenchmarkListRaw(b *testing.B) {
	f := newFixture(b, profileItems)
	ts := httptest.NewServer(&rawServer{db: f.s.DB.SQL})
	b.Cleanup(ts.Close)
	client := &http.Client{Timeout: 10 * time.Second}
	req := func() {
		r, err := http.NewRequest(http.MethodGet, ts.URL+listPath, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+f.key)
		res, err := client.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	for b.Loop() {
		req()
	}
}

func BenchmarkListService(b *testing.B) {
	f := newFixture(b, profileItems)
	svc := &queue.Service{DB: f.s.DB, Now: time.Now}
	ctx := f.principal()
	for b.Loop() {
		if _, err := svc.ListQueueItems(ctx, &switchboardv1.ListQueueItemsRequest{Limit: 50}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateREST(b *testing.B) {
	f := newFixture(b, profileItems)
	c := f.s.WithKey(f.key)
	n := 0
	for b.Loop() {
		n++
		expect(b, c.Do(http.MethodPost, "/api/v2/queue", fmt.Sprintf(`{"title":"bench %d"}`, n)), http.StatusCreated)
	}
}

func BenchmarkCreateService(b *testing.B) {
	f := newFixture(b, profileItems)
	svc := &queue.Service{DB: f.s.DB, Now: time.Now}
	ctx := f.principal()
	n := 0
	for b.Loop() {
		n++
		if _, err := svc.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: fmt.Sprintf("bench %d", n)}); err != nil {
			b.Fatal(err)
		}
	}
}

// The page's total, counted the way ent's Count does (COUNT of the id column),
// the plain way, and read from the counters the database keeps (what the list
// does); on SQLite the first visits every row, the second only an index, the
// third a row per status. The SQL is quoted and numbered so that it runs on
// both databases.
func benchCount(b *testing.B, query string) {
	f := newFixture(b, profileItems)
	for b.Loop() {
		rows, err := f.s.DB.SQL.Query(query, f.userID)
		if err != nil {
			b.Fatal(err)
		}
		total := 0
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				b.Fatal(err)
			}
			total += n
		}
		if err := rows.Close(); err != nil || total != profileItems {
			b.Fatal(total, err)
		}
	}
}

func BenchmarkCountEntStyle(b *testing.B) {
	benchCount(b, `SELECT COUNT("queue_items"."id") FROM "queue_items" WHERE "queue_items"."user_id" = $1`)
}

func BenchmarkCountStar(b *testing.B) {
	benchCount(b, `SELECT COUNT(*) FROM "queue_items" WHERE "queue_items"."user_id" = $1`)
}

func BenchmarkCountCounters(b *testing.B) {
	benchCount(b, `SELECT n FROM "queue_counts" WHERE "user_id" = $1`)
}

// TestShowSQL logs every statement one list and one create run (go test
// ./bench -run ShowSQL -v), to see what the storage path costs in round trips.
func TestShowSQL(t *testing.T) {
	s := servertest.New(t)
	acct := s.SignUp("bench")
	if err := seedItems(context.Background(), s.DB.Client, acct.ID, 60); err != nil {
		t.Fatal(err)
	}
	var stmts []string
	logf := func(v ...any) { stmts = append(stmts, fmt.Sprint(v...)) }
	client := ent.NewClient(ent.Driver(dialect.Debug(entsql.OpenDB(s.DB.Dialect, s.DB.SQL), logf)))
	svc := &queue.Service{DB: &db.DB{Client: client, Dialect: s.DB.Dialect, SQL: s.DB.SQL}, Now: time.Now}
	ctx := fixture{s: s, userID: acct.ID}.principal()
	for _, call := range []struct {
		name string
		// maxSQL bounds the statements (not counting begin and commit): an
		// extra query on either hot path fails here, not silently in the bench.
		maxSQL int
		run    func() error
	}{
		// The list's total goes through ent (one statement); its page is one
		// statement more, read with database/sql (queue/pageread.go), which
		// this driver does not see.
		{"list", 1, func() error {
			_, err := svc.ListQueueItems(ctx, &switchboardv1.ListQueueItemsRequest{Limit: 50})
			return err
		}},
		{"create", 7, func() error {
			_, err := svc.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: "show sql"})
			return err
		}},
	} {
		stmts = nil
		if err := call.run(); err != nil {
			t.Fatal(err)
		}
		sql := 0
		for _, s := range stmts {
			t.Log("  ", s)
			if strings.Contains(s, ".Query: ") || strings.Contains(s, ".Exec: ") {
				sql++
			}
		}
		t.Logf("%s: %d SQL statements", call.name, sql)
		if sql == 0 || sql > call.maxSQL {
			t.Errorf("%s ran %d SQL statements, want 1..%d", call.name, sql, call.maxSQL)
		}
	}
}

// BenchmarkCreateServiceParallel runs the create transaction from many
// goroutines at once, as concurrent requests do, so group commit applies.
func BenchmarkCreateServiceParallel(b *testing.B) {
	f := newFixture(b, profileItems)
	svc := &queue.Service{DB: f.s.DB, Now: time.Now}
	ctx := f.principal()
	var n atomic.Int64
	cpu0 := processCPU(b)
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: fmt.Sprintf("bench %d", n.Add(1))}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(n.Load())/b.Elapsed().Seconds(), "creates/s")
	// CPU per create is steadier than the rate when the machine is shared.
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(max(n.Load(), 1)), "cpu-µs/create")
}

// BenchmarkCreateServiceParallelAccounts is BenchmarkCreateServiceParallel
// spread over 16 accounts: the difference between the two is what one
// account's creates wait for each other (on PostgreSQL, the account's column
// and events locks, held to commit).
func BenchmarkCreateServiceParallelAccounts(b *testing.B) {
	f := newFixture(b, 0)
	svc := &queue.Service{DB: f.s.DB, Now: time.Now}
	accounts := make([]context.Context, 16)
	for i := range accounts {
		a := f.s.SignUp(fmt.Sprintf("bench%d", i))
		accounts[i] = asBench(context.Background(), a.ID)
	}
	var n, next atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		ctx := accounts[int(next.Add(1)-1)%len(accounts)]
		for pb.Next() {
			if _, err := svc.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: fmt.Sprintf("bench %d", n.Add(1))}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(n.Load())/b.Elapsed().Seconds(), "creates/s")
}

// processCPU is this process's user+system time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGetA2A and BenchmarkGetConnectItem are variants (g) and (h): one
// A2A task read back by tasks/get, and its queue item over Connect.
func BenchmarkGetA2A(b *testing.B) {
	f := newFixture(b, 0)
	c := f.s.WithKey(f.key)
	task, _ := sendA2ATask(b, c)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":%q}}`, task)
	for b.Loop() {
		expect(b, c.Do(http.MethodPost, "/api/a2a", body), http.StatusOK)
	}
}

func BenchmarkGetConnectItem(b *testing.B) {
	f := newFixture(b, 0)
	c := f.s.WithKey(f.key)
	_, item := sendA2ATask(b, c)
	body := fmt.Sprintf(`{"id":%q}`, item)
	for b.Loop() {
		expect(b, c.Do(http.MethodPost, "/switchboard.v1.QueueService/GetQueueItem", body), http.StatusOK)
	}
}

// sendA2ATask sends one A2A task and answers its id and its queue item's.
func sendA2ATask(b *testing.B, c *servertest.Caller) (task, item string) {
	b.Helper()
	res := c.Do(http.MethodPost, "/api/a2a", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"Bench task\nread back by tasks/get"}]}}}`)
	expect(b, res, http.StatusOK)
	var sent a2aSent
	if err := json.Unmarshal(res.Body, &sent); err != nil || sent.Result.ID == "" || sent.Result.Metadata.QueueItemID == "" {
		b.Fatalf("message/send answered %.300s (%v)", res.Body, err)
	}
	return sent.Result.ID, sent.Result.Metadata.QueueItemID
}
