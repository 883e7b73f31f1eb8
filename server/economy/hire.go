package economy

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/groups"
	networkrules "github.com/switchboard-hq/switchboard/server/network/rules"
)

// PayloadEngagement is the payload kind of an offer's relay: the word of
// the engagement project it opens.
const PayloadEngagement = string(vocab.ProjectKindEngagement)

// Hire is a checked hire_provider.
type Hire struct {
	// Client is the hiring user, as the request's principal.
	Client *auth.Principal
	// One of ProviderUserID (a local user) and ConnectionID (a
	// connection's peer).
	ProviderUserID, ConnectionID string
	TaskType, Title              string
	Scope                        []string
	Price                        money.Cents
	Currency                     string
	DueAt                        *time.Time
	// JobID is the job an award hires for.
	JobID string
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// HireFrom checks a HireProviderRequest.
func (s *Core) HireFrom(p *auth.Principal, req *switchboardv1.HireProviderRequest) (Hire, error) {
	h := Hire{Client: p, ProviderUserID: strings.TrimSpace(req.GetProvider().GetUserId()),
		ConnectionID: strings.TrimSpace(req.GetProvider().GetConnectionId()), TaskType: strings.TrimSpace(req.GetTaskType()),
		Title: strings.TrimSpace(req.GetTitle()), Price: money.Cents(req.GetPriceCents()), Currency: strings.TrimSpace(req.GetCurrency())}
	if req.DueAt != nil {
		t := req.GetDueAt().AsTime().UTC()
		h.DueAt = &t
	}
	for _, item := range req.GetScope() {
		if item = strings.TrimSpace(item); item != "" {
			h.Scope = append(h.Scope, item)
		}
	}
	return h, h.check()
}

func (h *Hire) check() error {
	switch {
	case (h.ProviderUserID == "") == (h.ConnectionID == ""):
		return apperr.Invalid("provider: give one of userId (a user of this instance) and connectionId (a connection's peer)")
	case h.ProviderUserID == h.Client.UserID:
		return apperr.Invalid("provider: you cannot hire yourself")
	case h.TaskType == "":
		return apperr.Invalid("taskType is required")
	case h.Title == "":
		return apperr.Invalid("title is required")
	case h.Price <= 0:
		return apperr.Invalid("priceCents must be a positive whole number of cents")
	}
	if h.Currency == "" {
		h.Currency = DefaultCurrency
	}
	if h.Currency = strings.ToUpper(h.Currency); !currencyCode.MatchString(h.Currency) {
		return apperr.Invalid("currency must be an ISO 4217 code such as USD, not %q", h.Currency)
	}
	return nil
}

// Hire makes the engagement in one unit of work: the project with both
// seats, the contract, the client's hold (402 when the ledger refuses
// it) and, for a local provider, the offer in their queue. A remote
// provider's offer is the relay sent once that has committed: refused,
// the contract is withdrawn and the hold released, so nothing stays held.
func (s *Core) Hire(ctx context.Context, h Hire) (*ent.Contract, error) {
	var conn *ent.NetworkConnection
	c, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (c *ent.Contract, err error) {
		c, conn, err = s.hireIn(ctx, tx, h)
		return c, err
	})
	if err != nil || conn == nil {
		return c, err
	}
	return s.offerOverNetwork(ctx, h, c, conn)
}

// hireIn is Hire's unit of work, for the award of a job to run within its
// own (server/economy/jobs.go). It answers the connection of a remote
// provider, whose offer the caller sends once tx has committed
// (offerOverNetwork).
func (s *Core) hireIn(ctx context.Context, tx *db.Tx, h Hire) (*ent.Contract, *ent.NetworkConnection, error) {
	var conn *ent.NetworkConnection
	now := s.now()
	create := tx.Contract.Create().SetClientUserID(h.Client.UserID).SetTaskType(h.TaskType).SetTitle(h.Title).
		SetScope(h.Scope).SetPriceCents(h.Price).SetFeeCents(rules.Fee(h.Price)).SetCurrency(h.Currency).
		SetNillableDueAt(h.DueAt).SetNillableJobID(opt(h.JobID)).SetCreatedAt(now).SetUpdatedAt(now)
	e := groups.Engagement{Name: h.Title, ClientUserID: h.Client.UserID}
	var provider *ent.User
	if h.ProviderUserID != "" {
		u, err := tx.User.Get(ctx, h.ProviderUserID)
		if ent.IsNotFound(err) {
			return nil, nil, apperr.NotFound("provider: user %s not found", h.ProviderUserID)
		} else if err != nil {
			return nil, nil, err
		}
		provider = u
		create.SetProviderUserID(u.ID)
		e.ProviderUserID = u.ID
	} else {
		cn, err := tx.NetworkConnection.Query().Where(networkconnection.ID(h.ConnectionID),
			networkconnection.UserID(h.Client.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, nil, apperr.NotFound("provider: connection %s not found", h.ConnectionID)
		} else if err != nil {
			return nil, nil, err
		}
		if cn.Status != networkconnection.StatusActive || cn.PeerTokenSealed == nil {
			return nil, nil, apperr.IllegalMove("connection %s is %s: hire over active connections only", cn.ID, cn.Status)
		}
		conn = cn
		create.SetConnectionID(cn.ID).SetPartyName(peerName(cn)).SetPartyInstanceURL(cn.PeerInstanceURL)
		e.ProviderConnectionID = cn.ID
	}
	projectID, err := s.Projects.OpenEngagement(ctx, tx, e)
	if err != nil {
		return nil, nil, err
	}
	c, err := create.SetProjectID(projectID).Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := s.ledger().hold(ctx, tx, c, h.Client.UserID, h.Price, kindHold); err != nil {
		return nil, nil, err
	}
	summary := fmt.Sprintf("Offered %q for %s", h.Title, cents(h.Price, h.Currency))
	if provider != nil {
		it, err := s.heldItem(ctx, tx, provider.ID, c, "Offer: "+h.Title, offerText(h, h.Client.Name),
			Move{Kind: rules.Accept, By: rules.Client})
		if err != nil {
			return nil, nil, err
		}
		if c, err = c.Update().SetItemID(it.ID).Save(ctx); err != nil {
			return nil, nil, err
		}
		if _, err := post(ctx, tx, now, provider.ID, fmt.Sprintf("%s offers you %q for %s: approve the offer in your queue to accept it.",
			h.Client.Name, h.Title, cents(h.Price, h.Currency)), "economy",
			map[string]any{"type": "contract_move", "contractId": c.ID, "move": "offer", "status": string(c.Status)}); err != nil {
			return nil, nil, err
		}
		if err := activity.Write(ctx, tx, activity.Entry{UserID: provider.ID, Action: "contract_offered", Actor: h.Client.Actor(),
			At: now, Summary: summary, Metadata: map[string]any{"contractId": c.ID, "role": rules.Provider}}); err != nil {
			return nil, nil, err
		}
	}
	return c, conn, activity.Write(ctx, tx, activity.Entry{UserID: h.Client.UserID, Action: "contract_offered", Actor: h.Client.Actor(),
		At: now, Summary: summary, Metadata: map[string]any{"contractId": c.ID, "role": rules.Client}})
}

// offerOverNetwork sends the offer's relay (intent assign_task, payload
// kind engagement with the terms) and records it on the contract.
func (s *Core) offerOverNetwork(ctx context.Context, h Hire, c *ent.Contract, conn *ent.NetworkConnection) (*ent.Contract, error) {
	terms := map[string]any{"kind": PayloadEngagement, "contractId": c.ID, "taskType": c.TaskType, "title": c.Title,
		"priceCents": float64(c.PriceCents), "currency": c.Currency, "projectId": deref(c.ProjectID)}
	scope := make([]any, len(c.Scope))
	for i, v := range c.Scope {
		scope[i] = v
	}
	terms["scope"] = scope
	if c.DueAt != nil {
		terms["dueAt"] = c.DueAt.Format(time.RFC3339)
	}
	payload, err := structpb.NewStruct(terms)
	if err == nil {
		var res *switchboardv1.SendRelayResponse
		res, err = s.Relays.SendRelay(auth.WithPrincipal(ctx, h.Client), &switchboardv1.SendRelayRequest{ConnectionId: conn.ID,
			Subject: runes.Prefix("Engagement: "+c.Title, 500), Intent: networkrules.IntentAssignTask, Type: networkrules.TypeRequest,
			Payload: payload})
		if err == nil {
			return s.DB.Contract.UpdateOneID(c.ID).SetRelayID(res.GetRelay().GetId()).Save(ctx)
		}
	}
	if werr := s.DB.InTx(ctx, func(tx *db.Tx) error {
		_, err := s.Apply(ctx, tx, c, Move{Kind: rules.Withdraw, By: rules.Client, Actor: "Switchboard",
			Text: "the offer could not be sent", PeerMoveID: "unsent"})
		return err
	}); werr != nil {
		s.Logger.ErrorContext(ctx, "economy: withdrawing an offer whose relay failed", "contractId", c.ID, "error", werr)
	}
	return nil, err
}

func peerName(c *ent.NetworkConnection) string {
	if c.PeerUserName != "" {
		return c.PeerUserName
	}
	return handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
}

func offerText(h Hire, from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s offers %s for %q (%s).", from, cents(h.Price, h.Currency), h.Title, h.TaskType)
	for _, item := range h.Scope {
		b.WriteString("\n- " + item)
	}
	if h.DueAt != nil {
		b.WriteString("\nDue " + h.DueAt.Format("2006-01-02"))
	}
	b.WriteString("\n\nApprove to accept the contract, reject to decline it.")
	return b.String()
}
