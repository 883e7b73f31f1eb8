package operator

import (
	"context"
	"github.com/switchboard-hq/switchboard/internal/periodic"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/peerpattern"
	"github.com/switchboard-hq/switchboard/ent/workpattern"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
)

// Work patterns (RULINGS "The operator network": GET|POST
// /api/federation/patterns; peers read them; each side keeps what it learns
// of its peers' for routing).

// GetPatterns answers the connection's local user's patterns to a peer (a
// call presenting X-Federation-Token), else the caller's own.
func (s *Service) GetPatterns(ctx context.Context, _ *switchboardv1.GetPatternsRequest) (*switchboardv1.GetPatternsResponse, error) {
	userID := ""
	if auth.CredentialsFrom(ctx).FederationToken != "" {
		row, err := s.core.FromActivePeer(ctx, "patterns", nil)
		if err != nil {
			return nil, err
		}
		userID = row.UserID
	} else {
		p, err := auth.RequirePrincipal(ctx)
		if err != nil {
			return nil, err
		}
		userID = p.UserID
	}
	w, err := s.core.DB.WorkPattern.Query().Where(workpattern.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return &switchboardv1.GetPatternsResponse{Patterns: emptyPatterns()}, nil
	}
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetPatternsResponse{Patterns: patternsProto(w)}, nil
}

// UpdatePatterns replaces the caller's published patterns.
func (s *Service) UpdatePatterns(ctx context.Context, req *switchboardv1.UpdatePatternsRequest) (*switchboardv1.UpdatePatternsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	types, skills := network.NonEmpty(req.GetTaskTypes()), network.NonEmpty(req.GetSkills())
	w, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.WorkPattern, error) {
		prior, err := tx.WorkPattern.Query().Where(workpattern.UserID(p.UserID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			return tx.WorkPattern.Create().SetUserID(p.UserID).SetTaskTypes(types).SetSkills(skills).
				SetMaxConcurrent(int(req.GetMaxConcurrent())).SetTypicalTurnaroundHours(req.GetTypicalTurnaroundHours()).Save(ctx)
		case err != nil:
			return nil, err
		}
		return prior.Update().SetTaskTypes(types).SetSkills(skills).
			SetMaxConcurrent(int(req.GetMaxConcurrent())).SetTypicalTurnaroundHours(req.GetTypicalTurnaroundHours()).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdatePatternsResponse{Patterns: patternsProto(w)}, nil
}

// ListPeerPatterns lists what this side keeps of its connections' patterns.
func (s *Service) ListPeerPatterns(ctx context.Context, _ *switchboardv1.ListPeerPatternsRequest) (*switchboardv1.ListPeerPatternsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.core.DB.PeerPattern.Query().Where(peerpattern.UserID(p.UserID)).
		Order(ent.Asc(peerpattern.FieldConnectionID)).All(ctx)
	if err != nil {
		return nil, err
	}
	conns, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(p.UserID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*ent.NetworkConnection{}
	for _, c := range conns {
		byID[c.ID] = c
	}
	out := &switchboardv1.ListPeerPatternsResponse{Peers: []*switchboardv1.PeerPatterns{}}
	for _, r := range rows {
		if c := byID[r.ConnectionID]; c != nil { // a removed connection's are not shown
			out.Peers = append(out.Peers, peerPatternsProto(c, r))
		}
	}
	return out, nil
}

// RefreshPeerPatterns fetches an active connection's patterns now.
func (s *Service) RefreshPeerPatterns(ctx context.Context, req *switchboardv1.RefreshPeerPatternsRequest) (*switchboardv1.RefreshPeerPatternsResponse, error) {
	row, token, err := s.activeOwned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	kept, err := s.learnPatterns(ctx, row, token)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RefreshPeerPatternsResponse{Peer: peerPatternsProto(row, kept)}, nil
}

// The refresh of what this side keeps: the loop looks every patternsEvery
// and fetches the patterns of each active connection it has none of, or
// whose kept ones are patternsStale old (RULINGS: fetched on connect and
// daily).
const (
	patternsEvery = time.Hour
	patternsStale = 24 * time.Hour
)

// Patterns is the refresh of the kept patterns as a periodic timer: every
// patternsEvery, by one replica (RefreshStalePatterns also runs on demand).
func (s *Service) Patterns() periodic.Timer {
	return periodic.Timer{Name: PatternsTimer, Every: patternsEvery, Run: func(ctx context.Context) error {
		s.RefreshStalePatterns(ctx)
		return nil
	}}
}

// PatternsTimer is the patterns refresh's name in the timers' registry.
const PatternsTimer = "network_patterns"

// RefreshStalePatterns fetches the patterns of every active connection
// whose kept ones are missing or stale, one peer after the other, and
// answers how many it refreshed. Nothing runs while the network is off; a
// peer that fails is logged and tried again on the next pass.
func (s *Service) RefreshStalePatterns(ctx context.Context) int {
	w, err := s.core.SwitchOn(ctx)
	if err != nil || s.core.Secrets == nil {
		return 0
	}
	conns, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.StatusEQ(networkconnection.StatusActive),
		networkconnection.PeerTokenSealedNotNil()).All(ctx)
	if err != nil {
		s.core.Logger.WarnContext(ctx, "network: the patterns refresh could not list connections", "error", err)
		return 0
	}
	kept, err := s.core.DB.PeerPattern.Query().All(ctx)
	if err != nil {
		s.core.Logger.WarnContext(ctx, "network: the patterns refresh could not read kept patterns", "error", err)
		return 0
	}
	fetched := map[string]time.Time{}
	for _, k := range kept {
		fetched[k.ConnectionID] = k.FetchedAt
	}
	n := 0
	for _, c := range conns {
		if at, ok := fetched[c.ID]; ok && s.core.NowUTC().Sub(at) < patternsStale {
			continue
		}
		if network.Admit(w, c.PeerInstanceURL) != nil {
			continue
		}
		if s.learnQuietly(ctx, c) {
			n++
		}
	}
	return n
}

// learnQuietly fetches and keeps a connection's patterns, logging a
// failure: the caller's own work does not depend on it.
func (s *Service) learnQuietly(ctx context.Context, c *ent.NetworkConnection) bool {
	token, err := s.core.PeerToken(c)
	if err == nil {
		_, err = s.learnPatterns(ctx, c, token)
	}
	if err != nil && ctx.Err() == nil {
		s.core.Logger.WarnContext(ctx, "network: a peer's patterns were not fetched", "connection", c.ID,
			"peer", c.PeerInstanceURL, "error", err)
	}
	return err == nil
}

// learnPatterns reads the peer's patterns and keeps them for the connection.
func (s *Service) learnPatterns(ctx context.Context, row *ent.NetworkConnection, token string) (*ent.PeerPattern, error) {
	res, err := s.core.PatternsPeer(ctx, row.PeerInstanceURL).GetPatterns(withToken(ctx, token), &switchboardv1.GetPatternsRequest{})
	if err != nil {
		return nil, network.PeerError(row.PeerInstanceURL, err)
	}
	got := res.GetPatterns()
	var published *time.Time
	if got.GetUpdatedAt() != nil {
		t := got.GetUpdatedAt().AsTime()
		published = &t
	}
	types, skills := network.NonEmpty(got.GetTaskTypes()), network.NonEmpty(got.GetSkills())
	maxc, hours := int(max(got.GetMaxConcurrent(), 0)), max(got.GetTypicalTurnaroundHours(), 0)
	kept, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.PeerPattern, error) {
		prior, err := tx.PeerPattern.Query().Where(peerpattern.ConnectionID(row.ID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			return tx.PeerPattern.Create().SetUserID(row.UserID).SetConnectionID(row.ID).SetTaskTypes(types).SetSkills(skills).
				SetMaxConcurrent(maxc).SetTypicalTurnaroundHours(hours).SetNillablePublishedAt(published).
				SetFetchedAt(s.core.NowUTC()).Save(ctx)
		case err != nil:
			return nil, err
		}
		up := prior.Update().SetTaskTypes(types).SetSkills(skills).SetMaxConcurrent(maxc).
			SetTypicalTurnaroundHours(hours).SetFetchedAt(s.core.NowUTC())
		if published == nil {
			up.ClearPublishedAt()
		} else {
			up.SetPublishedAt(*published)
		}
		return up.Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

func emptyPatterns() *switchboardv1.WorkPatterns {
	return &switchboardv1.WorkPatterns{TaskTypes: []string{}, Skills: []string{}}
}

func patternsProto(w *ent.WorkPattern) *switchboardv1.WorkPatterns {
	return &switchboardv1.WorkPatterns{
		TaskTypes: network.OrEmpty(w.TaskTypes), Skills: network.OrEmpty(w.Skills), MaxConcurrent: int32(w.MaxConcurrent),
		TypicalTurnaroundHours: w.TypicalTurnaroundHours, UpdatedAt: timestamppb.New(w.UpdatedAt),
	}
}

func peerPatternsProto(c *ent.NetworkConnection, r *ent.PeerPattern) *switchboardv1.PeerPatterns {
	w := &switchboardv1.WorkPatterns{
		TaskTypes: network.OrEmpty(r.TaskTypes), Skills: network.OrEmpty(r.Skills), MaxConcurrent: int32(r.MaxConcurrent),
		TypicalTurnaroundHours: r.TypicalTurnaroundHours,
	}
	if r.PublishedAt != nil {
		w.UpdatedAt = timestamppb.New(*r.PublishedAt)
	}
	return &switchboardv1.PeerPatterns{ConnectionId: c.ID, Peer: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL),
		Patterns: w, FetchedAt: timestamppb.New(r.FetchedAt)}
}
