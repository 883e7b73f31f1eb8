package kanban

import (
	"context"
	"fmt"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
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

// endOfChecklistSQL reads the card's last order from the end of the
// (card_id, order) index, for the reason endOfColumnSQL does.
const endOfChecklistSQL = `SELECT COALESCE((SELECT "order" FROM checklist_items WHERE card_id = $1 ORDER BY "order" DESC LIMIT 1), -1) + 1`

// EndOfChecklist is the order an appended checklist item takes: one past the
// largest on the card (0 when empty). Hold LockChecklist first.
func EndOfChecklist(ctx context.Context, tx *db.Tx, cardID string) (int, error) {
	rows, err := tx.QueryContext(ctx, endOfChecklistSQL, cardID)
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

// AppendChecklist adds items (their texts) at the end of one of the
// caller's cards' checklist, in one unit of work with the board's own
// update: the existing items are kept by id, as they are, so their source
// fields stay; activity and events are the update's (the assistant's
// create_checklist, docs/decisions.md "The assistant (issue 16)").
func (s *Service) AppendChecklist(ctx context.Context, cardID string, texts []string) (*switchboardv1.UpdateCardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.KanbanCardDetail
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		// The update's own locks, in its order, before reading the list.
		if err := LockColumns(ctx, tx, p.UserID); err != nil {
			return err
		}
		if err := LockChecklist(ctx, tx, p.UserID, cardID); err != nil {
			return err
		}
		c, err := getCard(ctx, tx.Card, p.UserID, cardID)
		if err != nil {
			return err
		}
		var list []*switchboardv1.ChecklistItemInput
		next := int32(0)
		for _, it := range c.Edges.ChecklistItems {
			id, order := it.ID, it.Order
			list = append(list, &switchboardv1.ChecklistItemInput{Id: &id, Text: it.Text, Completed: it.Completed, Order: &order})
			next = max(next, order+1)
		}
		for i, t := range texts {
			order := next + int32(i)
			list = append(list, &switchboardv1.ChecklistItemInput{Text: t, Order: &order})
		}
		in := &switchboardv1.CardInput{Checklist: list}
		cl, err := validateInput(in, false)
		if err != nil {
			return err
		}
		out, err = s.updateCard(ctx, tx, p, cardID, in, cl)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateCardResponse{Card: out}, nil
}
