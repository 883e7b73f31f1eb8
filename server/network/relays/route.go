package relays

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/peerpattern"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// The network as a whole (RULINGS "The operator network": routing, graph,
// briefing, serendipity_matches). The rules are server/network/rules'; this
// file gathers what they read.

// RouteTask is the route_task answer: the operator's active connections (by
// the patterns learned of them and the outcomes of the relays sent to them)
// and installed store agents, ranked by rules.RouteTask. It writes nothing.
func (s *Service) RouteTask(ctx context.Context, req *switchboardv1.RouteTaskRequest) (*switchboardv1.RouteTaskResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetTaskDescription()) == "" {
		return nil, apperr.Invalid("taskDescription is required")
	}
	cands, err := s.candidates(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	r := rules.RouteTask(rules.Task{Description: req.GetTaskDescription(), TaskType: req.GetTaskType(),
		Skills: req.GetSkills(), MaxCandidates: int(req.GetMaxCandidates())}, cands)
	out := &switchboardv1.RouteTaskResponse{Strategy: r.Strategy, Reason: r.Reason,
		Candidates: make([]*switchboardv1.RouteCandidate, 0, len(r.Candidates))}
	for _, c := range r.Candidates {
		rc := &switchboardv1.RouteCandidate{Id: c.ID, Kind: c.Kind, Name: c.Name, Score: c.Score,
			Factors: &switchboardv1.RouteFactors{SkillMatch: c.Factors.SkillMatch, CompletionRate: c.Factors.CompletionRate,
				Capacity: c.Factors.Capacity, Trust: c.Factors.Trust, Reputation: c.Factors.Reputation,
				Latency: c.Factors.Latency, DomainProximity: c.Factors.DomainProximity},
			Skills: network.OrEmpty(c.Skills), TaskTypes: network.OrEmpty(c.TaskTypes), CompletedRelays: int32(c.CompletedRelays), //nolint:gosec // counts of one account's rows
			AckedRelays: int32(c.AckedRelays), OpenRelays: int32(c.OpenRelays), MedianAckHours: c.MedianAckHours, //nolint:gosec // as above
			MaxConcurrent: int32(c.MaxConcurrent), AverageRating: c.AverageRating, Ratings: int32(c.Ratings)} //nolint:gosec // as above
		if c.TrustLevel != "" {
			rc.TrustLevel = &c.TrustLevel
		}
		out.Candidates = append(out.Candidates, rc)
	}
	return out, nil
}

// candidates are the user's active connections and installed store agents
// as rules.RouteTask reads them.
func (s *Service) candidates(ctx context.Context, userID string) ([]rules.Candidate, error) {
	conns, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID),
		networkconnection.StatusEQ(networkconnection.StatusActive)).Order(ent.Asc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	pats, err := s.core.DB.PeerPattern.Query().Where(peerpattern.UserID(userID)).All(ctx)
	if err != nil {
		return nil, err
	}
	byConn := map[string]*ent.PeerPattern{}
	for _, pp := range pats {
		byConn[pp.ConnectionID] = pp
	}
	sent, err := s.core.DB.Relay.Query().Where(relay.UserID(userID), relay.DirectionEQ(relay.DirectionOutbound),
		relay.TypeEQ(relay.TypeRequest)).All(ctx)
	if err != nil {
		return nil, err
	}
	stats := map[string]*relayStats{}
	for _, r := range sent {
		st := stats[r.ConnectionID]
		if st == nil {
			st = &relayStats{}
			stats[r.ConnectionID] = st
		}
		st.add(r)
	}
	out := make([]rules.Candidate, 0, len(conns))
	for _, c := range conns {
		cand := rules.Candidate{ID: c.ID, Name: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL), Kind: rules.CandidateConnection,
			TrustLevel: string(c.TrustLevel)}
		if pp := byConn[c.ID]; pp != nil {
			cand.Skills, cand.TaskTypes, cand.MaxConcurrent = pp.Skills, pp.TaskTypes, pp.MaxConcurrent
		}
		if st := stats[c.ID]; st != nil {
			cand.CompletedRelays, cand.AckedRelays, cand.OpenRelays = st.completed, len(st.ackHours), st.open
			cand.MedianAckHours = median(st.ackHours)
		}
		out = append(out, cand)
	}
	agents, err := s.core.DB.StoreAgent.Query().Where(storeagent.HasInstallsWith(storeinstall.UserID(userID))).
		Order(ent.Asc(storeagent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := s.agentRuns(ctx, userID, agents)
	if err != nil {
		return nil, err
	}
	for _, a := range agents {
		cand := rules.Candidate{ID: a.ID, Name: a.Name, Kind: rules.CandidateStoreAgent, Skills: a.TaskTypes,
			TaskTypes: a.TaskTypes, AverageRating: a.RatingAvg, Ratings: a.RatingCount, MaxConcurrent: 1}
		if a.Category != nil {
			cand.Categories = []string{*a.Category}
		}
		if a.CurrentExecutionID != nil {
			cand.OpenRelays = 1
		}
		if st := runs[a.ID]; st != nil {
			cand.CompletedRelays, cand.AckedRelays = st.completed, len(st.ackHours)
			cand.MedianAckHours = median(st.ackHours)
		}
		out = append(out, cand)
	}
	return out, nil
}

// agentRunsConsidered bounds the executions read per route: an agent's
// recent record is the one that predicts the next run.
const agentRunsConsidered = 500

// agentRuns is the user's record with each store agent, read as a
// connection's relays are: a finished execution is an acked one (completed,
// or failed and timed out), timed from its creation to its finish; an agent
// runs one execution at a time, so one running fills its capacity.
func (s *Service) agentRuns(ctx context.Context, userID string, agents []*ent.StoreAgent) (map[string]*relayStats, error) {
	if len(agents) == 0 {
		return nil, nil
	}
	agentIDs := make([]string, len(agents))
	for i, a := range agents {
		agentIDs[i] = a.ID
	}
	rows, err := s.core.DB.Execution.Query().Where(execution.UserID(userID), execution.AgentIDIn(agentIDs...),
		execution.FinishedAtNotNil()).Order(ent.Desc(execution.FieldFinishedAt)).Limit(agentRunsConsidered).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]*relayStats{}
	for _, e := range rows {
		st := out[*e.AgentID]
		if st == nil {
			st = &relayStats{}
			out[*e.AgentID] = st
		}
		if e.Status == execution.StatusCompleted {
			st.completed++
		}
		st.ackHours = append(st.ackHours, max(0, e.FinishedAt.Sub(e.CreatedAt).Hours()))
	}
	return out, nil
}

// relayStats are the outcomes of the requests sent to one connection.
type relayStats struct {
	completed, open int
	ackHours        []float64
}

// add counts a sent request: open while delivered, accepted or blocked;
// acked once the peer answered (any state after delivered), timed from its
// sending to its latest state change.
func (st *relayStats) add(r *ent.Relay) {
	switch r.State {
	case relay.StateDelivered:
		if !r.Quarantined && r.FilteredReason == nil {
			st.open++
		}
		return
	case relay.StateAccepted, relay.StateBlocked:
		st.open++
	case relay.StateCompleted:
		st.completed++
	}
	if r.StateAt != nil {
		// The ack's time is the peer's clock truncated to microseconds: never
		// before the sending.
		st.ackHours = append(st.ackHours, max(0, r.StateAt.Sub(r.CreatedAt).Hours()))
	} else {
		st.ackHours = append(st.ackHours, 0)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// RecordRoute writes task_routed: the operator used a route (relay_send
// naming the strategy it follows) to send subject to these relays.
func (s *Service) RecordRoute(ctx context.Context, strategy, subject string, relays []*switchboardv1.Relay) error {
	return s.recordSend(ctx, "task_routed", fmt.Sprintf("Routed %q (%s) to %d", subject, strategy, len(relays)),
		map[string]any{"strategy": strategy}, relays)
}

// RecordBroadcast writes relay_broadcast for one relay_send to several
// connections.
func (s *Service) RecordBroadcast(ctx context.Context, subject string, relays []*switchboardv1.Relay) error {
	return s.recordSend(ctx, "relay_broadcast", fmt.Sprintf("Sent %q to %d connections", subject, len(relays)),
		map[string]any{}, relays)
}

// recordSend writes the caller's activity entry for relays sent together,
// naming them and their connections in metadata beside what it holds.
func (s *Service) recordSend(ctx context.Context, action, summary string, metadata map[string]any, relays []*switchboardv1.Relay) error {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	ids, conns := make([]string, 0, len(relays)), make([]string, 0, len(relays))
	for _, r := range relays {
		ids, conns = append(ids, r.GetId()), append(conns, r.GetConnectionId())
	}
	metadata["relayIds"], metadata["connectionIds"] = ids, conns
	return s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		return activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: action, Actor: p.Actor(),
			At: s.core.NowUTC(), Summary: summary, Metadata: metadata})
	})
}

// GetNetworkGraph is the operator (id "self") and each connection not
// removed, with an edge per connection counting the relays both ways.
func (s *Service) GetNetworkGraph(ctx context.Context, _ *switchboardv1.GetNetworkGraphRequest) (*switchboardv1.GetNetworkGraphResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	me, err := s.core.DB.User.Get(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	host := ""
	if u, err := url.Parse(s.core.PublicURL); err == nil {
		host = u.Host
	}
	out := &switchboardv1.GetNetworkGraphResponse{
		Nodes: []*switchboardv1.NetworkNode{{Id: "self", Kind: "self", Name: me.Name, Host: host}},
		Edges: []*switchboardv1.NetworkEdge{},
	}
	conns, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(p.UserID),
		networkconnection.StatusEQ(networkconnection.StatusActive)).Order(ent.Asc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.core.DB.Relay.Query().Where(relay.UserID(p.UserID)).All(ctx)
	if err != nil {
		return nil, err
	}
	edges := map[string]*switchboardv1.NetworkEdge{}
	for _, c := range conns {
		name := c.PeerUserName
		if name == "" {
			name = handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
		}
		h := c.PeerInstanceURL
		if u, err := url.Parse(c.PeerInstanceURL); err == nil && u.Host != "" {
			h = u.Host
		}
		trust := string(c.TrustLevel)
		out.Nodes = append(out.Nodes, &switchboardv1.NetworkNode{Id: c.ID, Kind: "peer", Name: name, Host: h, TrustLevel: &trust})
		e := &switchboardv1.NetworkEdge{From: "self", To: c.ID}
		edges[c.ID] = e
		out.Edges = append(out.Edges, e)
	}
	for _, r := range rows {
		e := edges[r.ConnectionID]
		if e == nil {
			continue
		}
		e.Relays++
		if r.State == relay.StateCompleted {
			e.Completed++
		}
		at := r.UpdatedAt
		if e.LastActivityAt == nil || at.After(e.LastActivityAt.AsTime()) {
			e.LastActivityAt = timestamppb.New(at)
		}
	}
	return out, nil
}

// GetNetworkBriefing is the network's briefing, counts first, and moves the
// caller's last-briefing time (kept in their network preferences) to now.
func (s *Service) GetNetworkBriefing(ctx context.Context, _ *switchboardv1.GetNetworkBriefingRequest) (*switchboardv1.GetNetworkBriefingResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	now := s.core.NowUTC()
	pref, err := s.core.DB.NetworkPreference.Query().Where(networkpreference.UserID(p.UserID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var since *time.Time
	if pref != nil {
		since = pref.BriefedAt
	}
	pending, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(p.UserID),
		networkconnection.StatusEQ(networkconnection.StatusPending), networkconnection.DirectionEQ(networkconnection.DirectionInbound)).
		Order(ent.Desc(networkconnection.FieldCreatedAt), ent.Asc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.core.DB.Relay.Query().Where(relay.UserID(p.UserID)).
		Order(ent.Desc(relay.FieldCreatedAt), ent.Desc(relay.FieldID)).Limit(500).All(ctx)
	if err != nil {
		return nil, err
	}
	conns, err := s.connectionsOf(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	jobs, err := s.core.DB.Job.Query().Where(job.UserID(p.UserID), job.OriginEQ(job.OriginReceived), job.StatusEQ(job.StatusOpen)).
		Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	var changedSince time.Time
	if since != nil {
		changedSince = *since
	}
	cards, err := s.CardDigest(ctx, p.UserID, changedSince)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetNetworkBriefingResponse{PendingRequests: lists.Map(pending, network.ConnectionProto), LinkedCardChanges: cards,
		AwaitingYou: []*switchboardv1.Relay{}, AwaitingPeers: []*switchboardv1.Relay{}, StateChanges: []*switchboardv1.Relay{},
		Quarantined: []*switchboardv1.Relay{}, JobsReceived: lists.Map(jobs, network.JobProto)}
	if since != nil {
		out.Since = timestamppb.New(*since)
	}
	for _, r := range rows {
		rp := network.RelayProto(r, conns[r.ConnectionID])
		open := r.State == relay.StateDelivered || r.State == relay.StateAccepted || r.State == relay.StateBlocked
		switch {
		case r.Quarantined:
			out.Quarantined = append(out.Quarantined, rp)
		case r.Direction == relay.DirectionInbound && r.Type == relay.TypeRequest && r.State == relay.StateDelivered:
			out.AwaitingYou = append(out.AwaitingYou, rp)
		case r.Direction == relay.DirectionOutbound && r.Type == relay.TypeRequest && open && r.FilteredReason == nil:
			out.AwaitingPeers = append(out.AwaitingPeers, rp)
		}
		if r.StateAt != nil && (since == nil || r.StateAt.After(*since)) {
			out.StateChanges = append(out.StateChanges, rp)
		}
	}
	out.Counts = &switchboardv1.NetworkBriefingCounts{PendingRequests: count(out.PendingRequests),
		AwaitingYou: count(out.AwaitingYou), AwaitingPeers: count(out.AwaitingPeers), StateChanges: count(out.StateChanges),
		Quarantined: count(out.Quarantined), JobsReceived: count(out.JobsReceived), LinkedCardChanges: count(cards)}
	if pref == nil {
		err = s.core.DB.NetworkPreference.Create().SetUserID(p.UserID).SetBriefedAt(now).Exec(ctx)
	} else {
		err = pref.Update().SetBriefedAt(now).Exec(ctx)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func count[T any](xs []T) int32 { return int32(len(xs)) } //nolint:gosec // lists of one account's rows

// ListSerendipityMatches runs rules.Serendipity over the operator's
// contacts and active connections (with the skills learned of their
// patterns) and the keywords of their active cards (every status but
// completed) and open posted jobs.
func (s *Service) ListSerendipityMatches(ctx context.Context, req *switchboardv1.ListSerendipityMatchesRequest) (*switchboardv1.ListSerendipityMatchesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	people, err := s.people(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	cards, err := s.core.DB.Card.Query().Where(card.UserID(p.UserID), card.StatusNEQ(card.StatusCompleted)).
		Order(ent.Asc(card.FieldID)).Limit(500).All(ctx)
	if err != nil {
		return nil, err
	}
	jobs, err := s.core.DB.Job.Query().Where(job.UserID(p.UserID), job.OriginEQ(job.OriginPosted), job.StatusEQ(job.StatusOpen)).
		Order(ent.Asc(job.FieldID)).Limit(500).All(ctx)
	if err != nil {
		return nil, err
	}
	cw := lists.Map(cards, func(c *ent.Card) rules.Work {
		return rules.Work{ID: c.ID, Title: c.Title, Text: []string{network.Deref(c.Description)}}
	})
	jw := lists.Map(jobs, func(j *ent.Job) rules.Work {
		return rules.Work{ID: j.ID, Title: j.Title, Text: append([]string{j.Description}, j.RequiredSkills...)}
	})
	ms := rules.Serendipity(people, cw, jw, int(req.GetMaxResults()))
	out := &switchboardv1.ListSerendipityMatchesResponse{Matches: make([]*switchboardv1.SerendipityMatch, 0, len(ms))}
	for _, m := range ms {
		out.Matches = append(out.Matches, &switchboardv1.SerendipityMatch{
			A:      &switchboardv1.SerendipityPerson{Id: m.A.ID, Name: m.A.Name, Party: m.A.Party},
			B:      &switchboardv1.SerendipityPerson{Id: m.B.ID, Name: m.B.Name, Party: m.B.Party},
			Shared: m.Shared, Overlap: int32(m.Overlap), CardIds: network.OrEmpty(m.Cards), JobIds: network.OrEmpty(m.Jobs), Reason: m.Reason, //nolint:gosec // a count of keywords
		})
	}
	return out, nil
}

func (s *Service) people(ctx context.Context, userID string) ([]rules.Person, error) {
	contacts, err := s.core.DB.Contact.Query().Where(contact.UserID(userID)).Order(ent.Asc(contact.FieldID)).Limit(1000).All(ctx)
	if err != nil {
		return nil, err
	}
	out := lists.Map(contacts, func(c *ent.Contact) rules.Person {
		return rules.Person{ID: c.ID, Name: c.Name, Party: rules.PartyContact, Tags: c.Tags, Company: network.Deref(c.Company)}
	})
	conns, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID),
		networkconnection.StatusEQ(networkconnection.StatusActive)).Order(ent.Asc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	pats, err := s.core.DB.PeerPattern.Query().Where(peerpattern.UserID(userID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range conns {
		per := rules.Person{ID: c.ID, Name: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL), Party: rules.PartyConnection,
			Company: c.PeerInstanceName}
		for _, pp := range pats {
			if pp.ConnectionID == c.ID {
				per.Skills = slices.Concat(pp.Skills, pp.TaskTypes)
			}
		}
		out = append(out, per)
	}
	return out, nil
}
