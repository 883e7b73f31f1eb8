package economy

import (
	"context"
	"errors"
	"strconv"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractamendment"
	"github.com/switchboard-hq/switchboard/ent/contractentry"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
)

// Receive applies a move the other instance made on a contract between
// its user and conn's local user. Only forward: a move already applied
// (its id), a state move that would go back, or one the contract's state
// no longer allows changes nothing and answers applied false, so the
// outbox's retries and reorderings are harmless.
func (s *Core) Receive(ctx context.Context, conn *ent.NetworkConnection, req *switchboardv1.ReceiveContractMoveRequest) (*switchboardv1.ReceiveContractMoveResponse, error) {
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ReceiveContractMoveResponse, error) {
		q := tx.Contract.Query().Where(contract.ConnectionID(conn.ID))
		if id := req.GetReceiverContractId(); id != "" {
			q.Where(contract.ID(id))
		} else {
			q.Where(contract.OriginContractID(req.GetContractId()))
		}
		c, err := q.Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("contract not found")
		} else if err != nil {
			return nil, err
		}
		switch {
		case c.OriginContractID == nil: // the first move from the provider's side names its id
			if c, err = c.Update().SetOriginContractID(req.GetContractId()).Save(ctx); err != nil {
				return nil, err
			}
		case *c.OriginContractID != req.GetContractId():
			return nil, apperr.NotFound("contract not found")
		}
		stale := &switchboardv1.ReceiveContractMoveResponse{Applied: false, Status: string(c.Status)}
		dup, err := tx.ContractEntry.Query().Where(contractentry.ContractID(c.ID), contractentry.PeerMoveID(req.GetMoveId())).Exist(ctx)
		if err != nil || dup {
			return stale, err
		}
		if req.GetMove() == rules.Review {
			if c.Status != contract.StatusClosed {
				return stale, nil
			}
			if c, err = s.Reviewed(ctx, tx, c, req.GetReview()); err != nil {
				return nil, err
			}
			return &switchboardv1.ReceiveContractMoveResponse{Applied: true, Status: string(c.Status)}, nil
		}
		m := Move{Kind: req.GetMove(), By: RemoteSide(c), Actor: c.PartyName, Text: req.GetText(), URL: req.GetUrl(),
			Ref: req.GetRef(), Amount: money.Cents(req.GetAmountCents()), Outcome: req.GetOutcome(),
			Percent: int(req.GetProviderPercent()), PeerMoveID: req.GetMoveId()}
		if m.Kind == rules.Scope || m.Kind == rules.ScopeAccept || m.Kind == rules.ScopeDecline {
			m.N, _ = strconv.Atoi(m.Ref)
		}
		// Only the client's instance settles money: a dispute's outcome and
		// the timer's close come from it.
		switch m.Kind {
		case rules.Resolve:
			m.By = rules.Admin
		case rules.Expire:
			m.By = rules.Timer
		}
		if (m.Kind == rules.Resolve || m.Kind == rules.Expire) && RemoteSide(c) != rules.Client {
			return stale, nil
		}
		if !HoldsMoney(c) && (m.Kind == rules.ScopeAccept || m.Kind == rules.ScopeDecline) {
			// The client's instance answering the provider's own answer.
			return s.scopeAnswered(ctx, tx, c, m)
		}
		to, err := rules.Check(string(c.Status), m.Kind, m.By)
		if err != nil || (to != string(c.Status) && !rules.Forward(string(c.Status), to)) {
			return stale, nil
		}
		moved, err := s.Apply(ctx, tx, c, m)
		var ae *apperr.Error
		if m.Kind == rules.ScopeAccept && errors.As(err, &ae) && ae.Kind == apperr.KindPaymentRequired {
			// The client's ledger refuses the larger hold: the amendment
			// is declined on both sides.
			m.Kind, m.Text = rules.ScopeDecline, ae.Message
			if moved, err = s.Apply(ctx, tx, c, m); err != nil {
				return nil, err
			}
			ref := strconv.Itoa(m.N)
			return &switchboardv1.ReceiveContractMoveResponse{Applied: true, Status: string(moved.Status)},
				s.toPeer(ctx, tx, moved, &switchboardv1.ReceiveContractMoveRequest{Move: rules.ScopeDecline, Ref: &ref, Text: &ae.Message})
		}
		if err != nil {
			return nil, err
		}
		if m.Kind == rules.ScopeAccept { // confirmed: the provider's side marks it accepted
			ref := strconv.Itoa(m.N)
			if err := s.toPeer(ctx, tx, moved, &switchboardv1.ReceiveContractMoveRequest{Move: rules.ScopeAccept, Ref: &ref}); err != nil {
				return nil, err
			}
		}
		return &switchboardv1.ReceiveContractMoveResponse{Applied: true, Status: string(moved.Status)}, nil
	})
}

// scopeAnswered is the provider's side learning how the client's ledger
// took an amendment the provider accepted: accepted (the price and scope
// grow) or declined.
func (s *Core) scopeAnswered(ctx context.Context, tx *db.Tx, c *ent.Contract, m Move) (*switchboardv1.ReceiveContractMoveResponse, error) {
	a, err := tx.ContractAmendment.Query().Where(contractamendment.ContractID(c.ID), contractamendment.N(m.N),
		contractamendment.StatusEQ(contractamendment.StatusProposed)).Only(ctx)
	if ent.IsNotFound(err) {
		return &switchboardv1.ReceiveContractMoveResponse{Status: string(c.Status)}, nil
	} else if err != nil {
		return nil, err
	}
	now := s.now()
	status := contractamendment.StatusDeclined
	if m.Kind == rules.ScopeAccept {
		status = contractamendment.StatusAccepted
		price := c.PriceCents + a.PriceCents
		if c, err = c.Update().SetPriceCents(price).SetFeeCents(rules.Fee(price)).SetScope(append(c.Scope, a.Item)).
			SetUpdatedAt(now).Save(ctx); err != nil {
			return nil, err
		}
	}
	if err := a.Update().SetStatus(status).SetUpdatedAt(now).Exec(ctx); err != nil {
		return nil, err
	}
	if _, err := s.writeEntry(ctx, tx, c, entry{kind: m.Kind, by: rules.Provider, text: m.Text, ref: m.Ref, peerMoveID: m.PeerMoveID}); err != nil {
		return nil, err
	}
	summary := "More scope for " + strconv.Quote(c.Title) + " is " + string(status) + ": " + a.Item
	if m.Text != "" {
		summary += " (" + m.Text + ")"
	}
	if err := s.tell(ctx, tx, c, Move{Kind: m.Kind, By: rules.Client, Actor: c.PartyName, PeerMoveID: m.PeerMoveID},
		actions[m.Kind], summary); err != nil {
		return nil, err
	}
	return &switchboardv1.ReceiveContractMoveResponse{Applied: true, Status: string(c.Status)}, nil
}
