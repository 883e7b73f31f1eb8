package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// The create transaction's statements as the API issues them for
// POST /api/v2/queue {"title": …} with no card, project or references
// (server/queue: settings, kanban.EndOfColumn, the bridge's card and
// checklist row, the item, two activity entries, and the two events a live
// view hears: queue_updated and the board's card), written with database/sql
// alone: exactly the rows the create writes (TestRawCreateWritesWhatACreateWrites).
// "$n" binds by position on SQLite too, so one text serves both databases. It
// is the yardstick the API's create is reported against.
const (
	rawSettingsSQL = `SELECT queue_auto_approve, assistant_name FROM settings WHERE user_id = $1`
	rawEndOfColSQL = `SELECT COALESCE((SELECT "order" FROM cards WHERE user_id = $1 AND status = $2 ORDER BY "order" DESC LIMIT 1), -1) + 1`
	rawCardSQL     = `INSERT INTO cards (id, created_at, updated_at, title, description, status, priority, assignee, "order", labels, is_archived, user_id, project_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`
	rawRowSQL = `INSERT INTO checklist_items (id, created_at, updated_at, text, completed, "order", source_type, source_id, source_label, assignee_type, user_id, card_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	rawItemSQL = `INSERT INTO queue_items (id, created_at, updated_at, user_id, type, title, description, priority, status, source, metadata, task_origin, project_id, card_id, parent_task_id, depends_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`
	rawEntrySQL = `INSERT INTO activity_entries (id, user_id, action, category, actor, summary, card_id, is_cross_user, metadata, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
	rawEventsSQL = `INSERT INTO stream_events (user_id, payload, created_at) VALUES ($1, $2, $3), ($4, $5, $6)`
	// With locked (PostgreSQL): the card placed at the end of its column under
	// the account's column lock, and the events written under the account's
	// events lock, in the order the server's create does them.
	rawLockSQL  = `SELECT pg_advisory_xact_lock(hashtext($1))`
	rawPlaceSQL = `UPDATE cards SET "order" = COALESCE((SELECT "order" FROM cards WHERE user_id = $1 AND status = $2 AND id <> $3 ORDER BY "order" DESC LIMIT 1), -1) + 1 WHERE id = $4`
)

// rawCreate runs one create in its own transaction, as one API request does.
// locked adds the server's two per-account locks (PostgreSQL only): what keeps
// a column's orders dense and an account's event ids in commit order, which
// the plain baseline does not keep.
func rawCreate(ctx context.Context, d *sql.DB, userID, title string, locked bool) error {
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := rawCreateIn(ctx, tx, userID, title, locked); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func rawCreateIn(ctx context.Context, tx *sql.Tx, userID, title string, locked bool) error {
	now := time.Now().UTC()
	var (
		auto      bool
		assistant sql.NullString
		order     int
	)
	if err := tx.QueryRowContext(ctx, rawSettingsSQL, userID).Scan(&auto, &assistant); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if locked {
		order = -1 // placed at the end below
	} else if err := tx.QueryRowContext(ctx, rawEndOfColSQL, userID, "active").Scan(&order); err != nil {
		return fmt.Errorf("end of column: %w", err)
	}
	status := "pending_confirmation"
	if auto {
		status = "ready"
	}
	itemID, cardID := ids.New(), ids.New()
	type statement struct {
		q    string
		args []any
	}
	statements := []statement{
		{rawCardSQL, []any{cardID, now, now, title, nil, "active", "medium", "human", order, []byte("[]"), false, userID, nil}},
		{rawEntrySQL, []any{ids.New(), userID, "card_created", "board", "bench", fmt.Sprintf("Created card %q for queued task", title), cardID, false, "", now}},
		{rawRowSQL, []any{ids.New(), now, now, title, false, 0, "queue", itemID, "task_queued", "divi", userID, cardID}},
		{rawItemSQL, []any{itemID, now, now, userID, "task", title, nil, "medium", status, nil, "", "owner", nil, cardID, nil, nil}},
		{rawEntrySQL, []any{ids.New(), userID, "queue_added", "queue", "bench", fmt.Sprintf("Queued %q (%s)", title, status), cardID, false,
			`{"queueItemId":"` + itemID + `","status":"` + status + `"}`, now}},
	}
	if locked {
		statements = append(statements,
			statement{rawLockSQL, []any{"kanban-columns:" + userID}},
			statement{rawPlaceSQL, []any{userID, "active", cardID, cardID}},
			statement{rawLockSQL, []any{"events:" + userID}})
	}
	statements = append(statements,
		statement{rawEventsSQL, []any{userID, rawEvent(&switchboardv1.ChatEvent{Type: "queue_updated", Change: proto.String("created"),
			Item: &switchboardv1.QueueItemBrief{Id: itemID, Title: title, Status: status, Priority: "medium"}}), now,
			userID, rawEvent(&switchboardv1.ChatEvent{Type: "card_changed", Record: &switchboardv1.RecordChange{Id: cardID, Change: "created",
				Brief: proto.String(fmt.Sprintf("Created card %q for queued task", title))}}), now}})
	for _, s := range statements {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("%.30s: %w", s.q, err)
		}
	}
	return nil
}

// rawEvent is an event's stored form, as the bus stores it.
func rawEvent(ev *switchboardv1.ChatEvent) []byte {
	b, _ := proto.Marshal(ev)
	return b
}
