package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/dashboard"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// txRun is what the tx-creator child reports: the create transaction run
// in-process through the real queue service (bridge, activity, group commit
// on the same SQLite WAL file), without HTTP, key look-up or rendering.
type txRun struct {
	Creates int64         `json:"creates"`
	Errors  int64         `json:"errors"`
	Wall    time.Duration `json:"wall"`
	CPU     time.Duration `json:"cpu"` // the child's utime+stime (rusage), set by the parent
}

func (r txRun) rate() float64 { return float64(r.Creates) / r.Wall.Seconds() }

// runTxCreator starts the child, waits for it and charges it its own CPU time.
// mode is what runs: "service" (queue.Service), "raw" (the database/sql
// baseline, rawCreate) or "raw-locked" (the baseline with the server's locks).
func runTxCreator(ctx context.Context, dsn, userID string, workers int, d time.Duration, mode string) (txRun, error) {
	self, err := os.Executable()
	if err != nil {
		return txRun{}, err
	}
	cmd := exec.CommandContext(ctx, self, "tx-creator", "-db", dsn, "-user", userID,
		"-workers", fmt.Sprint(workers), "-for", d.String(), "-mode", mode)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.Output()
	if err != nil {
		return txRun{}, fmt.Errorf("tx-creator: %w", err)
	}
	var r txRun
	if err := json.Unmarshal(out, &r); err != nil {
		return txRun{}, fmt.Errorf("tx-creator output %q: %w", out, err)
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, nil
}

// asBench is ctx with what the gate would hand the service for the bench's
// key of account userID.
func asBench(ctx context.Context, userID string) context.Context {
	return auth.WithPrincipal(ctx, &auth.Principal{
		UserID: userID, Username: "bench", Name: "Bench", Role: "admin",
		Via: auth.ViaKey, KeyID: "bench", KeyLabel: "bench",
	})
}

// createService is the queue service as server.New wires it for a create:
// rows on its clock, the event bus storing what a unit of work emits, and
// what a create's domain events write (TestRawCreateWritesWhatACreateWrites
// holds it to the server's create).
func createService(database *db.DB) (*queue.Service, func(), error) {
	now := func() time.Time { return time.Now().UTC() }
	database.SetClock(now)
	bus, err := events.New(events.Config{DB: database, Now: now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, err
	}
	// The dashboard's card_changed, which the server subscribes to the
	// activity feed (server/subscriptions.go).
	database.Subscribe(db.On(dashboard.Recorded))
	return &queue.Service{DB: database, Now: now}, bus.Close, nil
}

// txCreatorMain is the child: workers goroutines create items for d.
func txCreatorMain(args []string) error {
	fs := flag.NewFlagSet("tx-creator", flag.ContinueOnError)
	dsn := fs.String("db", "", "database, as the server's --db")
	userID := fs.String("user", "", "account id")
	workers := fs.Int("workers", 16, "concurrent creators")
	d := fs.Duration("for", 5*time.Second, "run length")
	mode := fs.String("mode", "service", "service, raw (the database/sql baseline) or raw-locked (with the server's locks)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" || *userID == "" || *workers < 1 || *d <= 0 {
		return errors.New("tx-creator: -db, -user, -workers and -for are required")
	}
	if *mode != "service" && *mode != "raw" && *mode != "raw-locked" {
		return fmt.Errorf("tx-creator: -mode %q: service, raw or raw-locked", *mode)
	}
	ctx := context.Background()
	database, err := db.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer database.Close()
	svc, closeBus, err := createService(database)
	if err != nil {
		return err
	}
	defer closeBus()
	pctx := asBench(ctx, *userID)
	// Every mode counts each create against a rate limit first, with the
	// gate's statement, as the server does for each request before its
	// handler: the three modes are then the same statements.
	hit := gate.CountSQL(database.Dialect)
	var creates, errs, seq atomic.Int64
	var firstErr sync.Once
	deadline := time.Now().Add(*d)
	start := time.Now()
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				title := fmt.Sprintf("tx %d", seq.Add(1))
				err := countRequest(ctx, database.SQL, hit, "key:bench-tx-creator")
				switch {
				case err != nil:
				case *mode != "service":
					err = rawCreate(ctx, database.SQL, *userID, title, *mode == "raw-locked")
				default:
					_, err = svc.CreateQueueItem(pctx, &switchboardv1.CreateQueueItemRequest{Title: title})
				}
				if err != nil {
					errs.Add(1)
					firstErr.Do(func() { fmt.Fprintln(os.Stderr, "bench: tx-creator:", err) })
					continue
				}
				creates.Add(1)
			}
		})
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(txRun{Creates: creates.Load(), Errors: errs.Load(), Wall: time.Since(start)})
}
