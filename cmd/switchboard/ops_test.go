package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// startServing starts `switchboard serve` with args and answers its base URL
// once it has logged where it listens (a replica waiting for its schema
// never logs the dashboard line that startBinary waits for).
func startServing(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, slices.Concat(serveArgs, args)...)
	keepKeyOutOfTree(t, cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	var mu sync.Mutex
	var seen []string
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			mu.Lock()
			seen = append(seen, sc.Text())
			mu.Unlock()
			var l logLine
			if !sent && json.Unmarshal(sc.Bytes(), &l) == nil && l.str("msg") == "switchboard listening" {
				addr <- l.str("addr")
				sent = true
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if ok {
			return "http://" + a, cmd
		}
	case <-time.After(60 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("serve %v did not say where it listens; it wrote:\n%s", args, strings.Join(seen, "\n"))
	return "", nil
}

// status is the status and body of GET base+path.
func status(t *testing.T, base, path string) (int, string) {
	t.Helper()
	res, err := (&http.Client{Timeout: 30 * time.Second}).Get(base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// awaitStatus asks GET base+path until it answers want; the bound only
// keeps a broken server from hanging the test.
func awaitStatus(t *testing.T, base, path string, want int) {
	t.Helper()
	var got int
	var body string
	for range 600 {
		if got, body = status(t, base, path); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %d %s, want %d", path, got, body, want)
}

// runMigrate runs `switchboard migrate` to its end.
func runMigrate(t *testing.T, dsn string) (int, string, string) {
	t.Helper()
	return runBinary(t, "migrate", "--db", dsn)
}

// Issue 32 (RULINGS "Replicas and operations"): two `switchboard migrate`
// at once on an empty database both succeed and migrate once: one reports
// the migration, the other finds the schema current; the database then
// carries the build's schema, each version recorded once.
func TestMigrateTwiceConcurrently(t *testing.T) {
	dsn := dbtest.EmptyDSN(t)
	buildBinary(t)
	type result struct {
		code           int
		stdout, stderr string
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			code, out, errOut := runMigrate(t, dsn)
			results <- result{code, out, errOut}
		}()
	}
	var migrated, current int
	for range 2 {
		r := <-results
		if r.code != 0 {
			t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		switch {
		case strings.HasPrefix(r.stdout, "migrated "):
			migrated++
		case strings.Contains(r.stdout, "nothing to do"):
			current++
		default:
			t.Fatalf("migrate said %q", r.stdout)
		}
	}
	if migrated != 1 || current != 1 {
		t.Fatalf("%d migrated and %d found it current, want one each", migrated, current)
	}
	d, err := db.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.SchemaStatus(t.Context()); err != nil {
		t.Fatalf("after the migrations: %v", err)
	}
	var versions int
	if err := d.SQL.QueryRowContext(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&versions); err != nil || versions != len(db.VersionNames()) {
		t.Fatalf("schema_migrations rows: %d %v, want %d", versions, err, len(db.VersionNames()))
	}
	// A third run has nothing to do.
	if code, out, errOut := runMigrate(t, dsn); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Fatalf("migrate again: exit %d %q %q", code, out, errOut)
	}
}

// Issue 32: three plain serves (each migrating at start) started at once on
// an empty database all come up ready on the one schema; on PostgreSQL
// they raced in ent's DDL before the migration lock
// (pg_type_typname_nsp_index).
func TestThreeServesStartTogether(t *testing.T) {
	bin := buildBinary(t)
	dsn := dbtest.EmptyDSN(t)
	bases := make([]string, 3)
	var wg sync.WaitGroup
	for i := range bases {
		wg.Go(func() { bases[i], _ = startServing(t, bin, "--db", dsn) })
	}
	wg.Wait()
	for _, base := range bases {
		if got, body := status(t, base, "/readyz"); got != http.StatusOK {
			t.Fatalf("%s/readyz: %d %s", base, got, body)
		}
	}
	if code, out, errOut := runMigrate(t, dsn); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Fatalf("migrate after the three: exit %d %q %q", code, out, errOut)
	}
}

// Issue 32: a replica started with --migrate=false on an empty database
// starts, is alive (/healthz 200) and not ready (/readyz 503, saying why;
// its routes 503), and turns ready once `switchboard migrate` has run,
// without a restart.
func TestReplicaWaitsForMigrate(t *testing.T) {
	bin := buildBinary(t)
	dsn := dbtest.EmptyDSN(t)
	base, cmd := startServing(t, bin, "--db", dsn, "--migrate=false")
	if got, body := status(t, base, "/healthz"); got != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", got, body)
	}
	got, body := status(t, base, "/readyz")
	if got != http.StatusServiceUnavailable || !strings.Contains(body, "switchboard migrate") {
		t.Fatalf("/readyz before the migration: %d %s", got, body)
	}
	if got, body := status(t, base, "/api/setup/status"); got != http.StatusServiceUnavailable {
		t.Fatalf("a route before the migration: %d %s", got, body)
	}
	if code, out, errOut := runMigrate(t, dsn); code != 0 || !strings.HasPrefix(out, "migrated ") {
		t.Fatalf("migrate: exit %d %q %q", code, out, errOut)
	}
	awaitStatus(t, base, "/readyz", http.StatusOK)
	binaryAccount(t, base) // the app serves: setup, login, a key
	terminate(t, cmd, " after the migration")
}

// Issue 32: SIGTERM drains. The listener closes at once; an open SSE
// stream gets retry: and event: reconnect, then ends; a request whose body
// was still arriving completes with its normal answer; the process exits 0.
func TestSIGTERMDrains(t *testing.T) {
	bin := buildBinary(t)
	base, cmd := startBinary(t, bin, "--db", dbtest.DSN(t), "--shutdown-timeout", "60s")
	key := binaryAccount(t, base)
	events := binaryStream(t, base, key)
	nextOf(t, events, "connected")

	// The slow request: a send whose body the client has half written.
	body, bodyW := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v2/shared-chat/send", body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	// The body waits for the server's 100 Continue, which it sends once it
	// has read the request's head and the handler reads the body: the
	// request is then in flight, not in the listener's backlog.
	req.Header.Set("Expect", "100-continue")
	answer := make(chan *http.Response, 1)
	go func() {
		res, err := (&http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Hour}}).Do(req) //nolint:bodyclose // the test reads and closes it from answer
		if err != nil {
			t.Errorf("the slow send: %v", err)
		}
		answer <- res
	}()
	// A pipe's write returns once the transport has taken it, after the
	// 100 Continue.
	if _, err := bodyW.Write([]byte(`{"content":"sent `)); err != nil {
		t.Fatal(err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ev := nextOf(t, events, "reconnect")
	if ev.Retry == "" {
		t.Fatalf("the reconnect event has no retry: %+v", ev)
	}
	for range events {
	}
	// The listener closed before the streams were ended.
	if c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")); err == nil {
		c.Close()
		t.Fatal("a new connection was accepted after SIGTERM")
	}

	if _, err := bodyW.Write([]byte(`while draining"}`)); err != nil {
		t.Fatal(err)
	}
	bodyW.Close()
	res := <-answer
	if res == nil {
		t.FailNow()
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated || !strings.Contains(string(got), "sent while draining") {
		t.Fatalf("the slow send: %d %s", res.StatusCode, got)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no exit within the shutdown timeout")
	}
}

// Issue 32: `switchboard backup` while writes go on: the copy opens, passes
// PRAGMA integrity_check and holds every write acknowledged before the
// backup started; an existing file is refused without --force. On
// PostgreSQL the command refuses and names pg_dump.
func TestBackupDuringWrites(t *testing.T) {
	bin := buildBinary(t)
	dsn := dbtest.DSN(t)
	to := filepath.Join(t.TempDir(), "copy.db")
	if db.SQLiteFile(dsn) == "" {
		code, _, errOut := runBinary(t, "backup", "--to", to, "--db", dsn)
		if code != 1 || !strings.Contains(errOut, "pg_dump") {
			t.Fatalf("backup of PostgreSQL: exit %d %q", code, errOut)
		}
		return
	}
	// The load is more than a key's default 120 requests a minute.
	base, cmd := startBinary(t, bin, "--db", dsn, "--rate-limit-per-minute", "1000000")
	_, key := binaryOwner(t, base, "queue")
	var (
		mu    sync.Mutex
		acked []string
	)
	stop := make(chan struct{})
	writing := make(chan struct{})
	go func() {
		defer close(writing)
		client := &http.Client{Timeout: 30 * time.Second}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			req, _ := http.NewRequest(http.MethodPost, base+"/api/v2/queue", strings.NewReader(fmt.Sprintf(`{"title":"item %d"}`, i)))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := client.Do(req)
			if err != nil {
				t.Errorf("create: %v", err)
				return
			}
			var created struct{ Item struct{ ID string } }
			err = json.NewDecoder(res.Body).Decode(&created)
			res.Body.Close()
			if res.StatusCode != http.StatusCreated || err != nil {
				t.Errorf("create: %d %v", res.StatusCode, err)
				return
			}
			mu.Lock()
			acked = append(acked, created.Item.ID)
			mu.Unlock()
		}
	}()
	// Some writes first, so the copy has something to hold.
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	before := slices.Clone(acked)
	mu.Unlock()
	code, out, errOut := runBinary(t, "backup", "--to", to, "--db", dsn)
	close(stop)
	<-writing
	if code != 0 {
		t.Fatalf("backup: exit %d %q %q", code, out, errOut)
	}
	if err := integrityCheck(to); err != nil {
		t.Fatal(err)
	}
	c, err := sql.Open("sqlite3", "file:"+to+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, id := range before {
		var n int
		if err := c.QueryRow("SELECT count(*) FROM queue_items WHERE id = ?", id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("item %s acknowledged before the backup: %d in the copy, %v", id, n, err)
		}
	}
	if code, _, errOut := runBinary(t, "backup", "--to", to, "--db", dsn); code != 1 || !strings.Contains(errOut, "--force") {
		t.Fatalf("backup over an existing file: exit %d %q", code, errOut)
	}
	if code, _, errOut := runBinary(t, "backup", "--to", to, "--db", dsn, "--force"); code != 0 {
		t.Fatalf("backup --force: exit %d %q", code, errOut)
	}
	terminate(t, cmd, " after the backup")
}

// Issue 32: `switchboard restore` refuses a database a running server holds
// and an existing file without --force; it checks the copy and puts it in
// place, and the server serves it. On PostgreSQL it refuses and names
// pg_restore.
func TestRestoreRefusesAHeldDatabase(t *testing.T) {
	bin := buildBinary(t)
	dsn := dbtest.DSN(t)
	file := db.SQLiteFile(dsn)
	if file == "" {
		code, _, errOut := runBinary(t, "restore", "--from", filepath.Join(t.TempDir(), "copy.db"), "--db", dsn)
		if code != 1 || !strings.Contains(errOut, "pg_restore") {
			t.Fatalf("restore of PostgreSQL: exit %d %q", code, errOut)
		}
		return
	}
	base, cmd := startBinary(t, bin, "--db", dsn)
	binaryAccount(t, base) // an owner, which the restored copy must keep
	to := filepath.Join(t.TempDir(), "copy.db")
	if code, _, errOut := runBinary(t, "backup", "--to", to, "--db", dsn); code != 0 {
		t.Fatalf("backup: %d %q", code, errOut)
	}
	code, _, errOut := runBinary(t, "restore", "--from", to, "--db", dsn, "--force")
	if code != 1 || !strings.Contains(errOut, "a running server holds") {
		t.Fatalf("restore under a running server: exit %d %q", code, errOut)
	}
	terminate(t, cmd, "")
	if code, _, errOut := runBinary(t, "restore", "--from", to, "--db", dsn); code != 1 || !strings.Contains(errOut, "exists; --force replaces it") {
		t.Fatalf("restore over an existing file without --force: exit %d %q", code, errOut)
	}
	// A file that is not a database is refused, and the database stays.
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runBinary(t, "restore", "--from", junk, "--db", dsn, "--force"); code != 1 {
		t.Fatalf("restore of a file that is no database: exit %d %q", code, errOut)
	}
	if code, out, errOut := runBinary(t, "restore", "--from", to, "--db", dsn, "--force"); code != 0 || !strings.HasPrefix(out, "restored ") {
		t.Fatalf("restore --force: exit %d %q %q", code, out, errOut)
	}
	base, cmd = startBinary(t, bin, "--db", dsn)
	if _, lines := status(t, base, "/readyz"); !strings.Contains(lines, "ready") {
		t.Fatalf("/readyz on the restored database: %s", lines)
	}
	terminate(t, cmd, " on the restored database")
}

// The commands' flags: --to and --from are required, and a stray argument
// is a usage error, as serve's are.
func TestOpsUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"backup"}, "switchboard backup: --to FILE is required"},
		{[]string{"restore", "--db", "sqlite:x.db"}, "switchboard restore: --from FILE is required"},
		{[]string{"migrate", "now"}, "switchboard migrate: unexpected arguments: now"},
		{[]string{"migrate", "--bogus"}, "switchboard migrate: flag provided but not defined: -bogus"},
	} {
		code, out, errOut := runBinary(t, c.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, c.want+"\n") {
			t.Errorf("%v: exit %d %q %q", c.args, code, out, errOut)
		}
	}
	for _, cmd := range []string{"migrate", "backup", "restore"} {
		if code, out, _ := runBinary(t, cmd, "-h"); code != 0 || !strings.HasPrefix(out, "usage: switchboard "+cmd) || !strings.Contains(out, "SWITCHBOARD_DB") {
			t.Errorf("%s -h: exit %d %q", cmd, code, out)
		}
	}
}
