package kanban

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// awaitingApproval counts, per card, the queue items linked to it that wait
// for the operator's approval, in one query for a page of cards. A card the
// queue bridge made for an item still waiting sits in the active column (the
// link order's step 4), so the board needs this to show it as waiting rather
// than as work under way.
func awaitingApproval(ctx context.Context, items *ent.QueueItemClient, cardIDs []string) (map[string]int32, error) {
	if len(cardIDs) == 0 {
		return nil, nil
	}
	var rows []struct {
		CardID string `json:"card_id"`
		Count  int32  `json:"count"`
	}
	err := items.Query().
		Where(queueitem.CardIDIn(cardIDs...), queueitem.StatusEQ(queueitem.Status(vocab.QueueStatusPendingConfirmation))).
		GroupBy(queueitem.FieldCardID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("kanban: items awaiting approval: %w", err)
	}
	out := make(map[string]int32, len(rows))
	for _, r := range rows {
		out[r.CardID] = r.Count
	}
	return out, nil
}

// markAwaiting sets itemsAwaitingApproval on rendered cards.
func markAwaiting(ctx context.Context, items *ent.QueueItemClient, cards []*switchboardv1.KanbanCard) error {
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.GetId()
	}
	n, err := awaitingApproval(ctx, items, ids)
	if err != nil {
		return err
	}
	for _, c := range cards {
		c.ItemsAwaitingApproval = n[c.GetId()]
	}
	return nil
}

// markAwaitingDetail sets itemsAwaitingApproval on one card's detail.
func markAwaitingDetail(ctx context.Context, items *ent.QueueItemClient, d *switchboardv1.KanbanCardDetail) error {
	if d == nil {
		return nil
	}
	n, err := awaitingApproval(ctx, items, []string{d.GetId()})
	if err != nil {
		return err
	}
	d.ItemsAwaitingApproval = n[d.GetId()]
	return nil
}
