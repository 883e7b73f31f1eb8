package economy

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/events"
)

// Sides of a contract as this instance sees it.

// SideOf is userID's side of c, "" when userID is neither.
func SideOf(c *ent.Contract, userID string) string {
	switch {
	case c.ClientUserID != nil && *c.ClientUserID == userID:
		return rules.Client
	case c.ProviderUserID != nil && *c.ProviderUserID == userID:
		return rules.Provider
	}
	return ""
}

// Remote says whether the other side of c is on another instance.
func Remote(c *ent.Contract) bool { return c.ConnectionID != nil }

// OtherSide is the side that is not side.
func OtherSide(side string) string {
	if side == rules.Client {
		return rules.Provider
	}
	return rules.Client
}

// LocalUser is the local user on side of c, "" when that side is remote.
func LocalUser(c *ent.Contract, side string) string {
	if side == rules.Client && c.ClientUserID != nil {
		return *c.ClientUserID
	}
	if side == rules.Provider && c.ProviderUserID != nil {
		return *c.ProviderUserID
	}
	return ""
}

// RemoteSide is the side on the other instance of a remote contract.
func RemoteSide(c *ent.Contract) string {
	if c.ClientUserID == nil {
		return rules.Client
	}
	return rules.Provider
}

// HoldsMoney says whether this instance keeps c's money: the client's.
func HoldsMoney(c *ent.Contract) bool { return c.ClientUserID != nil }

// Mine answers userID's contract id and userID's side of it; another
// account's contract is 404.
func Mine(ctx context.Context, cl *ent.Client, userID, id string) (*ent.Contract, string, error) {
	c, err := cl.Contract.Query().Where(contract.ID(id),
		contract.Or(contract.ClientUserID(userID), contract.ProviderUserID(userID))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, "", apperr.NotFound("contract %s not found", id)
	}
	if err != nil {
		return nil, "", err
	}
	return c, SideOf(c, userID), nil
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func optTS(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// party renders one side of c.
func (s *Core) party(ctx context.Context, cl *ent.Client, c *ent.Contract, side string) *switchboardv1.ContractParty {
	if u := LocalUser(c, side); u != "" {
		p := &switchboardv1.ContractParty{UserId: &u}
		if row, err := cl.User.Get(ctx, u); err == nil {
			p.Name = row.Name
		}
		return p
	}
	return &switchboardv1.ContractParty{ConnectionId: c.ConnectionID, Name: c.PartyName, InstanceUrl: c.PartyInstanceURL}
}

// Render is c as userID reads it.
func (s *Core) Render(ctx context.Context, cl *ent.Client, c *ent.Contract, side string) *switchboardv1.Contract {
	out := &switchboardv1.Contract{
		Id: c.ID, ProjectId: c.ProjectID, ClientUserId: c.ClientUserID,
		Client: s.party(ctx, cl, c, rules.Client), Provider: s.party(ctx, cl, c, rules.Provider),
		TaskType: c.TaskType, Title: c.Title, Scope: c.Scope, PriceCents: wire(c.PriceCents), FeeCents: wire(c.FeeCents),
		Currency: c.Currency, DueAt: optTS(c.DueAt), Status: string(c.Status), PaymentHoldStatus: string(c.HoldStatus),
		RefundedCents: wire(c.RefundedCents), ProviderEarnedCents: wire(c.ProviderEarnedCents), Role: opt(side),
		OriginContractId: c.OriginContractID, DisputeReason: c.DisputeReason, DeliveredAt: optTS(c.DeliveredAt),
		ClosedAt: optTS(c.ClosedAt), ReviewWindowEndsAt: optTS(c.ReviewWindowEndsAt),
		CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
	}
	if out.Scope == nil {
		out.Scope = []string{}
	}
	if c.DisputeOutcome != nil {
		out.DisputeOutcome = opt(string(*c.DisputeOutcome))
	}
	if c.ProviderPercent != nil {
		v := int32(*c.ProviderPercent) //nolint:gosec // 1 to 99
		out.ProviderPercent = &v
	}
	return out
}

// Detail is c's thread, amendments and the reviews side may read at now.
func (s *Core) Detail(ctx context.Context, cl *ent.Client, c *ent.Contract, side string) (*switchboardv1.GetContractResponse, error) {
	entries, err := c.QueryEntries().Order(ent.Asc("created_at"), ent.Asc("id")).All(ctx)
	if err != nil {
		return nil, err
	}
	amends, err := c.QueryAmendments().Order(ent.Asc("n")).All(ctx)
	if err != nil {
		return nil, err
	}
	reviews, err := c.QueryReviews().Order(ent.Asc(contractreview.FieldCreatedAt), ent.Asc(contractreview.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetContractResponse{Contract: s.Render(ctx, cl, c, side),
		Thread: []*switchboardv1.ContractEntry{}, Amendments: []*switchboardv1.ContractAmendment{},
		Reviews: []*switchboardv1.ContractReview{}, CounterpartReviewed: c.CounterpartReviewed}
	for _, e := range entries {
		ce := &switchboardv1.ContractEntry{Id: e.ID, Kind: string(e.Kind), Text: e.Text, Url: e.URL, DocumentId: e.DocumentID,
			Ref: e.Ref, CreatedAt: ts(e.CreatedAt)}
		if e.By != nil {
			ce.By = opt(string(*e.By))
		}
		out.Thread = append(out.Thread, ce)
	}
	for _, a := range amends {
		out.Amendments = append(out.Amendments, &switchboardv1.ContractAmendment{N: int32(a.N), Item: a.Item, //nolint:gosec // at most 50 amendments
			PriceCents: wire(a.PriceCents), Status: string(a.Status), CreatedAt: ts(a.CreatedAt)})
	}
	both := false
	for _, r := range reviews {
		if string(r.By) != side {
			both = true
			out.CounterpartReviewed = true
		}
	}
	shown := c.ReviewWindowEndsAt != nil && rules.ReviewsShown(both && hasOwn(reviews, side), *c.ReviewWindowEndsAt, s.now())
	for _, r := range reviews {
		own := string(r.By) == side
		if !own && !shown {
			continue
		}
		out.Reviews = append(out.Reviews, RenderReview(r, own))
	}
	return out, nil
}

func hasOwn(rs []*ent.ContractReview, side string) bool {
	for _, r := range rs {
		if string(r.By) == side {
			return true
		}
	}
	return false
}

// RenderReview is r as a reader sees it: the text only when public or the
// reader wrote it.
func RenderReview(r *ent.ContractReview, own bool) *switchboardv1.ContractReview {
	out := &switchboardv1.ContractReview{Id: r.ID, ContractId: r.ContractID, By: string(r.By), Overall: int32(r.Overall), //nolint:gosec // 1 to 5
		Communication: int32(r.Communication), Quality: int32(r.Quality), Timeliness: int32(r.Timeliness), //nolint:gosec // 1 to 5
		Visibility: string(r.Visibility), CreatedAt: ts(r.CreatedAt)}
	if own || r.Visibility == contractreview.VisibilityPublic {
		out.Text = r.Text
	}
	return out
}

// Wire is an amount as the contract's …Cents fields carry it (JSON
// integers, RULINGS reconciliation 18): a price is at most 100,000,000
// cents, so every amount of a contract fits.
func Wire(c money.Cents) int32 { return int32(c) } //nolint:gosec // bounded by the price's limit

func wire(c money.Cents) int32 { return Wire(c) }

// post writes a comms message for userID and its new_message event, so an
// open dashboard or chat stream shows the other side's move at once.
func post(ctx context.Context, tx *db.Tx, at time.Time, userID, content, assistant string, meta map[string]any) (*ent.ChatMessage, error) {
	m, err := comms.Post(ctx, tx, at, userID, content, assistant, meta)
	if err != nil {
		return nil, err
	}
	tx.Emit(db.Event{UserID: userID, Body: events.NewMessage(m)})
	return m, nil
}
