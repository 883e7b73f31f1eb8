package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// buildServer builds ./cmd/switchboard from the module root into dir, unless
// .ci/run has built it from this checkout for all its steps
// (CI_SWITCHBOARD_BINARY): the package's tests then skip two links of the
// binary on a loaded machine.
func buildServer(ctx context.Context, dir string) (string, error) {
	if bin := os.Getenv("CI_SWITCHBOARD_BINARY"); bin != "" {
		return bin, nil
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "switchboard")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/switchboard")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build switchboard: %w", err)
	}
	return bin, nil
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// scratch is a subcommand's temp dir with the server built into it, and the
// subprocesses it starts.
type scratch struct {
	dir, bin string
	ps       *procs
}

// newScratch makes the dir and builds the server; done undoes both.
func newScratch(ctx context.Context, name string) (*scratch, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-"+name+"-")
	if err != nil {
		return nil, err
	}
	s := &scratch{dir: dir, ps: &procs{}}
	if s.bin, err = buildServer(ctx, dir); err != nil {
		s.done()
		return nil, err
	}
	return s, nil
}

// done kills the subprocesses, then removes the dir.
func (s *scratch) done() {
	s.ps.killAll()
	_ = os.RemoveAll(s.dir)
}

// startServer runs the real binary on a fresh database (dsn: a new SQLite file
// or a new PostgreSQL schema) with limits raised out of the way; log level
// warn keeps request logging off the CPU figures.
func startServer(ctx context.Context, ps *procs, bin, dsn string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p, _, err := ps.start("switchboard", os.Stderr, bin, "serve", "--addr", addr, "--db", dsn,
		"--rate-limit-per-minute", "1000000000", "--auth-rate-limit-per-minute", "1000", "--log-level", "warn")
	if err != nil {
		return nil, err
	}
	p.url = "http://" + addr
	return p, waitHealthy(ctx, p, 30*time.Second)
}

const benchPassword = "correct horse battery staple"

// account sets up the owner, logs in and makes an all-scopes API key.
func account(ctx context.Context, base string) (key, userID string, err error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Timeout: 30 * time.Second, Jar: jar}
	var setup struct {
		User struct{ ID string } `json:"user"`
	}
	if err := postJSON(ctx, c, base+"/api/setup", nil, map[string]any{
		"username": "bench", "email": "bench@example.com", "password": benchPassword,
		"name": "Bench", "acceptedTerms": true,
	}, http.StatusCreated, &setup); err != nil {
		return "", "", err
	}
	if err := postJSON(ctx, c, base+"/api/auth/login", map[string]string{"Origin": base}, map[string]any{
		"username": "bench", "password": benchPassword,
	}, http.StatusOK, nil); err != nil {
		return "", "", err
	}
	var k struct{ APIKey string }
	if err := postJSON(ctx, c, base+"/api/v2/keys", map[string]string{"Origin": base}, map[string]any{
		"label": "bench", "scopes": []string{},
	}, http.StatusCreated, &k); err != nil {
		return "", "", err
	}
	if k.APIKey == "" || setup.User.ID == "" {
		return "", "", fmt.Errorf("setup answered no key or user id")
	}
	return k.APIKey, setup.User.ID, nil
}

// postJSON posts body as JSON with the given headers and decodes the answer
// into out (unless nil) when its status is want.
func postJSON(ctx context.Context, c *http.Client, url string, header map[string]string, body any, want int, out any) error {
	return requestJSON(ctx, c, http.MethodPost, url, header, body, want, out)
}

// requestJSON is postJSON with another method; a nil body sends none.
func requestJSON(ctx context.Context, c *http.Client, method, url string, header map[string]string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// seed bulk-inserts n queue items for userID into the database.
func seed(ctx context.Context, dsn, userID string, n int) error {
	d, err := db.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer d.Close()
	return seedItems(ctx, d.Client, userID, n)
}

// seedItems inserts through the generated ent client in one transaction, with
// varied optional fields and distinct creation times so that the newest-first
// page is well defined.
func seedItems(ctx context.Context, client *ent.Client, userID string, n int) error {
	tx, err := client.Tx(ctx)
	if err != nil {
		return err
	}
	base := time.Now().UTC().Add(-time.Duration(n) * time.Second)
	const chunk = 500
	for lo := 0; lo < n; lo += chunk {
		builders := make([]*ent.QueueItemCreate, 0, chunk)
		for i := lo; i < min(lo+chunk, n); i++ {
			builders = append(builders, seedItem(tx.QueueItem.Create(), userID, i, base))
		}
		if err := tx.QueueItem.CreateBulk(builders...).Exec(ctx); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("seed: %w", err)
		}
	}
	return tx.Commit()
}

var (
	seedStatuses   = []queueitem.Status{queueitem.StatusPendingConfirmation, queueitem.StatusReady, queueitem.StatusInProgress, queueitem.StatusDoneToday, queueitem.StatusBlocked}
	seedPriorities = []queueitem.Priority{queueitem.PriorityLow, queueitem.PriorityMedium, queueitem.PriorityHigh, queueitem.PriorityUrgent}
)

func seedItem(c *ent.QueueItemCreate, userID string, i int, base time.Time) *ent.QueueItemCreate {
	at := base.Add(time.Duration(i)*time.Second + time.Duration(i%7)*123456789)
	c.SetUserID(userID).SetTitle(fmt.Sprintf("Seeded task %d: follow up with \"client\" <ops> & billing", i)).
		SetStatus(seedStatuses[i%len(seedStatuses)]).SetPriority(seedPriorities[i%len(seedPriorities)]).
		SetCreatedAt(at).SetUpdatedAt(at.Add(time.Duration(i%3) * time.Minute))
	if i%2 == 0 {
		c.SetDescription(fmt.Sprintf("Description of task %d.\nSecond line with a tab\tand unicode é✓.", i))
	}
	if i%3 == 0 {
		c.SetMetadata(fmt.Sprintf(`{"n":%d,"tags":["a","b"],"origin":"seed"}`, i)).SetSource("api")
	}
	if i%4 == 0 {
		c.SetProjectID(fmt.Sprintf("proj-%d", i%10)).SetSubtaskOrder(int32(i % 5))
	}
	if i%5 == 0 {
		c.SetCardID(fmt.Sprintf("card-%d", i)).SetRequesterEmail("someone@example.com").SetRequesterName("Some One")
	}
	return c
}
