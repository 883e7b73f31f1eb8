// Package kanban owns the operator's board (kanban.proto): cards, their
// checklists and contact links, auto-completion, and each card's activity feed.
// Every write and the activity it causes share one transaction.
package kanban

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// CardChanged is published in an update's unit of work when a card's status or
// priority changed, so a linked card on a peer's instance learns of it.
type CardChanged struct {
	Before, After *ent.Card
}

// Service implements KanbanService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// errNoChange ends an update transaction that would change nothing: it is
// rolled back, so a no-op PUT neither bumps updatedAt nor writes activity.
var errNoChange = errors.New("kanban: nothing changed")

// LockColumns serialises writers that place cards at the end of a column
// (EndOfColumn), so two concurrent creates or moves, the board's or the queue
// bridge's, do not take the same position (PostgreSQL; SQLite write
// transactions already queue). Take it before reading the end.
func LockColumns(ctx context.Context, tx *db.Tx, userID string) error {
	if err := tx.Serialize(ctx, "kanban-columns:"+userID); err != nil {
		return fmt.Errorf("kanban: lock columns: %w", err)
	}
	return nil
}

// withEdges loads what both renderings need, in one query per edge for the
// whole page: checklists in their order, contact links with their contact.
func withEdges(q *ent.CardQuery) *ent.CardQuery {
	return q.WithChecklistItems(func(q *ent.ChecklistItemQuery) {
		q.Order(ent.Asc(checklistitem.FieldOrder), ent.Asc(checklistitem.FieldCreatedAt), ent.Asc(checklistitem.FieldID))
	}).WithCardContacts(func(q *ent.CardContactQuery) {
		q.WithContact().Order(ent.Asc(cardcontact.FieldCreatedAt), ent.Asc(cardcontact.FieldID))
	})
}

// MaxProjectCards bounds the cards a project's detail carries.
const MaxProjectCards = 500

// ProjectCards renders the board cards of every owner filed under a project,
// most recently updated first, as the list shows them (a project's detail;
// the caller has checked who may read it).
func ProjectCards(ctx context.Context, c *ent.Client, projectID string) ([]*switchboardv1.KanbanCard, error) {
	rows, err := withEdges(c.Card.Query().Where(card.ProjectID(projectID), card.IsArchived(false))).
		Order(ent.Desc(card.FieldUpdatedAt), ent.Desc(card.FieldID)).Limit(MaxProjectCards).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.KanbanCard, 0, len(rows))
	for _, r := range rows {
		out = append(out, toCard(r))
	}
	return out, markAwaiting(ctx, c.QueueItem, out)
}

// getCard loads one of the account's cards with its edges; any other id is 404.
func getCard(ctx context.Context, cards *ent.CardClient, userID, id string) (*ent.Card, error) {
	c, err := withEdges(cards.Query().Where(card.ID(id), card.UserID(userID))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("card %q not found", id)
	} else if err != nil {
		return nil, err
	}
	return c, nil
}

// byColumn orders cards by their status's column on the board (leads first,
// completed last), not alphabetically. The statuses are constants, not input.
func byColumn(s *entsql.Selector) {
	var b strings.Builder
	b.WriteString("CASE " + s.C(card.FieldStatus))
	for i, st := range Statuses {
		fmt.Fprintf(&b, " WHEN '%s' THEN %d", st, i)
	}
	b.WriteString(" END")
	s.OrderExpr(entsql.Expr(b.String()))
}

// endOfColumnSQL reads the column's last order from the end of the
// (user_id, status, order) index. Not MAX("order"): before a table's first
// ANALYZE, PostgreSQL takes the account's cards for one and aggregates all
// of them (10 ms at 20,000 cards) instead of reading the one.
const endOfColumnSQL = `SELECT COALESCE((SELECT "order" FROM cards WHERE user_id = $1 AND status = $2 ORDER BY "order" DESC LIMIT 1), -1) + 1`

// EndOfColumn is the order a card takes when it joins a column: one past the
// largest order among the account's cards with that status (0 in an empty
// column). The queue bridge uses it for the cards it creates. Hold
// LockColumns first.
func EndOfColumn(ctx context.Context, tx *db.Tx, userID, status string) (int, error) {
	// Plain SQL: every queue create runs this on SQLite's single writer, and
	// ent's query builder cost more than the index look-up (bench/RESULTS.md).
	rows, err := tx.QueryContext(ctx, endOfColumnSQL, userID, status)
	if err != nil {
		return 0, fmt.Errorf("kanban: end of column %s: %w", status, err)
	}
	defer rows.Close()
	var next int
	if !rows.Next() {
		return 0, fmt.Errorf("kanban: end of column %s: no row", status)
	}
	if err := rows.Scan(&next); err != nil {
		return 0, fmt.Errorf("kanban: end of column %s: %w", status, err)
	}
	return next, rows.Close()
}

// placeAtEndSQL moves a card the unit of work inserted to one past the
// largest order among the account's other cards of its column.
const placeAtEndSQL = `UPDATE cards SET "order" = COALESCE((SELECT "order" FROM cards WHERE user_id = $1 AND status = $2 AND id <> $3 ORDER BY "order" DESC LIMIT 1), -1) + 1 WHERE id = $4`

// NewCardOrder is the order to insert cardID, a new card of userID's in
// column status, with so that it ends at the end of the column. On SQLite,
// whose writers queue, that is EndOfColumn now. On PostgreSQL, the column's
// lock taken now would make the account's concurrent creates wait for each
// other through all of their statements and commit, so it answers a stand-in
// (-1) and moves the card to the end when the unit of work ends (db.Tx.AtEnd),
// under the lock, in the unit's last statement (db.Tx.Last: with its events
// when it has them): then the lock is held only through the events'
// statement and the commit. The card must be inserted in this unit of work.
func NewCardOrder(ctx context.Context, tx *db.Tx, userID, status, cardID string) (int, error) {
	if !tx.Postgres() {
		return EndOfColumn(ctx, tx, userID, status)
	}
	tx.AtEnd(func(ctx context.Context) error {
		if err := LockColumns(ctx, tx, userID); err != nil {
			return err
		}
		// The place is read by a statement that begins after the lock is
		// held; as the unit's last, it may ride with its events.
		tx.Last(db.Statement{SQL: placeAtEndSQL, Args: []any{userID, status, cardID, cardID}})
		return nil
	})
	return -1, nil
}

// ListCards pages the board with checklists and four-field contacts.
func (s *Service) ListCards(ctx context.Context, req *switchboardv1.ListCardsRequest) (*switchboardv1.ListCardsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	where, err := listFilters(p.UserID, req)
	if err != nil {
		return nil, err
	}
	total, err := s.DB.Card.Query().Where(where...).Aggregate(ent.Count()).Int(ctx) // COUNT(*): index only
	if err != nil {
		return nil, err
	}
	rows, err := withEdges(s.DB.Card.Query().Where(where...)).
		Order(byColumn, ent.Asc(card.FieldOrder), ent.Asc(card.FieldCreatedAt), ent.Asc(card.FieldID)).
		Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListCardsResponse{Cards: make([]*switchboardv1.KanbanCard, 0, len(rows)), Pagination: pg.Of(total, len(rows))}
	for _, c := range rows {
		out.Cards = append(out.Cards, toCard(c))
	}
	if err := markAwaiting(ctx, s.DB.QueueItem, out.Cards); err != nil {
		return nil, err
	}
	return out, nil
}

func listFilters(userID string, req *switchboardv1.ListCardsRequest) ([]predicate.Card, error) {
	f := &page.Filters[predicate.Card]{Where: []predicate.Card{card.UserID(userID)}}
	page.OneOf(f, "status", req.GetStatus(), Statuses, card.StatusEQ)
	page.OneOf(f, "priority", req.GetPriority(), Priorities, card.PriorityEQ)
	page.OneOf(f, "assignee", req.GetAssignee(), Assignees, card.AssigneeEQ)
	if f.Err != nil {
		return nil, f.Err
	}
	if q := strings.TrimSpace(req.GetSearch()); q != "" {
		f.Where = append(f.Where, card.Or(card.TitleContainsFold(q), card.DescriptionContainsFold(q)))
	}
	return f.Where, nil
}

// GetCard answers one card with seven-field contacts.
func (s *Service) GetCard(ctx context.Context, req *switchboardv1.GetCardRequest) (*switchboardv1.GetCardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c, err := getCard(ctx, s.DB.Card, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	d, err := toCardDetail(c)
	if err != nil {
		return nil, err
	}
	if err := markAwaitingDetail(ctx, s.DB.QueueItem, d); err != nil {
		return nil, err
	}
	return &switchboardv1.GetCardResponse{Card: d}, nil
}

// CreateCard adds a card at the end of its column.
func (s *Service) CreateCard(ctx context.Context, req *switchboardv1.CreateCardRequest) (*switchboardv1.CreateCardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	in := req.GetCard()
	if in == nil {
		in = &switchboardv1.CardInput{}
	}
	if _, err := validateInput(in, true); err != nil {
		return nil, err
	}
	var out *switchboardv1.KanbanCardDetail
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := LockColumns(ctx, tx, p.UserID); err != nil {
			return err
		}
		contacts, err := ownContacts(ctx, tx, p.UserID, in.GetContacts())
		if err != nil {
			return err
		}
		if err := checkParent(ctx, tx, p.UserID, "", in); err != nil {
			return err
		}
		if err := checkProject(ctx, tx, p.UserID, in, nil); err != nil {
			return err
		}
		now := s.now()
		create := tx.Card.Create().SetUserID(p.UserID).SetCreatedAt(now).SetUpdatedAt(now).SetLastActivityAt(now)
		if err := applyInput(create.Mutation(), in, nil); err != nil {
			return err
		}
		w := provenance.Of(ctx)
		provenance.SetCreated[card.CreatedBy, card.TextBy](create.Mutation(), w)
		status := string(card.DefaultStatus)
		if in.Status != nil {
			status = in.GetStatus()
		}
		if in.Order == nil {
			order, err := EndOfColumn(ctx, tx, p.UserID, status)
			if err != nil {
				return err
			}
			create.SetOrder(order)
		}
		c, err := create.Save(ctx)
		if err != nil {
			return fmt.Errorf("kanban: create card: %w", err)
		}
		if _, err := replaceChecklist(ctx, tx, c, nil, in.GetChecklist(), w, now); err != nil {
			return err
		}
		if _, err := replaceContacts(ctx, tx, c, nil, in.GetContacts(), contacts, now); err != nil {
			return err
		}
		if err := activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "card_created", Actor: p.Actor(), CardID: c.ID, At: now,
			Summary: fmt.Sprintf("Created %q in %s", c.Title, c.Status),
		}); err != nil {
			return err
		}
		out, err = reloadDetail(ctx, tx, p.UserID, c.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateCardResponse{Card: out}, nil
}

func reloadDetail(ctx context.Context, tx *db.Tx, userID, id string) (*switchboardv1.KanbanCardDetail, error) {
	c, err := getCard(ctx, tx.Card, userID, id)
	if err != nil {
		return nil, err
	}
	d, err := toCardDetail(c)
	if err != nil {
		return nil, err
	}
	return d, markAwaitingDetail(ctx, tx.QueueItem, d)
}

// UpdateCard changes the supplied fields and clears those named in
// clearFields. A supplied checklist or contacts list replaces the card's; a
// status change moves the card to the end of its new column unless an order is
// supplied too.
func (s *Service) UpdateCard(ctx context.Context, req *switchboardv1.UpdateCardRequest) (*switchboardv1.UpdateCardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	in := req.GetCard()
	if in == nil {
		in = &switchboardv1.CardInput{}
	}
	cl, err := validateInput(in, false)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.KanbanCardDetail
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		out, err = s.updateCard(ctx, tx, p, req.GetId(), in, cl)
		if isNotFound(err) {
			// Another member's card in a project the caller leads.
			owner, lerr := leadOf(ctx, tx, p, req.GetId())
			if lerr != nil {
				return lerr
			}
			out, err = s.updateCard(ctx, tx, asOwner(p, owner), req.GetId(), in, cl)
		}
		if err != nil && !errors.Is(err, errNoChange) {
			return err
		}
		if merr := markAwaitingDetail(ctx, tx.QueueItem, out); merr != nil {
			return merr
		}
		return err
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateCardResponse{Card: out}, nil
}

// DeleteCard removes a card with its checklist and contact links, and answers
// the card as it was.
func (s *Service) DeleteCard(ctx context.Context, req *switchboardv1.DeleteCardRequest) (*switchboardv1.DeleteCardResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.KanbanCardDetail
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		c, err := getCard(ctx, tx.Card, p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if out, err = toCardDetail(c); err != nil {
			return err
		}
		if err := markAwaitingDetail(ctx, tx.QueueItem, out); err != nil {
			return err
		}
		// Written first, while the card still exists, so that it mirrors to
		// linked cards of other accounts.
		if err := activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "card_deleted", Actor: p.Actor(), CardID: c.ID, At: s.now(),
			Summary: fmt.Sprintf("Deleted %q", c.Title),
		}); err != nil {
			return err
		}
		if _, err := tx.ChecklistItem.Delete().Where(checklistitem.CardID(c.ID)).Exec(ctx); err != nil {
			return fmt.Errorf("kanban: delete checklist: %w", err)
		}
		if _, err := tx.CardContact.Delete().Where(cardcontact.CardID(c.ID)).Exec(ctx); err != nil {
			return fmt.Errorf("kanban: delete contact links: %w", err)
		}
		if err := tx.Card.DeleteOneID(c.ID).Exec(ctx); err != nil {
			return fmt.Errorf("kanban: delete card: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteCardResponse{Card: out}, nil
}

// ListCardActivity pages a card's activity, newest first. A deleted card's
// history stays readable by its owner; an id the account never had is 404.
func (s *Service) ListCardActivity(ctx context.Context, req *switchboardv1.ListCardActivityRequest) (*switchboardv1.ListCardActivityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	id := req.GetId()
	known, err := s.DB.Card.Query().Where(card.ID(id), card.UserID(p.UserID)).Exist(ctx)
	if err == nil && !known {
		known, err = s.DB.ActivityEntry.Query().Where(activityentry.UserID(p.UserID), activityentry.CardID(id)).Exist(ctx)
	}
	if err != nil {
		return nil, err
	}
	if !known {
		return nil, apperr.NotFound("card %q not found", id)
	}
	entries, next, err := activity.List(ctx, s.DB.Client, activity.Query{
		UserID: p.UserID, CardID: id, Limit: req.GetLimit(), Cursor: req.GetCursor(),
	})
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.ListCardActivityResponse{Success: true, Data: entries}
	if next != "" {
		res.NextCursor = &next
	}
	return res, nil
}
