package economy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractamendment"
	"github.com/switchboard-hq/switchboard/ent/contractentry"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Move is one change to a contract, by a side, the admin or the timer.
type Move struct {
	Kind string
	By   string
	// Actor is who made it, as the activity feed names them.
	Actor                      string
	Text, URL, DocumentID, Ref string
	// Amount is a proposed amendment's price, or what the client's
	// instance reports paying the provider (a move from the peer).
	Amount money.Cents
	// N is the amendment a scope answer names.
	N int
	// Outcome and Percent are an admin's decision.
	Outcome string
	Percent int
	// PeerMoveID is set on a move the other instance sent: it applies only
	// forward and is never sent back.
	PeerMoveID string
	// FromItem is set when the move comes from the provider's own queue
	// item (approved or rejected), which is then left alone.
	FromItem bool
}

// answered words a yes or a no to an offer or an amendment.
var answered = map[bool]string{true: string(vocab.AmendmentStatusAccepted), false: string(vocab.AmendmentStatusDeclined)}

// EventContractMove names the outbox rows of moves sent to a peer.
const EventContractMove = "contract_move"

var actions = map[string]string{
	rules.Accept: "contract_accepted", rules.Decline: "contract_declined", rules.Withdraw: "contract_withdrawn",
	rules.Deliver: "deliverable_submitted", rules.Close: "contract_closed", rules.Expire: "contract_closed",
	rules.Dispute: "contract_disputed", rules.Resolve: "dispute_resolved", rules.Update: "contract_update",
	rules.Question: "contract_question", rules.Answer: "contract_answer", rules.Scope: "scope_proposed",
	rules.ScopeAccept: "scope_added", rules.ScopeDecline: "scope_declined", rules.SuggestClose: "close_suggested",
	rules.Review: "review_submitted",
}

// Actions are the activity actions the economy writes (the category
// economy), contract_offered first.
func Actions() []string {
	out := []string{"contract_offered"}
	for _, m := range vocab.ContractMoveValues() {
		if a := actions[string(m)]; a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Refusal maps a refused move to what the caller reads: 403 for a side
// that may not, 400 for a state that does not allow it.
func Refusal(err error) error {
	switch {
	case errors.Is(err, rules.ErrSide):
		return apperr.Forbidden("%s", err.Error())
	case errors.Is(err, rules.ErrState):
		return apperr.IllegalMove("%s", err.Error())
	}
	return err
}

// Apply makes m on c in tx and answers the contract as it now is.
func (s *Core) Apply(ctx context.Context, tx *db.Tx, c *ent.Contract, m Move) (*ent.Contract, error) {
	if err := tx.Serialize(ctx, "contract "+c.ID); err != nil {
		return nil, err
	}
	c, err := tx.Contract.Get(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	to, err := rules.Check(string(c.Status), m.Kind, m.By)
	if err != nil {
		return nil, Refusal(err)
	}
	now := s.now()
	up := tx.Contract.UpdateOne(c).SetStatus(contract.Status(to)).SetUpdatedAt(now)
	e := entry{kind: m.Kind, by: m.By, text: m.Text, url: m.URL, documentID: m.DocumentID, ref: m.Ref}
	var out *switchboardv1.ReceiveContractMoveRequest // what goes to the peer, if anyone
	send := Remote(c) && m.PeerMoveID == ""
	if send {
		out = &switchboardv1.ReceiveContractMoveRequest{Move: m.Kind, Text: opt(m.Text), Url: opt(m.URL), Ref: opt(m.Ref)}
	}
	summary := ""
	// What moves the contract's own items runs once the contract is saved,
	// so the queue's events find it moved already.
	var later []func(c *ent.Contract) error
	switch m.Kind {
	case rules.Accept, rules.Decline:
		send = false // the offer's relay carries the answer (its ack)
		if m.Kind == rules.Decline && HoldsMoney(c) {
			if err := s.ledger().release(ctx, tx, c); err != nil {
				return nil, err
			}
			up.SetHoldStatus(contract.HoldStatusReleased)
		}
		if !m.FromItem {
			accept := m.Kind == rules.Accept
			later = append(later, func(c *ent.Contract) error { return s.answerOffer(ctx, tx, c, accept) })
		}
		summary = fmt.Sprintf("%q was %s", c.Title, answered[m.Kind == rules.Accept])
	case rules.Withdraw:
		if HoldsMoney(c) {
			if err := s.ledger().release(ctx, tx, c); err != nil {
				return nil, err
			}
			up.SetHoldStatus(contract.HoldStatusReleased)
		}
		if c.ProviderUserID != nil && c.ItemID != nil && !m.FromItem {
			later = append(later, func(c *ent.Contract) error { return s.dropItem(ctx, tx, *c.ProviderUserID, *c.ItemID) })
		}
		summary = fmt.Sprintf("%q was withdrawn", c.Title)
	case rules.Deliver:
		up.SetDeliveredAt(now)
		summary = fmt.Sprintf("A deliverable for %q: %s", c.Title, m.Text)
		if u := LocalUser(c, rules.Client); u != "" {
			it, err := s.readyItem(ctx, tx, u, c, "Review the deliverable of "+c.Title,
				m.Text+"\n\nClose the contract to pay the provider, or dispute it.", rules.Deliver, m)
			if err != nil {
				return nil, err
			}
			e.itemID = it.ID
		}
	case rules.Close, rules.Expire:
		ends := now.Add(rules.ReviewWindow)
		up.SetClosedAt(now).SetReviewWindowEndsAt(ends)
		paid, err := s.pay(ctx, tx, c, up, rules.Capture(c.PriceCents), m)
		if err != nil {
			return nil, err
		}
		if out != nil {
			out.AmountCents = wire(paid)
		}
		summary = fmt.Sprintf("%q was closed: %s paid to the provider", c.Title, cents(paid, c.Currency))
		if m.Kind == rules.Expire {
			summary = fmt.Sprintf("%q closed itself 14 days after its delivery: %s paid to the provider", c.Title, cents(paid, c.Currency))
		}
	case rules.Dispute:
		up.SetHoldStatus(contract.HoldStatusFrozen).SetDisputeReason(m.Text)
		summary = fmt.Sprintf("%q is disputed by the %s: %s", c.Title, m.By, m.Text)
	case rules.Resolve:
		ends := now.Add(rules.ReviewWindow)
		up.SetClosedAt(now).SetReviewWindowEndsAt(ends).SetDisputeOutcome(contract.DisputeOutcome(m.Outcome))
		if m.Outcome == string(vocab.DisputeOutcomeSplit) {
			up.SetProviderPercent(m.Percent)
		}
		p, err := rules.Settle(c.PriceCents, m.Outcome, m.Percent)
		if err != nil && m.PeerMoveID == "" {
			return nil, apperr.Invalid("%s", err.Error())
		}
		paid, err := s.pay(ctx, tx, c, up, p, m)
		if err != nil {
			return nil, err
		}
		if out != nil {
			out.AmountCents, out.Outcome = wire(paid), &m.Outcome
			if m.Percent > 0 {
				v := int32(m.Percent) //nolint:gosec // 1 to 99
				out.ProviderPercent = &v
			}
		}
		summary = fmt.Sprintf("The dispute over %q was settled (%s): %s paid to the provider", c.Title, m.Outcome, cents(paid, c.Currency))
	case rules.Update:
		summary = fmt.Sprintf("Update on %q: %s", c.Title, m.Text)
	case rules.Question:
		// From the peer, ref is the question's id on the asking instance,
		// which the answer names.
		summary = fmt.Sprintf("Question on %q: %s", c.Title, m.Text)
		if u := LocalUser(c, OtherSide(m.By)); u != "" {
			it, err := s.readyItem(ctx, tx, u, c, "Answer a question on "+c.Title,
				m.Text+"\n\nReport your answer as this item's result.", rules.Question, m)
			if err != nil {
				return nil, err
			}
			e.itemID = it.ID
		}
	case rules.Answer:
		summary = fmt.Sprintf("Answer on %q: %s", c.Title, m.Text)
	case rules.Scope:
		n, err := tx.ContractAmendment.Query().Where(contractamendment.ContractID(c.ID)).Count(ctx)
		if err != nil {
			return nil, err
		}
		if m.N == 0 {
			m.N = n + 1
		}
		if err := tx.ContractAmendment.Create().SetContractID(c.ID).SetN(m.N).SetItem(m.Text).SetPriceCents(m.Amount).
			SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
			return nil, err
		}
		e.ref = fmt.Sprint(m.N)
		if out != nil {
			out.AmountCents, out.Ref = wire(m.Amount), &e.ref
		}
		summary = fmt.Sprintf("More scope proposed for %q (+%s): %s", c.Title, cents(m.Amount, c.Currency), m.Text)
		if u := LocalUser(c, rules.Provider); u != "" {
			it, err := s.heldItem(ctx, tx, u, c, "More scope for "+c.Title,
				fmt.Sprintf("%s\n\nAdds %s to the price. Approve to accept, reject to decline.", m.Text, cents(m.Amount, c.Currency)), m)
			if err != nil {
				return nil, err
			}
			e.itemID = it.ID
		}
	case rules.ScopeAccept, rules.ScopeDecline:
		a, err := tx.ContractAmendment.Query().Where(contractamendment.ContractID(c.ID), contractamendment.N(m.N)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("amendment %d of contract %s not found", m.N, c.ID)
		} else if err != nil {
			return nil, err
		}
		if a.Status != contractamendment.StatusProposed {
			if m.PeerMoveID != "" {
				return c, nil
			}
			return nil, apperr.IllegalMove("amendment %d is %s already", m.N, a.Status)
		}
		e.ref = fmt.Sprint(m.N)
		if out != nil {
			out.Ref = &e.ref
		}
		accepted := m.Kind == rules.ScopeAccept
		switch {
		case accepted && HoldsMoney(c):
			if err := s.ledger().hold(ctx, tx, c, *c.ClientUserID, a.PriceCents, kindHoldRaise); err != nil {
				return nil, err
			}
			price := c.PriceCents + a.PriceCents
			up.SetPriceCents(price).SetFeeCents(rules.Fee(price)).SetScope(append(slices.Clone(c.Scope), a.Item))
		case accepted:
			// The provider's side of a remote contract: the client's
			// instance raises the hold and answers (scopeAnswered).
			summary = fmt.Sprintf("More scope for %q accepted; waiting for the client's ledger", c.Title)
		}
		if !accepted || HoldsMoney(c) {
			status := contractamendment.StatusDeclined
			if accepted {
				status = contractamendment.StatusAccepted
			}
			if err := a.Update().SetStatus(status).SetUpdatedAt(now).Exec(ctx); err != nil {
				return nil, err
			}
		}
		if summary == "" {
			summary = fmt.Sprintf("More scope for %q was %s: %s", c.Title, answered[accepted], a.Item)
		}
	case rules.SuggestClose:
		summary = fmt.Sprintf("The provider suggests closing %q", c.Title)
		if u := LocalUser(c, rules.Client); u != "" {
			it, err := s.readyItem(ctx, tx, u, c, "Close "+c.Title+"?", "The provider suggests closing the contract. Close it to pay them, or dispute it.", rules.SuggestClose, m)
			if err != nil {
				return nil, err
			}
			e.itemID = it.ID
		}
	}
	if m.PeerMoveID != "" {
		e.peerMoveID = m.PeerMoveID
	}
	c, err = up.Save(ctx)
	if err != nil {
		return nil, err
	}
	for _, fn := range later {
		if err := fn(c); err != nil {
			return nil, err
		}
	}
	entryID, err := s.writeEntry(ctx, tx, c, e)
	if err != nil {
		return nil, err
	}
	if out != nil && m.Kind == rules.Question {
		out.Ref = &entryID // the answer names it
	}
	if err := s.tell(ctx, tx, c, m, actions[m.Kind], summary); err != nil {
		return nil, err
	}
	if send {
		if err := s.toPeer(ctx, tx, c, out); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// pay settles p on the client's instance, or records on the provider's
// what the client's reported (m.Amount); answers the provider's credit.
func (s *Core) pay(ctx context.Context, tx *db.Tx, c *ent.Contract, up *ent.ContractUpdateOne, p rules.Payout, m Move) (money.Cents, error) {
	if HoldsMoney(c) {
		if err := s.ledger().settle(ctx, tx, c, p); err != nil {
			return 0, err
		}
		hold := contract.HoldStatusCaptured
		if p.Provider+p.Fee == 0 {
			hold = contract.HoldStatusReleased
		}
		// The fee is what was taken: on a split, the fee on the provider's share.
		up.SetHoldStatus(hold).SetProviderEarnedCents(p.Provider).SetRefundedCents(p.Refund).SetFeeCents(p.Fee)
		if c.ProjectID != nil {
			if err := s.Projects.CloseEngagement(ctx, tx, *c.ProjectID); err != nil {
				return 0, err
			}
		}
		return p.Provider, nil
	}
	if m.Amount > 0 {
		if err := s.ledger().earned(ctx, tx, c, m.Amount); err != nil {
			return 0, err
		}
	}
	hold := contract.HoldStatusCaptured
	if m.Amount == 0 {
		hold = contract.HoldStatusReleased
	}
	// The amount is the client's instance's word; the fee and refund follow
	// from the same rule it applied.
	up.SetHoldStatus(hold).SetProviderEarnedCents(m.Amount).SetRefundedCents(p.Refund).SetFeeCents(p.Fee)
	if c.ProjectID != nil {
		if err := s.Projects.CloseEngagement(ctx, tx, *c.ProjectID); err != nil {
			return 0, err
		}
	}
	return m.Amount, nil
}

type entry struct {
	kind, by, text, url, documentID, ref, itemID, peerMoveID string
}

func (s *Core) writeEntry(ctx context.Context, tx *db.Tx, c *ent.Contract, e entry) (string, error) {
	now := s.now()
	create := tx.ContractEntry.Create().SetContractID(c.ID).SetKind(contractentry.Kind(e.kind)).
		SetNillableText(opt(e.text)).SetNillableURL(opt(e.url)).SetNillableDocumentID(opt(e.documentID)).
		SetNillableRef(opt(e.ref)).SetNillableItemID(opt(e.itemID)).SetNillablePeerMoveID(opt(e.peerMoveID)).
		SetCreatedAt(now).SetUpdatedAt(now)
	if e.by == rules.Client || e.by == rules.Provider {
		create.SetBy(contractentry.By(e.by))
	}
	row, err := create.Save(ctx)
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// tell writes the move's activity for each local side and a comms message
// for each local side that did not make it.
func (s *Core) tell(ctx context.Context, tx *db.Tx, c *ent.Contract, m Move, action, summary string) error {
	now := s.now()
	for _, side := range []string{rules.Client, rules.Provider} {
		u := LocalUser(c, side)
		if u == "" {
			continue
		}
		if err := activity.Write(ctx, tx, activity.Entry{UserID: u, Action: action, Actor: m.Actor, At: now, Summary: summary,
			Metadata: map[string]any{"contractId": c.ID, "move": m.Kind, "role": side}}); err != nil {
			return err
		}
		if side == m.By && m.PeerMoveID == "" {
			continue
		}
		if _, err := post(ctx, tx, now, u, summary, "economy", map[string]any{
			"type": "contract_move", "contractId": c.ID, "move": m.Kind, "status": string(c.Status),
		}); err != nil {
			return err
		}
	}
	return nil
}

// toPeer writes the move for the other instance to the outbox, numbered
// once per contract.
func (s *Core) toPeer(ctx context.Context, tx *db.Tx, c *ent.Contract, msg *switchboardv1.ReceiveContractMoveRequest) error {
	conn, err := tx.NetworkConnection.Get(ctx, *c.ConnectionID)
	if ent.IsNotFound(err) {
		s.Logger.WarnContext(ctx, "economy: the contract's connection is gone; the move stays here", "contractId", c.ID)
		return nil
	} else if err != nil {
		return err
	}
	msg.MoveId = ids.New()
	msg.ContractId = c.ID
	msg.ReceiverContractId = deref(c.OriginContractID)
	msg.OccurredAt = timestamppb.New(s.now())
	return s.Net.ToPeerInTx(ctx, tx, conn.UserID, conn, EventContractMove,
		switchboardv1connect.EconomyPeerServiceReceiveContractMoveProcedure, msg)
}

// principal is userID acting through Switchboard on a contract's items.
func principal(ctx context.Context, tx *db.Tx, userID string) (*auth.Principal, error) {
	u, err := tx.User.Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	return &auth.Principal{UserID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role), Via: auth.ViaSession}, nil
}

// itemMeta is what a contract's item carries, so the board and the
// assistant can find the contract.
func itemMeta(c *ent.Contract, move string) string {
	b, _ := json.Marshal(map[string]any{"contractId": c.ID, "contractMove": move})
	return string(b)
}

// writer is who wrote a move's words: the other side (a user, or the peer).
func writer(c *ent.Contract, m Move) provenance.Mark {
	if m.PeerMoveID != "" || (Remote(c) && m.By == RemoteSide(c)) {
		return provenance.Mark{Kind: provenance.Peer, Ref: deref(c.ConnectionID)}
	}
	if u := LocalUser(c, m.By); u != "" {
		return provenance.Mark{Kind: provenance.User, Ref: u}
	}
	return provenance.Mark{Kind: provenance.System}
}

// heldItem is userID's item waiting for approval (an offer, an amendment).
func (s *Core) heldItem(ctx context.Context, tx *db.Tx, userID string, c *ent.Contract, title, desc string, m Move) (*ent.QueueItem, error) {
	p, err := principal(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	typ, meta := string(vocab.QueueTypeTask), itemMeta(c, m.Kind)
	return s.Queue.CreateHeld(ctx, tx, p, &switchboardv1.CreateQueueItemRequest{Title: runes.Prefix(title, 500),
		Description: &desc, Type: &typ, Metadata: &meta, ProjectId: c.ProjectID}, writer(c, m))
}

// readyItem is userID's item to act on now (a question, a deliverable).
func (s *Core) readyItem(ctx context.Context, tx *db.Tx, userID string, c *ent.Contract, title, desc, move string, m Move) (*ent.QueueItem, error) {
	it, err := s.heldItem(ctx, tx, userID, c, title, desc, Move{Kind: move, By: m.By, PeerMoveID: m.PeerMoveID})
	if err != nil {
		return nil, err
	}
	p, err := principal(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	return s.Queue.MoveIn(ctx, tx, p, it, string(vocab.QueueStatusReady))
}

// answerOffer moves the provider's offer item as the answer given through
// the API: approved (accept) or removed (decline). On the provider's side
// of a remote contract, the item's relay carries the answer to the client.
func (s *Core) answerOffer(ctx context.Context, tx *db.Tx, c *ent.Contract, accept bool) error {
	if c.ProviderUserID == nil || c.ItemID == nil {
		return nil
	}
	p, err := principal(ctx, tx, *c.ProviderUserID)
	if err != nil {
		return err
	}
	it, err := s.Queue.LoadIn(ctx, tx, p, *c.ItemID)
	if gone(err) {
		return nil
	} else if err != nil {
		return err
	}
	if !accept {
		return s.Queue.RemoveIn(ctx, tx, p, it, "Declined the offer %q")
	}
	if string(it.Status) != string(vocab.QueueStatusPendingConfirmation) {
		return nil
	}
	_, err = s.Queue.MoveIn(ctx, tx, p, it, string(vocab.QueueStatusReady))
	return err
}

func (s *Core) dropItem(ctx context.Context, tx *db.Tx, userID, itemID string) error {
	p, err := principal(ctx, tx, userID)
	if err != nil {
		return err
	}
	it, err := s.Queue.LoadIn(ctx, tx, p, itemID)
	if gone(err) {
		return nil
	} else if err != nil {
		return err
	}
	return s.Queue.RemoveIn(ctx, tx, p, it, "Removed %q: the offer was withdrawn")
}

// gone says err is an item (or a row) that is not there.
func gone(err error) bool {
	if err == nil {
		return false
	}
	if ent.IsNotFound(err) {
		return true
	}
	var ae *apperr.Error
	return errors.As(err, &ae) && ae.Kind == apperr.KindNotFound
}
