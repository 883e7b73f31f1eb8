package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/a2aproject/a2a-go/a2a"

	"github.com/switchboard-hq/switchboard/ent/a2atask"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// ListTasks (A2A 1.0): the caller's tasks, whichever family made them, in
// 1.0 shapes, most recently updated first, paged by an opaque cursor
// (RULINGS "A2A" details of 2026-11-28; the A2A specification "List Tasks").

// List page sizes (the specification's: 50 unless asked, 1 to 100).
const (
	defaultListSize = 50
	maxListSize     = 100
)

// listParams is ListTasksRequest as JSON. status is the enum's name or
// number, as ProtoJSON reads it.
type listParams struct {
	Tenant               string          `json:"tenant"`
	ContextID            string          `json:"contextId"`
	Status               json.RawMessage `json:"status"`
	PageSize             *int            `json:"pageSize"`
	PageToken            string          `json:"pageToken"`
	HistoryLength        *int            `json:"historyLength"`
	StatusTimestampAfter *string         `json:"statusTimestampAfter"`
	IncludeArtifacts     bool            `json:"includeArtifacts"`
}

// listQuery is a checked ListTasks request.
type listQuery struct {
	contextID  string
	state      a2a.TaskState // empty: every state
	size       int
	after      *cursor
	history    *int
	since      *time.Time
	withOutput bool
}

type cursor struct {
	at time.Time
	id string
}

// v1States are the 1.0 enum's states in its numbering; 0, UNSPECIFIED, is
// no state.
var v1States = []a2a.TaskState{"", a2a.TaskStateSubmitted, a2a.TaskStateWorking,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateInputRequired,
	a2a.TaskStateRejected, a2a.TaskStateAuthRequired}

func decodeList(raw json.RawMessage) (*listQuery, error) {
	var p listParams
	// Every field is optional: no params lists the first page of all.
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
	}
	q := &listQuery{contextID: p.ContextID, size: defaultListSize, history: p.HistoryLength, withOutput: p.IncludeArtifacts}
	state, err := decodeState(p.Status)
	if err != nil {
		return nil, err
	}
	q.state = state
	if p.PageSize != nil {
		if *p.PageSize < 1 || *p.PageSize > maxListSize {
			return nil, badParams("params.pageSize must be from 1 to %d", maxListSize)
		}
		q.size = *p.PageSize
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, badParams("params.historyLength must not be negative")
	}
	if p.PageToken != "" {
		at, id, err := page.DecodeCursor(p.PageToken)
		if err != nil {
			return nil, badParams("params.pageToken is not a token this list gave out")
		}
		q.after = &cursor{at: at, id: id}
	}
	if p.StatusTimestampAfter != nil {
		at, err := time.Parse(time.RFC3339Nano, *p.StatusTimestampAfter)
		if err != nil {
			return nil, badParams("params.statusTimestampAfter must be an RFC 3339 timestamp such as 2026-11-28T10:00:00Z")
		}
		at = at.UTC()
		q.since = &at
	}
	return q, nil
}

// decodeState reads the status filter: TASK_STATE_… or its number;
// TASK_STATE_UNSPECIFIED (0) filters nothing.
func decodeState(raw json.RawMessage) (a2a.TaskState, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	bad := badParams("params.status must be a TaskState (TASK_STATE_SUBMITTED, TASK_STATE_WORKING, …)")
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		n, err := strconv.Atoi(string(raw))
		if err != nil || n < 0 || n >= len(v1States) {
			return "", bad
		}
		return v1States[n], nil
	}
	if name == "TASK_STATE_UNSPECIFIED" {
		return "", nil
	}
	for _, st := range v1States[1:] {
		if v1State(st) == name {
			return st, nil
		}
	}
	return "", bad
}

// listedTask is a task in a list: its artifacts only when asked for, and
// then always present (an empty list included), as the specification says.
type listedTask struct {
	*v1Task
	Artifacts *[]v1Artifact `json:"artifacts,omitempty"`
}

type listAnswer struct {
	Tasks         []listedTask `json:"tasks"`
	NextPageToken string       `json:"nextPageToken"`
	PageSize      int          `json:"pageSize"`
	TotalSize     int          `json:"totalSize"`
}

// listTasks is the ListTasks method.
func listTasks(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
	q, err := decodeList(raw)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, q)
}

// List answers one page of the caller's tasks and how many match in all.
func (s *Service) List(ctx context.Context, q *listQuery) (*listAnswer, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	sel, t, i := s.tasksJoined(false)
	// The status timestamp: the item's while it lives, the record's once final.
	stamp := "COALESCE(" + i.C(queueitem.FieldUpdatedAt) + ", " + t.C(a2atask.FieldUpdatedAt) + ")"
	where := []*entsql.Predicate{
		entsql.EQ(t.C(a2atask.FieldUserID), p.UserID),
		// A record whose item is not the caller's is no task of theirs (Get's rule).
		entsql.Or(entsql.NotNull(t.C(a2atask.FieldFinalState)), entsql.NotNull(i.C(queueitem.FieldID))),
	}
	if q.contextID != "" {
		where = append(where, entsql.EQ(t.C(a2atask.FieldContextID), q.contextID))
	}
	if q.state != "" {
		where = append(where, stateIs(q.state, t, i))
	}
	if q.since != nil {
		where = append(where, entsql.P(func(b *entsql.Builder) { b.WriteString(stamp + " >= ").Arg(*q.since) }))
	}
	onPage := where[:len(where):len(where)] // the count reads where without the cursor
	if q.after != nil {
		// Strictly after the cursor in (stamp, id) descending order: no overlap
		// and no gap between pages among equal stamps.
		at, id := q.after.at, q.after.id
		onPage = append(onPage, entsql.P(func(b *entsql.Builder) {
			b.WriteString("(" + stamp + " < ").Arg(at).
				WriteString(" OR (" + stamp + " = ").Arg(at).
				WriteString(" AND " + t.C(a2atask.FieldID) + " < ").Arg(id).WriteString("))")
		}))
	}
	query, args := sel.Where(entsql.And(onPage...)).
		OrderExpr(entsql.Expr(stamp+" DESC"), entsql.Expr(t.C(a2atask.FieldID)+" DESC")).
		Limit(q.size + 1).Query()
	rows, err := s.DB.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &listAnswer{Tasks: []listedTask{}, PageSize: q.size}
	var last *view
	for rows.Next() {
		if len(out.Tasks) == q.size {
			out.NextPageToken = page.EncodeCursor(last.at, last.rec.ID)
			break
		}
		rec, it, err := scanJoined(rows)
		if err != nil {
			return nil, err
		}
		v, err := viewOf(rec, it)
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, listed(v, q))
		last = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	// A first page that holds every match is its own total; only a page
	// with others before or after it counts them.
	out.TotalSize = len(out.Tasks)
	if q.after != nil || out.NextPageToken != "" {
		if out.TotalSize, err = s.countJoined(ctx, where); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func listed(v *view, q *listQuery) listedTask {
	task := taskV1(v, q.history)
	lt := listedTask{v1Task: task}
	if q.withOutput {
		arts := task.Artifacts
		if arts == nil {
			arts = []v1Artifact{}
		}
		lt.Artifacts = &arts
	}
	return lt
}

// stateIs narrows to tasks in state: a live item's status means its state
// (stateOf), a final record's state is its own.
func stateIs(state a2a.TaskState, t, i *entsql.SelectTable) *entsql.Predicate {
	var statuses []any
	for _, st := range []string{pendingConfirmation, ready, later, inProgress, blocked, doneToday} {
		if stateOf(st) == state {
			statuses = append(statuses, st)
		}
	}
	final := entsql.EQ(t.C(a2atask.FieldFinalState), string(state))
	if len(statuses) == 0 {
		return final
	}
	live := entsql.And(entsql.IsNull(t.C(a2atask.FieldFinalState)), entsql.In(i.C(queueitem.FieldStatus), statuses...))
	return entsql.Or(final, live)
}

// countJoined counts the tasks the predicates match.
func (s *Service) countJoined(ctx context.Context, where []*entsql.Predicate) (int, error) {
	sel, _, _ := s.tasksJoined(true)
	query, args := sel.Where(entsql.And(where...)).Query()
	var n int
	if err := s.DB.SQL.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, err
	}
	return n, nil
}
