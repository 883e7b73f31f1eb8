package activity

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Query selects a page of one account's feed.
type Query struct {
	UserID     string
	CardID     string   // only this card's entries, when set
	Categories []string // any of these, when set
	Limit      int32
	Cursor     string // the id of the last entry of the previous page
}

// List answers entries newest first and the cursor of the next page ("" at the end).
func List(ctx context.Context, db *ent.Client, q Query) ([]*switchboardv1.ActivityEntry, string, error) {
	p, err := page.Parse(q.Limit, 0)
	if err != nil {
		return nil, "", err
	}
	where := []predicate.ActivityEntry{activityentry.UserID(q.UserID)}
	if q.CardID != "" {
		where = append(where, activityentry.CardID(q.CardID))
	}
	if len(q.Categories) > 0 {
		where = append(where, activityentry.CategoryIn(q.Categories...))
	}
	if q.Cursor != "" {
		after, err := db.ActivityEntry.Query().Where(activityentry.ID(q.Cursor), activityentry.UserID(q.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, "", apperr.Invalid("cursor %q is not an entry of this feed", q.Cursor)
		} else if err != nil {
			return nil, "", err
		}
		where = append(where, activityentry.Or(
			activityentry.CreatedAtLT(after.CreatedAt),
			activityentry.And(activityentry.CreatedAt(after.CreatedAt), activityentry.IDLT(after.ID)),
		))
	}
	rows, err := db.ActivityEntry.Query().Where(where...).
		Order(ent.Desc(activityentry.FieldCreatedAt), ent.Desc(activityentry.FieldID)).
		Limit(p.Limit + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(rows) > p.Limit {
		rows = rows[:p.Limit]
		next = rows[len(rows)-1].ID
	}
	out := make([]*switchboardv1.ActivityEntry, 0, len(rows))
	for _, r := range rows {
		cat := r.Category
		out = append(out, &switchboardv1.ActivityEntry{
			Id: r.ID, Action: r.Action, Actor: r.Actor, Summary: r.Summary,
			IsCrossUser: r.IsCrossUser, CreatedAt: timestamppb.New(r.CreatedAt),
			Category: &cat, CardId: r.CardID,
		})
	}
	return out, next, nil
}
