package main

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// BenchmarkCardInsert compares one card insert through ent with the same
// INSERT through the transaction's ExecContext, 100 per transaction.
func BenchmarkCardInsert(b *testing.B) {
	f := newFixture(b, 0)
	ctx := context.Background()
	for _, mode := range []string{"ent", "raw"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				tx, err := f.s.DB.Client.Tx(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for range 100 {
					if err := insertCard(ctx, tx, mode, f.userID); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func insertCard(ctx context.Context, tx *ent.Tx, mode, userID string) error {
	if mode == "ent" {
		_, err := tx.Card.Create().SetUserID(userID).SetTitle("t").SetStatus(card.StatusActive).
			SetPriority(card.PriorityMedium).SetOrder(1).Save(ctx)
		return err
	}
	now := time.Now()
	_, err := tx.ExecContext(ctx, "INSERT INTO `cards` (`created_at`, `updated_at`, `title`, `status`, `priority`, `assignee`, `order`, `labels`, `is_archived`, `user_id`, `id`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		now, now, "t", "active", "medium", "human", 1, []byte("[]"), false, userID, ids.New())
	return err
}
