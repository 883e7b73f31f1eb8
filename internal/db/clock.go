package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
)

// SetClock names the clock that stamps rows: every create through this
// database's client gets created_at and updated_at, and every update
// updated_at, from now, unless the writer set them itself. The schema has no
// time defaults, so business time has one source, the server's clock
// (server.New sets it; docs/decisions.md, "Lint and one clock"). The clock
// belongs to the database handle, not the package, because tests run servers
// on different clocks side by side.
func (d *DB) SetClock(now func() time.Time) { d.now.Store(&now) }

// The generated mutation of every type with the field has these accessors.
type (
	createdStamp interface {
		CreatedAt() (time.Time, bool)
		SetCreatedAt(time.Time)
	}
	updatedStamp interface {
		UpdatedAt() (time.Time, bool)
		SetUpdatedAt(time.Time)
	}
)

// stampTimes is the hook open installs on the client. ent applies its own
// defaults before hooks and checks required fields after them, so the times
// set here satisfy that check, and a create that reaches it without a clock
// fails rather than falling back to the wall clock.
func (d *DB) stampTimes(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		var missing []string
		creating := m.Op().Is(ent.OpCreate)
		c, hasCreated := m.(createdStamp)
		if hasCreated && creating {
			if _, set := c.CreatedAt(); !set {
				missing = append(missing, "created_at")
			}
		}
		u, hasUpdated := m.(updatedStamp)
		if hasUpdated && (creating || m.Op().Is(ent.OpUpdate|ent.OpUpdateOne)) {
			if _, set := u.UpdatedAt(); !set {
				missing = append(missing, "updated_at")
			}
		}
		if len(missing) == 0 {
			return next.Mutate(ctx, m)
		}
		now := d.now.Load()
		if now == nil {
			return nil, fmt.Errorf("db: %s %s: %s unset and no clock to stamp it (DB.SetClock)",
				strings.TrimPrefix(m.Op().String(), "Op"), m.Type(), strings.Join(missing, " and "))
		}
		// One reading per mutation: a new row's two times are equal.
		at := (*now)()
		for _, f := range missing {
			if f == "created_at" {
				c.SetCreatedAt(at)
			} else {
				u.SetUpdatedAt(at)
			}
		}
		return next.Mutate(ctx, m)
	})
}
