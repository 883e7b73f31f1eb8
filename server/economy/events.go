package economy

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractamendment"
	"github.com/switchboard-hq/switchboard/ent/contractentry"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/groups"
	"github.com/switchboard-hq/switchboard/server/network"
)

// What the economy hears (server/subscriptions.go): the relays that carry
// offers, and the queue items of the side that must act.

// RelayTaken makes the provider's side of an engagement offered over the
// network: the contract (offered, linked to the client's by
// originContractId) and its project mirror, with the relay's item as the
// offer the provider approves or rejects.
func (s *Core) RelayTaken(ctx context.Context, tx *db.Tx, ev network.RelayTaken) error {
	var payload map[string]any
	if json.Unmarshal([]byte(ev.Relay.Payload), &payload) != nil {
		return nil
	}
	if kind, _ := payload["kind"].(string); kind != PayloadEngagement {
		return nil
	}
	text := func(k string) string { v, _ := payload[k].(string); return strings.TrimSpace(v) }
	origin := text("contractId")
	price, _ := payload["priceCents"].(float64)
	title := runes.Prefix(text("title"), 200)
	if origin == "" || price <= 0 || title == "" {
		return nil
	}
	currency := strings.ToUpper(text("currency"))
	if !currencyCode.MatchString(currency) {
		currency = DefaultCurrency
	}
	var scope []string
	if items, ok := payload["scope"].([]any); ok {
		for _, v := range items {
			if str, ok := v.(string); ok && strings.TrimSpace(str) != "" && len(scope) < 50 {
				scope = append(scope, runes.Prefix(strings.TrimSpace(str), 2000))
			}
		}
	}
	c := ev.Connection
	projectID, err := s.Projects.OpenEngagement(ctx, tx, groups.Engagement{Name: title, ClientConnectionID: c.ID,
		ProviderUserID: ev.Relay.UserID, OriginConnectionID: c.ID, OriginID: text("projectId")})
	if err != nil {
		return err
	}
	now := s.now()
	p := money.Cents(price)
	create := tx.Contract.Create().SetProviderUserID(ev.Relay.UserID).SetConnectionID(c.ID).SetPartyName(peerName(c)).
		SetPartyInstanceURL(c.PeerInstanceURL).SetOriginContractID(origin).SetProjectID(projectID).
		SetTaskType(runes.Prefix(text("taskType"), 100)).SetTitle(title).SetScope(scope).SetPriceCents(p).SetFeeCents(rules.Fee(p)).
		SetCurrency(currency).SetRelayID(ev.Relay.ID).SetItemID(ev.Item.ID).SetCreatedAt(now).SetUpdatedAt(now)
	if due, err := time.Parse(time.RFC3339, text("dueAt")); err == nil {
		create.SetDueAt(due.UTC())
	}
	row, err := create.Save(ctx)
	if err != nil {
		return err
	}
	return activity.Write(ctx, tx, activity.Entry{UserID: ev.Relay.UserID, Action: "contract_offered", Actor: peerName(c), At: now,
		Summary:  "Offered " + strconv.Quote(title) + " for " + cents(p, currency) + " over the network",
		Metadata: map[string]any{"contractId": row.ID, "role": rules.Provider, "connectionId": c.ID}})
}

// RelayAcked answers the client's side of an offer sent over the network:
// the relay's accepted ack activates it, declined declines it; a late or
// repeated ack changes nothing.
func (s *Core) RelayAcked(ctx context.Context, tx *db.Tx, r *ent.Relay, state string) error {
	var move string
	switch state {
	case string(vocab.RelayStateAccepted):
		move = rules.Accept
	case string(vocab.RelayStateDeclined):
		move = rules.Decline
	default:
		return nil
	}
	c, err := tx.Contract.Query().Where(contract.RelayID(r.ID), contract.ClientUserIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if c.Status != contract.StatusOffered {
		return nil
	}
	_, err = s.Apply(ctx, tx, c, Move{Kind: move, By: rules.Provider, Actor: c.PartyName, PeerMoveID: "relay:" + state, FromItem: true})
	return err
}

// ItemMoved reads a contract's items: the provider approving the offer
// accepts it, approving an amendment accepts it, and a question's item
// done with a result answers it.
func (s *Core) ItemMoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) error {
	if from == string(vocab.QueueStatusPendingConfirmation) && string(it.Status) != string(vocab.QueueStatusPendingConfirmation) {
		c, err := tx.Contract.Query().Where(contract.ItemID(it.ID), contract.ProviderUserID(it.UserID)).Only(ctx)
		if err == nil && c.Status == contract.StatusOffered {
			_, err = s.Apply(ctx, tx, c, Move{Kind: rules.Accept, By: rules.Provider, Actor: actorOf(ctx, tx, it.UserID), FromItem: true})
			return err
		} else if err != nil && !ent.IsNotFound(err) {
			return err
		}
	}
	e, err := tx.ContractEntry.Query().Where(contractentry.ItemID(it.ID)).WithContract().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	c := e.Edges.Contract
	side := SideOf(c, it.UserID)
	switch {
	case e.Kind == contractentry.KindScope && from == string(vocab.QueueStatusPendingConfirmation) && side == rules.Provider:
		n, _ := strconv.Atoi(deref(e.Ref))
		return s.answerScope(ctx, tx, c, n, true, it.UserID)
	case e.Kind == contractentry.KindQuestion && string(it.Status) == string(vocab.QueueStatusDoneToday) && side != "":
		answer := strings.TrimSpace(deref(it.Result))
		if answer == "" {
			answer = "(answered without a result)"
		}
		ref := e.ID
		if e.Ref != nil { // a question the other instance asked: its id there
			ref = *e.Ref
		}
		_, err := s.Apply(ctx, tx, c, Move{Kind: rules.Answer, By: side, Actor: actorOf(ctx, tx, it.UserID),
			Text: runes.Prefix(answer, 10000), Ref: ref})
		return ignoreState(err)
	}
	return nil
}

// ItemRemoved reads a contract's items removed: the offer rejected or
// deleted declines it, an amendment's declines the amendment.
func (s *Core) ItemRemoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
	c, err := tx.Contract.Query().Where(contract.ItemID(it.ID), contract.ProviderUserID(it.UserID)).Only(ctx)
	if err == nil && c.Status == contract.StatusOffered {
		_, err = s.Apply(ctx, tx, c, Move{Kind: rules.Decline, By: rules.Provider, Actor: actorOf(ctx, tx, it.UserID), FromItem: true})
		return err
	} else if err != nil && !ent.IsNotFound(err) {
		return err
	}
	e, err := tx.ContractEntry.Query().Where(contractentry.ItemID(it.ID), contractentry.KindEQ(contractentry.KindScope)).
		WithContract().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if SideOf(e.Edges.Contract, it.UserID) != rules.Provider {
		return nil
	}
	n, _ := strconv.Atoi(deref(e.Ref))
	return s.answerScope(ctx, tx, e.Edges.Contract, n, false, it.UserID)
}

// answerScope answers amendment n from its item, unless it is answered.
func (s *Core) answerScope(ctx context.Context, tx *db.Tx, c *ent.Contract, n int, accept bool, userID string) error {
	proposed, err := tx.ContractAmendment.Query().Where(contractamendment.ContractID(c.ID), contractamendment.N(n),
		contractamendment.StatusEQ(contractamendment.StatusProposed)).Exist(ctx)
	if err != nil || !proposed {
		return err
	}
	move := rules.ScopeDecline
	if accept {
		move = rules.ScopeAccept
	}
	_, err = s.Apply(ctx, tx, c, Move{Kind: move, By: rules.Provider, Actor: actorOf(ctx, tx, userID), N: n, FromItem: true})
	return err
}

func actorOf(ctx context.Context, tx *db.Tx, userID string) string {
	if u, err := tx.User.Get(ctx, userID); err == nil {
		return u.Name
	}
	return "Switchboard"
}

// ignoreState drops a refusal of the state table: an item moved after its
// contract ended changes nothing.
func ignoreState(err error) error {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Kind == apperr.KindIllegalMove {
		return nil
	}
	return err
}
