package developer

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/shipgaterun"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// admin answers the caller when it is an admin session (admin
// routes are role-gated; developer.proto).
func admin(ctx context.Context) error {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	if p.Role != "admin" {
		return apperr.Forbidden("only an admin may decide on store agents")
	}
	return nil
}

// decision is one admin move of a listing's status.
type decision struct {
	to     string
	from   []string
	reason *string
	// gated decisions need a passing ship-gate run.
	gated bool
}

func checkReason(r *string) error {
	if r == nil {
		return nil
	}
	// Its length is the contract's (developer.proto).
	if strings.TrimSpace(*r) == "" {
		return apperr.Invalid("reason must be non-blank text")
	}
	return nil
}

// ApproveStoreAgent lists a waiting (or rejected, or disabled) agent. A
// ship-gate agent needs a persisted passing run after its last breaking
// change; even an admin cannot bypass it.
func (s *Service) ApproveStoreAgent(ctx context.Context, req *switchboardv1.ApproveStoreAgentRequest) (*switchboardv1.ApproveStoreAgentResponse, error) {
	row, pack, err := s.decideAny(ctx, req.GetId(), decision{
		to: statusActive, from: []string{statusPending, "pending_review", statusRejected, statusDisabled}, gated: true,
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ApproveStoreAgentResponse{Agent: ownerView(row), Capability: pack}, nil
}

// RejectStoreAgent refuses a waiting agent.
func (s *Service) RejectStoreAgent(ctx context.Context, req *switchboardv1.RejectStoreAgentRequest) (*switchboardv1.RejectStoreAgentResponse, error) {
	row, pack, err := s.decideAny(ctx, req.GetId(), decision{
		to: statusRejected, from: []string{statusPending, "pending_review"}, reason: req.Reason,
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RejectStoreAgentResponse{Agent: ownerView(row), Capability: pack}, nil
}

// DisableStoreAgent takes an agent off the store, whatever its status.
func (s *Service) DisableStoreAgent(ctx context.Context, req *switchboardv1.DisableStoreAgentRequest) (*switchboardv1.DisableStoreAgentResponse, error) {
	row, pack, err := s.decideAny(ctx, req.GetId(), decision{
		to: statusDisabled, from: []string{statusPending, "pending_review", statusActive, statusRejected, "suspended"}, reason: req.Reason,
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DisableStoreAgentResponse{Agent: ownerView(row), Capability: pack}, nil
}

// decide moves the listing's status under its lock, then fires the approval
// webhook once the change is committed.
func (s *Service) decide(ctx context.Context, id string, d decision) (*ent.StoreAgent, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	if err := checkReason(d.reason); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, apperr.Invalid("id is required")
	}
	var row *ent.StoreAgent
	err := s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := s.DB.Serialize(ctx, tx, "store_agent:"+id); err != nil {
			return err
		}
		cur, err := tx.StoreAgent.Get(ctx, id)
		if ent.IsNotFound(err) {
			return apperr.NotFound("store agent %q not found", id)
		} else if err != nil {
			return err
		}
		if !slices.Contains(d.from, string(cur.Status)) {
			return apperr.IllegalMove("agent %q is %s; it cannot become %s", cur.Slug, cur.Status, d.to)
		}
		if d.gated && shipGated(cur) {
			if err := passedShipGate(ctx, tx, cur); err != nil {
				return err
			}
		}
		row, err = tx.StoreAgent.UpdateOneID(id).SetStatus(storeagent.Status(d.to)).SetUpdatedAt(s.now()).Save(ctx)
		if err != nil {
			return err
		}
		if err := tx.Publish(ctx, AgentDecided{Agent: row, Reason: d.reason}); err != nil {
			return err
		}
		// A synced listing's spoke hears of it through its subscriber; another
		// listing's approval webhook goes to its joined instance, in the
		// outbox too.
		if row.SourceInstanceID == nil {
			return s.enqueueApproval(ctx, tx, row, d.reason)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return row, nil
}

// shipGated tells whether approval needs a passing ship-gate run: every
// self-registered agent and every pending one. Listings waiting in
// pending_review (synced, or made under the review policy) never went
// through the ship-gate.
func shipGated(a *ent.StoreAgent) bool {
	return a.SelfConfigTokenHash != nil || a.Status == storeagent.StatusPending
}

// passedShipGate refuses unless the agent's latest ship-gate run passed and
// came after its last breaking change.
func passedShipGate(ctx context.Context, tx *db.Tx, a *ent.StoreAgent) error {
	q := tx.ShipGateRun.Query().Where(shipgaterun.AgentID(a.ID))
	for i := len(a.Changelog) - 1; i >= 0; i-- {
		if a.Changelog[i].Breaking {
			q = q.Where(shipgaterun.CreatedAtGT(a.Changelog[i].At))
			break
		}
	}
	last, err := q.Order(ent.Desc(shipgaterun.FieldCreatedAt), ent.Desc(shipgaterun.FieldID)).First(ctx)
	switch {
	case ent.IsNotFound(err):
		return apperr.IllegalMove("agent %q has no ship-gate run since its last breaking change; run POST /api/developer/agents/%s/test-run first", a.Slug, a.ID)
	case err != nil:
		return err
	case !last.Passed:
		return apperr.IllegalMove("agent %q's latest ship-gate run did not pass (%s); approval needs a passing run", a.Slug, last.Hint)
	}
	return nil
}
