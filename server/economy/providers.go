package economy

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/peerpattern"
	"github.com/switchboard-hq/switchboard/ent/providercapability"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	networkrules "github.com/switchboard-hq/switchboard/server/network/rules"
)

// Want is what find_providers is asked.
type Want struct {
	TaskType string
	Skills   []string
	MaxPrice money.Cents
	Limit    int
}

// DefaultProviders and MaxProviders bound find_providers' answer.
const (
	DefaultProviders = 10
	MaxProviders     = 50
)

// Rank ranks who could take a task for userID: local users' declared
// capabilities for the task type (userID's own excluded) and userID's
// active connections whose published patterns name it, by route_task's
// seven factors (server/network/rules) with price fit (rules.Score). A peer
// publishes no price, so its price fit is neutral.
func (s *Core) Rank(ctx context.Context, userID string, w Want) ([]*switchboardv1.ProviderMatch, error) {
	caps, err := s.DB.ProviderCapability.Query().Where(providercapability.TaskTypeEQ(providercapability.TaskType(w.TaskType)),
		providercapability.UserIDNEQ(userID)).WithUser().Order(ent.Asc(providercapability.FieldID)).All(ctx)
	if err != nil && !ent.IsValidationError(err) {
		return nil, err
	}
	type offer struct {
		match *switchboardv1.ProviderMatch
		price money.Cents
		known bool
	}
	offers := map[string]offer{}
	var cands []networkrules.Candidate
	for _, c := range caps {
		if c.Edges.User == nil {
			continue
		}
		cand, err := s.localCandidate(ctx, c.ID, c.Edges.User.Name, c.UserID, c.Skills, string(c.TaskType), c.MaxConcurrent)
		if err != nil {
			return nil, err
		}
		cands = append(cands, cand)
		uid := c.UserID
		o := offer{match: &switchboardv1.ProviderMatch{Provider: &switchboardv1.ContractParty{UserId: &uid, Name: c.Edges.User.Name},
			CapabilityId: c.ID, TaskType: string(c.TaskType), PricingModel: derefEnum(c.PricingModel)}}
		if c.Price != nil {
			o.price, o.known = money.Cents(math.Round(*c.Price*100)), true
			price := wire(o.price)
			o.match.PriceCents, o.match.Currency = &price, c.Currency
		}
		offers[c.ID] = o
	}
	conns, err := s.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID),
		networkconnection.StatusEQ(networkconnection.StatusActive)).Order(ent.Asc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	pats, err := s.DB.PeerPattern.Query().Where(peerpattern.UserID(userID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byConn := map[string]*ent.PeerPattern{}
	for _, pp := range pats {
		byConn[pp.ConnectionID] = pp
	}
	for _, c := range conns {
		pp := byConn[c.ID]
		if pp == nil || !slices.ContainsFunc(pp.TaskTypes, func(t string) bool { return strings.EqualFold(t, w.TaskType) }) {
			continue
		}
		name := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
		cands = append(cands, peerCandidate(c.ID, name, c, pp, pp.Skills, pp.TaskTypes))
		id, url := c.ID, c.PeerInstanceURL
		offers[c.ID] = offer{match: &switchboardv1.ProviderMatch{Provider: &switchboardv1.ContractParty{ConnectionId: &id,
			Name: name, InstanceUrl: &url}, TaskType: w.TaskType}}
	}
	route := networkrules.RouteTask(networkrules.Task{TaskType: w.TaskType, Skills: w.Skills, MaxCandidates: len(cands)}, cands)
	out := make([]*switchboardv1.ProviderMatch, 0, len(route.Candidates))
	for _, r := range route.Candidates {
		o := offers[r.ID]
		fit := rules.NeutralPriceFit
		if o.known {
			fit = rules.PriceFit(o.price, w.MaxPrice)
		}
		o.match.PriceFit = round4(fit)
		o.match.Score = round4(rules.Score(r.Score, fit))
		out = append(out, o.match)
	}
	slices.SortStableFunc(out, func(a, b *switchboardv1.ProviderMatch) int { return cmp.Compare(b.Score, a.Score) })
	n := w.Limit
	if n <= 0 {
		n = DefaultProviders
	}
	return out[:min(n, MaxProviders, len(out))], nil
}

// localCandidate is a local user offering skills for taskType as
// route_task weighs them, with the user's track record (record): a
// capability for find_providers, an application for an auction.
func (s *Core) localCandidate(ctx context.Context, id, name, userID string, skills []string, taskType string,
	maxConcurrent *int) (networkrules.Candidate, error) {
	cand := networkrules.Candidate{ID: id, Name: name, Kind: networkrules.CandidateConnection, Skills: skills}
	if taskType != "" {
		cand.TaskTypes = []string{taskType}
	}
	if maxConcurrent != nil {
		cand.MaxConcurrent = *maxConcurrent
	}
	return cand, s.record(ctx, userID, &cand)
}

// peerCandidate is a connection's peer offering skills for taskTypes as
// route_task weighs them: the connection's trust level and, when it
// published its patterns (pp, nil if not), how much it takes at once.
func peerCandidate(id, name string, c *ent.NetworkConnection, pp *ent.PeerPattern, skills, taskTypes []string) networkrules.Candidate {
	cand := networkrules.Candidate{ID: id, Name: name, Kind: networkrules.CandidateConnection, Skills: skills,
		TaskTypes: taskTypes, TrustLevel: string(c.TrustLevel)}
	if pp != nil {
		cand.MaxConcurrent = pp.MaxConcurrent
	}
	return cand
}

// record fills a local provider's track record: contracts answered and
// closed, open ones, and the reputation received.
func (s *Core) record(ctx context.Context, userID string, c *networkrules.Candidate) error {
	rows, err := s.DB.Contract.Query().Where(contract.ProviderUserID(userID), contract.StatusNEQ(contract.StatusOffered)).
		Select(contract.FieldStatus).All(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		c.AckedRelays++
		switch r.Status {
		case contract.StatusClosed:
			c.CompletedRelays++
		case contract.StatusActive, contract.StatusDelivered, contract.StatusDisputed:
			c.OpenRelays++
		}
	}
	rep, err := s.DB.UserReputation.Query().Where(userreputation.UserID(userID)).Only(ctx)
	if err == nil && rep.AvgRating != nil {
		c.AverageRating, c.Ratings = *rep.AvgRating, rep.ReviewsReceived
	} else if err != nil && !ent.IsNotFound(err) {
		return err
	}
	return nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func derefEnum[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
