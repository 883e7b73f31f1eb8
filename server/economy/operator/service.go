// Package operator is the operator's side of the task economy:
// EconomyService (issue 29; RULINGS "The task economy"), the hiring user's
// and the hired user's moves on their contracts, their reviews, the
// providers they may hire and their money rows. Everything that changes a
// contract goes through server/economy's Core.
package operator

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/document"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/page"
)

var (
	_ switchboardv1connect.EconomyServiceHandler = (*Service)(nil)
	_ switchboardv1.EconomyServiceServer         = (*Service)(nil)
)

// Service implements EconomyService.
type Service struct {
	switchboardv1.UnimplementedEconomyServiceServer
	core *economy.Core
}

// New makes the service over the economy's core.
func New(c *economy.Core) *Service { return &Service{core: c} }

// HireProvider makes an engagement.
func (x *Service) HireProvider(ctx context.Context, req *switchboardv1.HireProviderRequest) (*switchboardv1.HireProviderResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	h, err := x.core.HireFrom(p, req)
	if err != nil {
		return nil, err
	}
	c, err := x.core.Hire(ctx, h)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.HireProviderResponse{Contract: x.core.Render(ctx, x.core.DB.Client, c, rules.Client)}, nil
}

// ListContracts lists the caller's contracts, newest first.
func (x *Service) ListContracts(ctx context.Context, req *switchboardv1.ListContractsRequest) (*switchboardv1.ListContractsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := x.core.DB.Contract.Query()
	switch req.GetRole() {
	case rules.Client:
		q.Where(contract.ClientUserID(p.UserID))
	case rules.Provider:
		q.Where(contract.ProviderUserID(p.UserID))
	default:
		q.Where(contract.Or(contract.ClientUserID(p.UserID), contract.ProviderUserID(p.UserID)))
	}
	if st := req.GetStatus(); st != "" {
		q.Where(contract.StatusEQ(contract.Status(st)))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(contract.FieldCreatedAt), ent.Desc(contract.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListContractsResponse{Contracts: make([]*switchboardv1.Contract, 0, len(rows)), Pagination: pg.Of(total, len(rows))}
	for _, c := range rows {
		out.Contracts = append(out.Contracts, x.core.Render(ctx, x.core.DB.Client, c, economy.SideOf(c, p.UserID)))
	}
	return out, nil
}

// GetContract answers one of the caller's contracts in full.
func (x *Service) GetContract(ctx context.Context, req *switchboardv1.GetContractRequest) (*switchboardv1.GetContractResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c, side, err := economy.Mine(ctx, x.core.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	return x.core.Detail(ctx, x.core.DB.Client, c, side)
}

// move makes m on the caller's contract id, the caller's side filled in.
func (x *Service) move(ctx context.Context, id string, m economy.Move) (*switchboardv1.Contract, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var side string
	c, err := db.InTxValue(ctx, x.core.DB, func(tx *db.Tx) (*ent.Contract, error) {
		c, s, err := economy.Mine(ctx, tx.Client(), p.UserID, id)
		if err != nil {
			return nil, err
		}
		side, m.By, m.Actor = s, s, p.Actor()
		return x.core.Apply(ctx, tx, c, m)
	})
	if err != nil {
		return nil, err
	}
	return x.core.Render(ctx, x.core.DB.Client, c, side), nil
}

// AcceptContract is the provider's yes.
func (x *Service) AcceptContract(ctx context.Context, req *switchboardv1.AcceptContractRequest) (*switchboardv1.AcceptContractResponse, error) {
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Accept})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AcceptContractResponse{Contract: c}, nil
}

// DeclineContract is the provider's no.
func (x *Service) DeclineContract(ctx context.Context, req *switchboardv1.DeclineContractRequest) (*switchboardv1.DeclineContractResponse, error) {
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Decline, Text: strings.TrimSpace(req.GetReason())})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeclineContractResponse{Contract: c}, nil
}

// WithdrawContract is the client taking back an offer.
func (x *Service) WithdrawContract(ctx context.Context, req *switchboardv1.WithdrawContractRequest) (*switchboardv1.WithdrawContractResponse, error) {
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Withdraw, Text: strings.TrimSpace(req.GetReason())})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.WithdrawContractResponse{Contract: c}, nil
}

// DeliverContract is the provider's deliverable.
func (x *Service) DeliverContract(ctx context.Context, req *switchboardv1.DeliverContractRequest) (*switchboardv1.DeliverContractResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	summary := strings.TrimSpace(req.GetSummary())
	if summary == "" {
		return nil, apperr.Invalid("summary is required")
	}
	m := economy.Move{Kind: rules.Deliver, Text: summary}
	if raw := strings.TrimSpace(req.GetUrl()); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, apperr.Invalid("url must be an http or https address")
		}
		m.URL = raw
	}
	if id := strings.TrimSpace(req.GetDocumentId()); id != "" {
		mine, err := x.core.DB.Document.Query().Where(document.ID(id), document.UserID(p.UserID)).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !mine {
			return nil, apperr.NotFound("document %s not found", id)
		}
		m.DocumentID = id
	}
	c, err := x.move(ctx, req.GetId(), m)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeliverContractResponse{Contract: c}, nil
}

// CloseContract is the client's close.
func (x *Service) CloseContract(ctx context.Context, req *switchboardv1.CloseContractRequest) (*switchboardv1.CloseContractResponse, error) {
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Close})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CloseContractResponse{Contract: c}, nil
}

// DisputeContract is either side's dispute.
func (x *Service) DisputeContract(ctx context.Context, req *switchboardv1.DisputeContractRequest) (*switchboardv1.DisputeContractResponse, error) {
	reason := strings.TrimSpace(req.GetReason())
	if reason == "" {
		return nil, apperr.Invalid("reason is required")
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Dispute, Text: reason})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DisputeContractResponse{Contract: c}, nil
}

// PostContractUpdate tells the other side something.
func (x *Service) PostContractUpdate(ctx context.Context, req *switchboardv1.PostContractUpdateRequest) (*switchboardv1.PostContractUpdateResponse, error) {
	text := strings.TrimSpace(req.GetText())
	if text == "" {
		return nil, apperr.Invalid("text is required")
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Update, Text: text})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.PostContractUpdateResponse{Contract: c}, nil
}

// AskContractQuestion asks the other side.
func (x *Service) AskContractQuestion(ctx context.Context, req *switchboardv1.AskContractQuestionRequest) (*switchboardv1.AskContractQuestionResponse, error) {
	q := strings.TrimSpace(req.GetQuestion())
	if q == "" {
		return nil, apperr.Invalid("question is required")
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Question, Text: q})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AskContractQuestionResponse{Contract: c}, nil
}

// ProposeContractScope is the client's amendment.
func (x *Service) ProposeContractScope(ctx context.Context, req *switchboardv1.ProposeContractScopeRequest) (*switchboardv1.ProposeContractScopeResponse, error) {
	item := strings.TrimSpace(req.GetItem())
	if item == "" {
		return nil, apperr.Invalid("item is required")
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.Scope, Text: item, Amount: money.Cents(req.GetPriceCents())})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ProposeContractScopeResponse{Contract: c}, nil
}

// AcceptContractScope is the provider's yes to an amendment.
func (x *Service) AcceptContractScope(ctx context.Context, req *switchboardv1.AcceptContractScopeRequest) (*switchboardv1.AcceptContractScopeResponse, error) {
	n, err := amendment(req.GetN())
	if err != nil {
		return nil, err
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.ScopeAccept, N: n})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AcceptContractScopeResponse{Contract: c}, nil
}

// DeclineContractScope is the provider's no to an amendment.
func (x *Service) DeclineContractScope(ctx context.Context, req *switchboardv1.DeclineContractScopeRequest) (*switchboardv1.DeclineContractScopeResponse, error) {
	n, err := amendment(req.GetN())
	if err != nil {
		return nil, err
	}
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.ScopeDecline, N: n})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeclineContractScopeResponse{Contract: c}, nil
}

// amendment reads an amendment's number. The contract carries it as text,
// as every path variable (so the boundary's path rules hold for it too);
// an empty one is refused before (a missing path segment).
func amendment(n string) (int, error) {
	v, err := strconv.Atoi(n)
	if err != nil || v < 1 {
		return 0, apperr.Invalid("n must be an amendment's number: a whole number from 1, not %q", n)
	}
	return v, nil
}

// SuggestCloseContract is the provider asking the client to close.
func (x *Service) SuggestCloseContract(ctx context.Context, req *switchboardv1.SuggestCloseContractRequest) (*switchboardv1.SuggestCloseContractResponse, error) {
	c, err := x.move(ctx, req.GetId(), economy.Move{Kind: rules.SuggestClose})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SuggestCloseContractResponse{Contract: c}, nil
}

// ReviewContract is the caller's review of the other side.
func (x *Service) ReviewContract(ctx context.Context, req *switchboardv1.ReviewContractRequest) (*switchboardv1.ReviewContractResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	sc := economy.Scores{Overall: int(req.GetOverall()), Communication: int(req.GetCommunication()), Quality: int(req.GetQuality()),
		Timeliness: int(req.GetTimeliness()), Text: strings.TrimSpace(req.GetText())}
	for _, score := range []struct {
		name string
		v    int
	}{{"overall", sc.Overall}, {"communication", sc.Communication}, {"quality", sc.Quality}, {"timeliness", sc.Timeliness}} {
		if score.v < 1 || score.v > 5 {
			return nil, apperr.Invalid("%s is required: a score from 1 to 5", score.name)
		}
	}
	var side string
	c, err := db.InTxValue(ctx, x.core.DB, func(tx *db.Tx) (*ent.Contract, error) {
		c, s, err := economy.Mine(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		side = s
		return x.core.Review(ctx, tx, c, s, p.Actor(), sc)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReviewContractResponse{Contract: x.core.Render(ctx, x.core.DB.Client, c, side)}, nil
}

// SetReviewVisibility shows or hides the text of the caller's review.
func (x *Service) SetReviewVisibility(ctx context.Context, req *switchboardv1.SetReviewVisibilityRequest) (*switchboardv1.SetReviewVisibilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetVisibility() == "" {
		return nil, apperr.Invalid("visibility is required: public or hidden")
	}
	r, err := db.InTxValue(ctx, x.core.DB, func(tx *db.Tx) (*ent.ContractReview, error) {
		return x.core.SetVisibility(ctx, tx, p.UserID, req.GetId(), req.GetVisibility())
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SetReviewVisibilityResponse{Review: economy.RenderReview(r, true)}, nil
}
