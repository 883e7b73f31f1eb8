package kanban

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardlink"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// ChangeLogLimit is how many entries a card's change log keeps (at most 20,
// docs/decisions.md "The operator network: reputation, shared reads and
// card links (issue 15)"), the oldest dropped.
const ChangeLogLimit = 20

// AppendChange adds e to c's change log in tx, keeping the last
// ChangeLogLimit entries, and answers how many it keeps. Two writers at
// once each append: the log is read under a lock on the card. The row is
// written straight, not through the board's update (whose hook would send
// a linked card's change on).
func AppendChange(ctx context.Context, tx *db.Tx, cardID string, load func(ctx context.Context) (*ent.Card, error), e *switchboardv1.CardChange) (int, error) {
	if err := tx.Serialize(ctx, "card-change-log:"+cardID); err != nil {
		return 0, err
	}
	c, err := load(ctx)
	if err != nil {
		return 0, err
	}
	entries := append(ChangeLog(c), e)
	if len(entries) > ChangeLogLimit {
		entries = entries[len(entries)-ChangeLogLimit:]
	}
	raw := make([]json.RawMessage, len(entries))
	for i, x := range entries {
		if raw[i], err = protojson.Marshal(x); err != nil {
			return 0, err
		}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return 0, err
	}
	if err := tx.Card.UpdateOne(c).SetChangeLog(string(b)).Exec(ctx); err != nil {
		return 0, err
	}
	return len(entries), tx.Publish(ctx, LinkedCardHeard{UserID: c.UserID, CardID: c.ID, At: e.GetReceivedAt().AsTime()})
}

// LinkedCardHeard is published when a linked card's change log takes a
// change its peer reported: the change is silent (no relay, no comms
// message) until the linked-card digest tells of it.
type LinkedCardHeard struct {
	UserID, CardID string
	At             time.Time
}

func toLink(l *ent.CardLink) *switchboardv1.CardLink {
	return &switchboardv1.CardLink{Id: l.ID, FromCardId: l.FromCardID, ToCardId: l.ToCardID, LinkType: string(l.LinkType),
		CreatedAt: ts(l.CreatedAt)}
}

// own makes sure id is one of userID's cards: any other is 404.
func own(ctx context.Context, tx *db.Tx, userID, id string) (*ent.Card, error) {
	c, err := tx.Card.Query().Where(card.ID(id), card.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("card %q not found", id)
	}
	return c, err
}

// LinkCards links two of the caller's cards (card_links.proto): one link
// per pair, whichever way; the same link again answers the existing one.
// Both cards' activity records it.
func (s *Service) LinkCards(ctx context.Context, req *switchboardv1.LinkCardsRequest) (*switchboardv1.LinkCardsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	from, to := strings.TrimSpace(req.GetCardId()), strings.TrimSpace(req.GetToCardId())
	if from == "" || to == "" {
		return nil, apperr.Invalid("cardId and toCardId are required")
	}
	if err := apperr.OneOf("linkType", req.GetLinkType(), LinkTypes); err != nil {
		return nil, err
	}
	var out *ent.CardLink
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		a, err := own(ctx, tx, p.UserID, from)
		if err != nil {
			return err
		}
		b, err := own(ctx, tx, p.UserID, to)
		if err != nil {
			return err
		}
		// After both are found: another account's card is 404 whatever else.
		if from == to {
			return apperr.Invalid("a card cannot be linked to itself")
		}
		if err := tx.Serialize(ctx, "card-links:"+p.UserID); err != nil {
			return err
		}
		old, err := tx.CardLink.Query().Where(cardlink.UserID(p.UserID), cardlink.Or(
			cardlink.And(cardlink.FromCardID(from), cardlink.ToCardID(to)),
			cardlink.And(cardlink.FromCardID(to), cardlink.ToCardID(from)))).First(ctx)
		if err == nil {
			if old.FromCardID == from && string(old.LinkType) == req.GetLinkType() {
				out = old
				return nil
			}
			return &apperr.Error{Kind: apperr.KindConflict, Message: fmt.Sprintf("the cards are already linked (%s)", old.LinkType)}
		}
		if !ent.IsNotFound(err) {
			return err
		}
		now := s.now()
		if out, err = tx.CardLink.Create().SetUserID(p.UserID).SetFromCardID(from).SetToCardID(to).
			SetLinkType(cardlink.LinkType(req.GetLinkType())).SetCreatedAt(now).Save(ctx); err != nil {
			return err
		}
		for _, c := range []*ent.Card{a, b} {
			other := b
			if c == b {
				other = a
			}
			if err := (cardLog{tx: tx, p: p, card: c, now: now}).write(ctx, "card_updated",
				fmt.Sprintf("Linked %q to %q (%s)", c.Title, other.Title, req.GetLinkType()),
				map[string]any{"fields": []string{"links"}, "linkId": out.ID, "linkedCardId": other.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.LinkCardsResponse{Link: toLink(out)}, nil
}

// ListCardLinks answers a card's links, both ways, oldest first.
func (s *Service) ListCardLinks(ctx context.Context, req *switchboardv1.ListCardLinksRequest) (*switchboardv1.ListCardLinksResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := getCard(ctx, s.DB.Card, p.UserID, req.GetCardId()); err != nil {
		return nil, err
	}
	rows, err := s.DB.CardLink.Query().Where(cardlink.UserID(p.UserID),
		cardlink.Or(cardlink.FromCardID(req.GetCardId()), cardlink.ToCardID(req.GetCardId()))).
		Order(ent.Asc(cardlink.FieldCreatedAt), ent.Asc(cardlink.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.CardLink, len(rows))
	for i, r := range rows {
		out[i] = toLink(r)
	}
	return &switchboardv1.ListCardLinksResponse{Links: out}, nil
}

// UnlinkCards removes one of a card's links.
func (s *Service) UnlinkCards(ctx context.Context, req *switchboardv1.UnlinkCardsRequest) (*switchboardv1.UnlinkCardsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var gone *ent.CardLink
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		gone, err = tx.CardLink.Query().Where(cardlink.ID(req.GetId()), cardlink.UserID(p.UserID),
			cardlink.Or(cardlink.FromCardID(req.GetCardId()), cardlink.ToCardID(req.GetCardId()))).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("card %q has no link %q", req.GetCardId(), req.GetId())
		}
		if err != nil {
			return err
		}
		return tx.CardLink.DeleteOne(gone).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UnlinkCardsResponse{Link: toLink(gone)}, nil
}

// tellLinked adds a card's status or priority change to the change log of
// every card linked to it (card_links.proto), in the update's transaction:
// the same entry a peer's change of a card linked across instances makes,
// from "local".
func tellLinked(ctx context.Context, tx *db.Tx, before, after *ent.Card, now time.Time) error {
	links, err := tx.CardLink.Query().Where(cardlink.UserID(after.UserID),
		cardlink.Or(cardlink.FromCardID(after.ID), cardlink.ToCardID(after.ID))).All(ctx)
	if err != nil || len(links) == 0 {
		return err
	}
	words := "priority " + string(before.Priority) + " → " + string(after.Priority)
	if before.Status != after.Status {
		words = "status " + string(before.Status) + " → " + string(after.Status)
		if before.Priority != after.Priority {
			words += ", priority " + string(before.Priority) + " → " + string(after.Priority)
		}
	}
	for _, l := range links {
		other := l.ToCardID
		if other == after.ID {
			other = l.FromCardID
		}
		e := &switchboardv1.CardChange{ExternalCardId: after.ID, NewStatus: string(after.Status), NewPriority: string(after.Priority),
			ChangeLog: after.Title + " (" + string(l.LinkType) + "): " + words, From: LocalChange,
			ReceivedAt: timestamppb.New(now.Truncate(time.Microsecond))}
		if _, err := AppendChange(ctx, tx, other, func(ctx context.Context) (*ent.Card, error) {
			return tx.Card.Get(ctx, other)
		}, e); err != nil {
			return err
		}
	}
	return nil
}

// LinkTypes are the kinds of card link (vocabulary card_link_type).
var LinkTypes = vocab.Values("card_link_type")

// LocalChange is the from of a change-log entry that one of the account's
// own linked cards made.
const LocalChange = "local"
