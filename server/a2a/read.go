package a2a

import (
	"context"
	"database/sql"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/a2atask"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
)

// taskWithItem reads the task's record and its queue item (while the item
// lives) in one round trip, a left join on the item's id and owner: tasks/get
// answers from both, and a second query was most of what it cost over
// Connect's GetQueueItem, which reads one row (RULINGS "MCP": at most 1.5×).
// item is nil once the task is final (its item gone) or when the record's
// item is not the caller's. The columns are ent's own; the scan keeps ent's
// types.
func (s *Service) taskWithItem(ctx context.Context, userID, taskID string) (*ent.A2ATask, *ent.QueueItem, error) {
	sel, t, _ := s.tasksJoined(false)
	query, args := sel.Where(entsql.And(entsql.EQ(t.C(a2atask.FieldUserID), userID), entsql.EQ(t.C(a2atask.FieldTaskID), taskID))).Query()
	rows, err := s.DB.SQL.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
		return nil, nil, errTaskNotFound(taskID)
	}
	rec, it, err := scanJoined(rows)
	if err != nil {
		return nil, nil, err
	}
	return rec, it, rows.Close()
}

// tasksJoined selects records (t) left-joined with their items (i) on the
// item's id and owner, in the columns scanJoined reads, or their count. The
// tables carry the dialect, so their columns can be written into
// expressions.
func (s *Service) tasksJoined(count bool) (*entsql.Selector, *entsql.SelectTable, *entsql.SelectTable) {
	d := entsql.Dialect(s.DB.Dialect)
	t, i := d.Table(a2atask.Table).As("t"), d.Table(queueitem.Table).As("i")
	var sel *entsql.Selector
	if count {
		sel = d.Select(entsql.Count("*"))
	} else {
		cols := make([]string, 0, len(recordColumns)+6)
		for _, c := range recordColumns {
			cols = append(cols, t.C(c))
		}
		cols = append(cols, i.C(queueitem.FieldID), i.C(queueitem.FieldStatus), i.C(queueitem.FieldUpdatedAt),
			i.C(queueitem.FieldResult), i.C(queueitem.FieldResultStatus), i.C(queueitem.FieldMetadata))
		sel = d.Select(cols...)
	}
	sel.From(t).LeftJoin(i).OnP(entsql.And(
		entsql.ColumnsEQ(i.C(queueitem.FieldID), t.C(a2atask.FieldItemID)),
		entsql.ColumnsEQ(i.C(queueitem.FieldUserID), t.C(a2atask.FieldUserID))))
	return sel, t, i
}

// scanJoined reads one row of tasksJoined: the record, and its item while it
// lives.
func scanJoined(rows *sql.Rows) (*ent.A2ATask, *ent.QueueItem, error) {
	rec := &ent.A2ATask{}
	var (
		finalState, finalMessage, artifacts            sql.NullString
		itemID, status, result, resultStatus, metadata sql.NullString
		itemUpdated                                    sql.NullTime
	)
	// In recordColumns' order.
	if err := rows.Scan(&rec.ID, &rec.CreatedAt, &rec.UpdatedAt, &rec.UserID, &rec.TaskID, &rec.ContextID, &rec.ItemID,
		&rec.Protocol, &rec.KeyLabel, &rec.History, &finalState, &finalMessage, &artifacts,
		&itemID, &status, &itemUpdated, &result, &resultStatus, &metadata); err != nil {
		return nil, nil, err
	}
	rec.FinalState, rec.FinalMessage, rec.Artifacts = orNil(finalState), orNil(finalMessage), orNil(artifacts)
	if !itemID.Valid {
		return rec, nil, nil
	}
	it := &ent.QueueItem{ID: itemID.String, UserID: rec.UserID, Status: queueitem.Status(status.String),
		UpdatedAt: itemUpdated.Time, Result: orNil(result), Metadata: metadata.String}
	if resultStatus.Valid {
		rs := queueitem.ResultStatus(resultStatus.String)
		it.ResultStatus = &rs
	}
	return rec, it, nil
}

// recordColumns are the record's columns in the order taskWithItem scans
// them: every one of ent's (TestRecordColumnsAreEnts).
var recordColumns = []string{a2atask.FieldID, a2atask.FieldCreatedAt, a2atask.FieldUpdatedAt, a2atask.FieldUserID,
	a2atask.FieldTaskID, a2atask.FieldContextID, a2atask.FieldItemID, a2atask.FieldProtocol, a2atask.FieldKeyLabel,
	a2atask.FieldHistory, a2atask.FieldFinalState, a2atask.FieldFinalMessage, a2atask.FieldArtifacts}

func orNil(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}
