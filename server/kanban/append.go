package kanban

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/internal/db"
)

// LockChecklist holds the card's row until the transaction ends, so that
// writers of its checklist take turns: an append reads the end and inserts
// there, and two appends that read the same end would share an order. On
// PostgreSQL the row lock makes the next writer's reads see what the previous
// one committed; SQLite's write transactions take turns already. The update
// changes nothing.
func LockChecklist(ctx context.Context, tx *db.Tx, userID, cardID string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE cards SET "order" = "order" WHERE id = $1 AND user_id = $2`, cardID, userID); err != nil {
		return fmt.Errorf("kanban: lock checklist of %s: %w", cardID, err)
	}
	return nil
}

// EndOfChecklist is the order an appended checklist item takes: one past the
// largest on the card (0 when empty). Hold LockChecklist first.
func EndOfChecklist(ctx context.Context, tx *db.Tx, cardID string) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT COALESCE(MAX("order"), -1) + 1 FROM checklist_items WHERE card_id = $1`, cardID)
	if err != nil {
		return 0, fmt.Errorf("kanban: end of checklist: %w", err)
	}
	defer rows.Close()
	var next int
	if !rows.Next() {
		return 0, fmt.Errorf("kanban: end of checklist: no row")
	}
	if err := rows.Scan(&next); err != nil {
		return 0, fmt.Errorf("kanban: end of checklist: %w", err)
	}
	return next, rows.Close()
}
