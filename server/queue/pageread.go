package queue

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/page"
)

// The list is the hottest read: its page is read with ent's predicates and
// column names but scanned straight into the protos the answer carries, with
// LIMIT and OFFSET as parameters. ent's scan (a value holder allocated per
// column per row, then an ent.QueueItem, then its proto) was most of what a
// page cost over a plain database/sql read, and ent writes LIMIT into the SQL,
// which PostgreSQL plans without the index when statistics are stale
// (bench/RESULTS.md; TestPageReadIsToProtoOfEntsRows pins the equivalence).

// pageColumns are the columns scanPageRow reads, in its order.
var pageColumns = []string{
	queueitem.FieldID, queueitem.FieldType, queueitem.FieldTitle, queueitem.FieldDescription,
	queueitem.FieldPriority, queueitem.FieldStatus, queueitem.FieldSource, queueitem.FieldMetadata,
	queueitem.FieldTaskOrigin, queueitem.FieldUserID, queueitem.FieldProjectID, queueitem.FieldTeamID,
	queueitem.FieldCardID, queueitem.FieldParentTaskID, queueitem.FieldDependsOn, queueitem.FieldSubtaskOrder,
	queueitem.FieldRequesterEmail, queueitem.FieldRequesterName, queueitem.FieldExecutionID,
	queueitem.FieldCallbackURL, queueitem.FieldSourceInstanceName, queueitem.FieldProjectRequestID,
	queueitem.FieldCreatedAt, queueitem.FieldUpdatedAt,
}

// readPage answers the items where selects, newest first, one page of them.
func (s *Service) readPage(ctx context.Context, where []predicate.QueueItem, pg page.Request) ([]*switchboardv1.QueueItem, error) {
	query, args := pageQuery(s.DB.Dialect, where, pg)
	rows, err := s.DB.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]*switchboardv1.QueueItem, 0, pg.Limit)
	for rows.Next() {
		it, err := scanPageRow(rows)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

// pageQuery is the page's statement and its arguments, the limit and the
// offset last.
func pageQuery(dia string, where []predicate.QueueItem, pg page.Request) (string, []any) {
	t := entsql.Table(queueitem.Table)
	cols := make([]string, len(pageColumns))
	for i, c := range pageColumns {
		cols[i] = t.C(c)
	}
	sel := entsql.Dialect(dia).Select(cols...).From(t)
	for _, p := range where {
		p(sel)
	}
	sel.OrderBy(entsql.Desc(t.C(queueitem.FieldCreatedAt)), entsql.Desc(t.C(queueitem.FieldID)))
	query, args := sel.Query()
	if dia == dialect.Postgres {
		n := len(args)
		query += " LIMIT $" + strconv.Itoa(n+1) + " OFFSET $" + strconv.Itoa(n+2)
	} else {
		query += " LIMIT ? OFFSET ?"
	}
	return query, append(args, pg.Limit, pg.Offset)
}

// scanPageRow is toProto of the row: what is empty in the data model is
// absent on the wire (nonEmpty, as toProto does).
func scanPageRow(rows *sql.Rows) (*switchboardv1.QueueItem, error) {
	it := &switchboardv1.QueueItem{}
	var created, updated time.Time
	if err := rows.Scan(&it.Id, &it.Type, &it.Title, &it.Description, &it.Priority, &it.Status, &it.Source, &it.Metadata,
		&it.TaskOrigin, &it.UserId, &it.ProjectId, &it.TeamId, &it.CardId, &it.ParentTaskId, &it.DependsOn,
		&it.SubtaskOrder, &it.RequesterEmail, &it.RequesterName, &it.ExecutionId, &it.CallbackUrl,
		&it.SourceInstanceName, &it.ProjectRequestId, &created, &updated); err != nil {
		return nil, err
	}
	for _, f := range []**string{&it.Description, &it.Source, &it.Metadata, &it.ProjectId, &it.TeamId, &it.CardId,
		&it.ParentTaskId, &it.DependsOn, &it.RequesterEmail, &it.RequesterName, &it.ExecutionId, &it.CallbackUrl,
		&it.SourceInstanceName, &it.ProjectRequestId} {
		*f = nonEmpty(*f)
	}
	it.CreatedAt, it.UpdatedAt = timestamp(created), timestamp(updated)
	return it, nil
}
