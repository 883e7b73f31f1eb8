package gate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent/ratecount"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// The rate limits are counted in the database (RULINGS "Details for
// replicas": no 1/N share), so that every replica sees one count. Each
// counter is a row holding the current window's requests and the previous
// window's; the limit is a sliding window that weighs the previous window in
// by how much of it the sliding minute still covers, as httprate did when the
// counters were per process.
//
// A request costs one statement per class: an upsert that rolls the row to
// the current window, counts the request only when it is within the limit,
// and answers the counts. A refused request is not counted, so a client
// that keeps asking while refused is not held back longer.

// counters is the database's counters on the server's clock.
type counters struct {
	db   *db.DB
	now  func() time.Time
	hit  string       // the upsert, in the database's placeholders
	seen atomic.Int64 // the newest window pruned for (prune)
}

func newCounters(d *db.DB, now func() time.Time) *counters {
	c := &counters{db: d, now: now, hit: hitSQL}
	if d != nil {
		c.hit = CountSQL(d.Dialect)
	}
	return c
}

// CountSQL is the statement that counts one request, in dia's placeholders:
// $1 the counter's id (hex SHA-256 of its name), $2 the window's number, $3
// the previous window's weight, $4 the limit less one half; it answers the
// counts, or no row when the request is over the limit. The load benchmark's
// raw baselines send it as the server does.
func CountSQL(dia string) string {
	if dia != dialect.Postgres {
		// SQLite's numbered parameters are ?N; PostgreSQL's are $N.
		return strings.ReplaceAll(hitSQL, "$", "?")
	}
	return hitSQL
}

// windowAt is the window now falls in: its number, its start, and the share
// of the previous window the sliding window still covers.
func windowAt(now time.Time) (win int64, start time.Time, weight float64) {
	win = now.UnixMilli() / window.Milliseconds()
	start = time.UnixMilli(win * window.Milliseconds())
	return win, start, float64(window-now.Sub(start)) / float64(window)
}

// CountArgs are CountSQL's arguments for one request at now of the client
// called name under limit.
func CountArgs(now time.Time, name string, limit int) []any {
	win, _, weight := windowAt(now)
	sum := sha256.Sum256([]byte(name))
	return []any{hex.EncodeToString(sum[:]), win, weight, float64(limit) - 0.5}
}

// hitSQL: $1 the counter, $2 the current window, $3 the weight of the
// previous window, $4 the limit less one half (a rate rounded to the nearest
// whole request is within the limit when the exact one is below this).
// Inside DO UPDATE the table's name is the row as it was. The casts tell
// PostgreSQL the weights are not integers.
var hitSQL = fmt.Sprintf(`INSERT INTO %[1]s (%[2]s, %[3]s, %[4]s, %[5]s) VALUES ($1, $2, 1, 0)
ON CONFLICT (%[2]s) DO UPDATE SET
  %[4]s = CASE WHEN %[1]s.%[3]s = $2 THEN %[1]s.%[4]s + 1 ELSE 1 END,
  %[5]s = CASE WHEN %[1]s.%[3]s = $2 THEN %[1]s.%[5]s WHEN %[1]s.%[3]s = $2 - 1 THEN %[1]s.%[4]s ELSE 0 END,
  %[3]s = $2
WHERE (CASE WHEN %[1]s.%[3]s = $2 THEN %[1]s.%[5]s WHEN %[1]s.%[3]s = $2 - 1 THEN %[1]s.%[4]s ELSE 0 END) * CAST($3 AS DOUBLE PRECISION)
  + (CASE WHEN %[1]s.%[3]s = $2 THEN %[1]s.%[4]s ELSE 0 END) < CAST($4 AS DOUBLE PRECISION)
RETURNING %[4]s, %[5]s`,
	ratecount.Table, ratecount.FieldID, ratecount.FieldWindowNo, ratecount.FieldCount, ratecount.FieldPrev)

// verdict is one counted request: whether it may run, and its headers.
type verdict struct {
	ok               bool
	limit, remaining int
	reset            time.Time
}

// limiter is one limit: a number of requests per window.
type limiter struct {
	c     *counters
	limit int
}

// take counts one request of the client named key, unless that would pass
// the limit.
func (l limiter) take(ctx context.Context, key string) (verdict, error) {
	now := l.c.now()
	win, start, weight := windowAt(now)
	v := verdict{limit: l.limit, reset: start.Add(window)}
	var count, prev int
	err := l.c.db.SQL.QueryRowContext(ctx, l.c.hit, CountArgs(now, key, l.limit)...).Scan(&count, &prev)
	switch {
	case errors.Is(err, sql.ErrNoRows): // over the limit: nothing counted
		return v, nil
	case err != nil:
		return v, fmt.Errorf("gate: count a request: %w", err)
	}
	l.c.prune(ctx, win)
	rate := int(math.Round(float64(prev)*weight + float64(count-1)))
	v.ok, v.remaining = true, max(0, l.limit-rate-1)
	return v, nil
}

// onLimit counts one request of key and sets the X-RateLimit headers on w
// (and Retry-After when refused); true when the request is refused. An
// error of the database refuses it too.
func (l limiter) onLimit(w http.ResponseWriter, r *http.Request, key string) (bool, error) {
	v, err := l.take(r.Context(), key)
	if err != nil {
		return true, err
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(v.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(v.reset.Unix(), 10))
	if !v.ok {
		h.Set("Retry-After", strconv.Itoa(apperr.RetryAfterSeconds(window)))
	}
	return !v.ok, nil
}

// refusal is the error to answer for onLimit's verdict.
func refusal(limited bool, err error) error {
	switch {
	case err != nil:
		return apperr.Internal(err)
	case limited:
		return apperr.RateLimited(window)
	}
	return nil
}

// prune deletes the counters of windows before the previous one, once per
// window per process: they weigh nothing any more, and the upsert resets a
// stale row anyway, so this only keeps the table small.
func (c *counters) prune(ctx context.Context, win int64) {
	if seen := c.seen.Load(); seen >= win || !c.seen.CompareAndSwap(seen, win) {
		return
	}
	// Best effort: a failure leaves rows the next window's prune deletes.
	_, _ = c.db.RateCount.Delete().Where(ratecount.WindowNoLT(win - 1)).Exec(ctx)
}
