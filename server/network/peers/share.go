package peers

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// RateRelay takes the calling connection's rating of a relay it sent here
// that this side completed (RULINGS "The operator network": Cross-instance
// reads, Writes): once per relay, a second is 409; a relay not completed is
// an illegal move; another connection's relay is 404. The rated user's
// network reputation is the mean of the ratings on the relays they
// completed (docs/decisions.md "The operator network: reputation, shared
// reads and card links (issue 15)").
func (s *Service) RateRelay(ctx context.Context, req *switchboardv1.RateRelayRequest) (*switchboardv1.RateRelayResponse, error) {
	c, err := s.core.FromActivePeer(ctx, "reputation", nil)
	if err != nil {
		return nil, err
	}
	var userID string
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		r, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionInbound),
			relay.RelayID(req.GetRelayId())).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("no relay %q was received on this connection", req.GetRelayId())
		}
		if err != nil {
			return err
		}
		if r.State != relay.StateCompleted {
			return apperr.IllegalMove("relay %q is %s: only a completed relay is rated", req.GetRelayId(), r.State)
		}
		// The update's own predicate makes the once a database fact: of two
		// concurrent ratings one changes the row, the other nothing.
		n, err := tx.Relay.Update().Where(relay.ID(r.ID), relay.RatingIsNil()).SetRating(int(req.GetRating())).
			SetRatingFeedback(req.GetFeedback()).SetRatedAt(s.core.NowUTC().Truncate(time.Microsecond)).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflict("relay %q is already rated", req.GetRelayId())
		}
		userID = r.UserID
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep, err := s.NetworkReputation(ctx, userID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RateRelayResponse{RelayId: req.GetRelayId(), Rating: req.GetRating(), Reputation: rep}, nil
}

// NetworkReputation is a user's standing with the network: the mean of the
// ratings peers gave on the relays they completed. It is its own figure,
// apart from the task economy's UserReputation (docs/decisions.md).
func (s *Service) NetworkReputation(ctx context.Context, userID string) (*switchboardv1.NetworkReputation, error) {
	rows, err := s.core.DB.Relay.Query().Where(relay.UserID(userID), relay.DirectionEQ(relay.DirectionInbound), relay.RatingNotNil()).
		Select(relay.FieldRating).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.NetworkReputation{Count: int32(len(rows))}
	if len(rows) == 0 {
		return out, nil
	}
	sum := 0
	for _, r := range rows {
		sum += *r.Rating
	}
	out.Average = float64(sum) / float64(len(rows))
	return out, nil
}

// SearchSharedEntities answers what is shared with the calling connection
// (RULINGS "The operator network": Cross-instance reads): the local user's
// profile, the cards linked to that connection (sent as or created from its
// relays) and the relay threads with it, each when q is empty or appears
// (any case) in its name, title or subject.
func (s *Service) SearchSharedEntities(ctx context.Context, req *switchboardv1.SearchSharedEntitiesRequest) (*switchboardv1.SearchSharedEntitiesResponse, error) {
	c, err := s.core.FromActivePeer(ctx, "entity-search", nil)
	if err != nil {
		return nil, err
	}
	all, err := s.shared(ctx, c)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(req.GetQ()))
	out := &switchboardv1.SearchSharedEntitiesResponse{Results: []*switchboardv1.SharedEntity{}}
	for _, e := range all {
		if q == "" || strings.Contains(strings.ToLower(e.GetTitle()), q) {
			out.Results = append(out.Results, e)
		}
	}
	return out, nil
}

// shared lists everything the connection may see, profile first, then
// cards and threads by title.
func (s *Service) shared(ctx context.Context, c *ent.NetworkConnection) ([]*switchboardv1.SharedEntity, error) {
	var out []*switchboardv1.SharedEntity
	u, err := s.core.DB.User.Get(ctx, c.UserID)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if u != nil {
		out = append(out, &switchboardv1.SharedEntity{Kind: "profile", Id: u.ID, Title: u.Name})
	}
	cards, err := s.linkedCards(ctx, c)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cards, func(a, b *ent.Card) int { return cmp.Or(cmp.Compare(a.Title, b.Title), cmp.Compare(a.ID, b.ID)) })
	for _, k := range cards {
		out = append(out, &switchboardv1.SharedEntity{Kind: "card", Id: k.ID, Title: k.Title, Status: string(k.Status)})
	}
	threads, err := s.threadsWith(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, t := range threads {
		out = append(out, &switchboardv1.SharedEntity{Kind: "thread", Id: t.ID, Title: t.Subject, Status: t.State})
	}
	return out, nil
}

// linkedCards are the local user's cards linked to the connection: those
// sent as its relays (an outbound relay's cardId) and those its request
// relays became (the queue-to-board bridge: the item's card).
func (s *Service) linkedCards(ctx context.Context, c *ent.NetworkConnection) ([]*ent.Card, error) {
	rows, err := s.core.DB.Relay.Query().Where(relay.ConnectionID(c.ID)).All(ctx)
	if err != nil {
		return nil, err
	}
	var cardIDs, itemIDs []string
	for _, r := range rows {
		switch {
		case r.Direction == relay.DirectionOutbound && r.CardID != nil:
			cardIDs = append(cardIDs, *r.CardID)
		case r.Direction == relay.DirectionInbound && r.ItemID != nil:
			itemIDs = append(itemIDs, *r.ItemID)
		}
	}
	if len(itemIDs) > 0 {
		items, err := s.core.DB.QueueItem.Query().Where(queueitem.IDIn(itemIDs...), queueitem.CardIDNotNil()).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			cardIDs = append(cardIDs, *it.CardID)
		}
	}
	if len(cardIDs) == 0 {
		return nil, nil
	}
	cards, err := s.core.DB.Card.Query().Where(card.IDIn(cardIDs...), card.UserID(c.UserID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return cards, nil
}

// thread is one relay thread with a connection: its id (the thread id, or
// the first relay's when it has none), its first subject, its latest state
// and how many relays it holds.
type thread struct {
	ID, Subject, State string
	Relays             int
	Last               time.Time
}

// threadsWith are the relay threads on the connection, by subject.
func (s *Service) threadsWith(ctx context.Context, c *ent.NetworkConnection) ([]*thread, error) {
	rows, err := s.core.DB.Relay.Query().Where(relay.ConnectionID(c.ID)).Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*thread{}
	var out []*thread
	for _, r := range rows {
		id := r.RelayID
		if r.ThreadID != nil && *r.ThreadID != "" {
			id = *r.ThreadID
		}
		t, ok := byID[id]
		if !ok {
			t = &thread{ID: id, Subject: r.Subject}
			byID[id] = t
			out = append(out, t)
		}
		t.State, t.Last = string(r.State), r.CreatedAt
		t.Relays++
	}
	slices.SortStableFunc(out, func(a, b *thread) int { return cmp.Compare(a.Subject, b.Subject) })
	return out, nil
}
