package db_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

var errRefused = errors.New("refused")

func addUser(ctx context.Context, tx *db.Tx, name string) error {
	return tx.User.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).SetPasswordHash("x").Exec(ctx)
}

// Concurrent transactions all commit, each one's failure or panic undoes only
// its own writes, and typed errors come back unchanged (on SQLite through the
// group-commit writer, on PostgreSQL one transaction each).
func TestInTxConcurrentIsolation(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.InTx(ctx, func(tx *db.Tx) error {
				name := fmt.Sprintf("user%02d", i)
				if err := addUser(ctx, tx, name); err != nil {
					return err
				}
				// A transaction sees its own writes.
				ok, err := tx.User.Query().Where(user.Username(name)).Exist(ctx)
				if err != nil {
					return fmt.Errorf("own write: %w", err)
				}
				if !ok {
					return errors.New("own write not visible")
				}
				switch i % 10 {
				case 3:
					return fmt.Errorf("job %d: %w", i, errRefused)
				case 7:
					panic("boom")
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		switch i % 10 {
		case 3:
			if !errors.Is(err, errRefused) {
				t.Errorf("job %d: %v, want the job's own error", i, err)
			}
		case 7:
			if err == nil {
				t.Errorf("job %d panicked but reported success", i)
			}
		default:
			if err != nil {
				t.Errorf("job %d: %v", i, err)
			}
		}
	}
	got, err := d.User.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := n - 2*n/10; got != want {
		t.Fatalf("%d users committed, want %d (failed and panicked jobs must leave nothing)", got, want)
	}
}

// A unique violation inside one transaction fails that transaction alone.
func TestInTxConstraintFailureIsLocal(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	if err := d.InTx(ctx, func(tx *db.Tx) error { return addUser(ctx, tx, "taken") }); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]error, 2)
	for i, name := range []string{"taken", "fresh"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = d.InTx(ctx, func(tx *db.Tx) error { return addUser(ctx, tx, name) })
		}()
	}
	wg.Wait()
	if !ent.IsConstraintError(results[0]) || results[1] != nil {
		t.Fatalf("results = %v", results)
	}
	if ok, _ := d.User.Query().Where(user.Username("fresh")).Exist(ctx); !ok {
		t.Fatal("the good transaction was lost with the bad one")
	}
}

func TestInTxAfterClose(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A context already gone: nothing runs.
	ran := false
	err := d.InTx(ctx, func(*db.Tx) error { ran = true; return nil })
	if err == nil || ran {
		t.Fatalf("cancelled context: err=%v ran=%v", err, ran)
	}
}

// A transaction that runs alone (no savepoint) still leaves nothing when it
// fails or panics, and the next one works.
func TestInTxAloneRollsBack(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	if err := d.InTx(ctx, func(tx *db.Tx) error {
		if err := addUser(ctx, tx, "ghost"); err != nil {
			return err
		}
		return errRefused
	}); !errors.Is(err, errRefused) {
		t.Fatalf("err = %v", err)
	}
	if err := d.InTx(ctx, func(tx *db.Tx) error {
		_ = addUser(ctx, tx, "phantom")
		panic("boom")
	}); err == nil {
		t.Fatal("panic reported as success")
	}
	if err := d.InTx(ctx, func(tx *db.Tx) error { return addUser(ctx, tx, "real") }); err != nil {
		t.Fatal(err)
	}
	names, err := d.User.Query().Select(user.FieldUsername).Strings(ctx)
	if err != nil || len(names) != 1 || names[0] != "real" {
		t.Fatalf("users = %v, %v", names, err)
	}
}
