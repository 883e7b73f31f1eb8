package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "github.com/mattn/go-sqlite3"    // registers "sqlite3"

	"github.com/switchboard-hq/switchboard/server/gate"
)

// rawServer is variant (b): GET /api/v2/queue answered with database/sql and
// encoding/json only. It sends the statements the real server sends — resolve
// the bearer key (hash lookup joined to its user), count the request against
// the key's rate limit (the server's own statement, gate.CountSQL), read the
// caller's total from the counters and one page newest first — and renders
// the same REST JSON shape ({success, data: {items, pagination}}, absent
// values as null). With the header rawNoCount it leaves the rate limit out:
// variant (b0), the baseline as it was before the limits moved into the
// database.
type rawServer struct {
	db  *sql.DB
	hit string // gate.CountSQL in the database's placeholders
}

// rawNoCount asks the raw server for (b0).
const rawNoCount = "X-Bench-No-Rate-Count"

// openRaw opens the database with database/sql's default pool: a SQLite file
// ("sqlite:PATH") query-only, or PostgreSQL (postgres://…) through pgx.
func openRaw(dsn string) (*rawServer, error) {
	driver, source, dia := "pgx", dsn, dialect.Postgres
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		driver, source, dia = "sqlite3", "file:"+path+"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL", dialect.SQLite
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return &rawServer{db: db, hit: gate.CountSQL(dia)}, nil
}

type rawPage struct {
	Success bool     `json:"success"`
	Data    rawItems `json:"data"`
}

type rawItems struct {
	Items      []rawItem     `json:"items"`
	Pagination rawPagination `json:"pagination"`
}

type rawPagination struct {
	Total   int  `json:"total"`
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"hasMore"`
}

// rawItem lists the REST fields in the contract's order.
type rawItem struct {
	ID                 string    `json:"id"`
	Type               string    `json:"type"`
	Title              string    `json:"title"`
	Description        *string   `json:"description"`
	Priority           string    `json:"priority"`
	Status             string    `json:"status"`
	Source             *string   `json:"source"`
	Metadata           *string   `json:"metadata"`
	TaskOrigin         string    `json:"taskOrigin"`
	UserID             *string   `json:"userId"`
	ProjectID          *string   `json:"projectId"`
	TeamID             *string   `json:"teamId"`
	CardID             *string   `json:"cardId"`
	ParentTaskID       *string   `json:"parentTaskId"`
	DependsOn          *string   `json:"dependsOn"`
	SubtaskOrder       *int32    `json:"subtaskOrder"`
	RequesterEmail     *string   `json:"requesterEmail"`
	RequesterName      *string   `json:"requesterName"`
	ExecutionID        *string   `json:"executionId"`
	CallbackURL        *string   `json:"callbackUrl"`
	SourceInstanceName *string   `json:"sourceInstanceName"`
	ProjectRequestID   *string   `json:"projectRequestId"`
	CreatedAt          protoTime `json:"createdAt"`
	UpdatedAt          protoTime `json:"updatedAt"`
}

// protoTime renders like protojson's Timestamp: UTC, 0, 3, 6 or 9 digits, Z.
type protoTime time.Time

func (t protoTime) MarshalText() ([]byte, error) {
	s := time.Time(t).UTC().Format("2006-01-02T15:04:05.000000000")
	s = strings.TrimSuffix(s, "000")
	s = strings.TrimSuffix(s, "000")
	s = strings.TrimSuffix(s, ".000")
	return []byte(s + "Z"), nil
}

const rawColumns = `id, type, title, description, priority, status, source, metadata, task_origin,
	user_id, project_id, team_id, card_id, parent_task_id, depends_on, subtask_order,
	requester_email, requester_name, execution_id, callback_url, source_instance_name,
	project_request_id, created_at, updated_at`

func (s *rawServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, keyID, status, err := s.authenticate(ctx, r.Header.Get("Authorization"))
	if err != nil {
		http.Error(w, `{"success":false}`, status)
		return
	}
	if r.Header.Get(rawNoCount) == "" {
		if err := countRequest(ctx, s.db, s.hit, "key:"+keyID); err != nil {
			http.Error(w, `{"success":false}`, http.StatusInternalServerError)
			return
		}
	}
	limit, offset := pageParams(r)
	page, err := s.page(ctx, userID, limit, offset)
	if err != nil {
		http.Error(w, `{"success":false}`, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the server does not escape <, > and & either
	if err := enc.Encode(page); err != nil {
		http.Error(w, `{"success":false}`, http.StatusInternalServerError)
		return
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// countRequest counts one request of the named client with the gate's
// statement hit, as the gate does before any handler runs (with a limit no
// bench reaches: the answer's counts are read, not judged).
func countRequest(ctx context.Context, d *sql.DB, hit, name string) error {
	var count, prev int
	return d.QueryRowContext(ctx, hit, gate.CountArgs(time.Now(), name, 1e9)...).Scan(&count, &prev)
}

// authenticate mirrors the key check: unknown, inactive, expired or
// out-of-scope keys are refused. It answers the key's user and id.
func (s *rawServer) authenticate(ctx context.Context, header string) (string, string, int, error) {
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || token == "" {
		return "", "", http.StatusUnauthorized, errors.New("no key")
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	var (
		userID  string
		keyID   string
		scopes  []byte // JSON text on SQLite, json on PostgreSQL
		active  bool
		expires sql.NullTime
	)
	err := s.db.QueryRowContext(ctx, `SELECT u.id, k.id, k.active, k.expires_at, k.scopes
		FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`,
		hex.EncodeToString(sum[:])).Scan(&userID, &keyID, &active, &expires, &scopes)
	if err != nil {
		return "", "", http.StatusUnauthorized, err
	}
	var sc []string
	_ = json.Unmarshal(scopes, &sc)
	switch {
	case !active, expires.Valid && !time.Now().Before(expires.Time):
		return "", "", http.StatusForbidden, errors.New("key not usable")
	case len(sc) > 0 && !slices.Contains(sc, "queue"):
		return "", "", http.StatusForbidden, errors.New("scope")
	}
	return userID, keyID, 0, nil
}

// pageParams applies the list defaults: 50 by default, at most 100.
func pageParams(r *http.Request) (limit, offset int) {
	q := r.URL.Query()
	limit, _ = strconv.Atoi(q.Get("limit"))
	offset, _ = strconv.Atoi(q.Get("offset"))
	if limit <= 0 {
		limit = 50
	}
	return min(limit, 100), max(offset, 0)
}

func (s *rawServer) page(ctx context.Context, userID string, limit, offset int) (*rawPage, error) {
	// The total from the counters the database keeps, as the server reads it.
	total, err := s.total(ctx, userID)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+rawColumns+` FROM queue_items WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]rawItem, 0, limit)
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	pg := rawPagination{Total: total, Limit: limit, Offset: offset, HasMore: offset+len(items) < total}
	return &rawPage{Success: true, Data: rawItems{Items: items, Pagination: pg}}, nil
}

func (s *rawServer) total(ctx context.Context, userID string) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n FROM queue_counts WHERE user_id = $1`, userID)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, rows.Err()
}

func scanItem(rows *sql.Rows) (rawItem, error) {
	var it rawItem
	var created, updated time.Time
	err := rows.Scan(&it.ID, &it.Type, &it.Title, &it.Description, &it.Priority, &it.Status, &it.Source,
		&it.Metadata, &it.TaskOrigin, &it.UserID, &it.ProjectID, &it.TeamID, &it.CardID, &it.ParentTaskID,
		&it.DependsOn, &it.SubtaskOrder, &it.RequesterEmail, &it.RequesterName, &it.ExecutionID,
		&it.CallbackURL, &it.SourceInstanceName, &it.ProjectRequestID, &created, &updated)
	if err != nil {
		return it, err
	}
	it.CreatedAt, it.UpdatedAt = protoTime(created), protoTime(updated)
	// Empty in the data model is absent on the wire, as in the real renderer.
	for _, p := range []**string{&it.Description, &it.Source, &it.Metadata, &it.UserID, &it.ProjectID,
		&it.TeamID, &it.CardID, &it.ParentTaskID, &it.DependsOn, &it.RequesterEmail, &it.RequesterName,
		&it.ExecutionID, &it.CallbackURL, &it.SourceInstanceName, &it.ProjectRequestID} {
		if *p != nil && **p == "" {
			*p = nil
		}
	}
	return it, nil
}
