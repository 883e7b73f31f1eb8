package server

import (
	"context"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capabilities"
	"github.com/switchboard-hq/switchboard/server/contacts"
	"github.com/switchboard-hq/switchboard/server/dashboard"
	"github.com/switchboard-hq/switchboard/server/developer"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/keys"
	"github.com/switchboard-hq/switchboard/server/network"
	onboardingrules "github.com/switchboard-hq/switchboard/server/onboarding/rules"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/settings"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

// subscriptions is the one table of who hears which domain event, beside
// mounts (mount.go). A service publishes its events in its unit of work
// (tx.Publish); the subscribers of db.On run there, in this order, so what
// they change commits with the change or not at all (an effect outside the
// machine is an outbox row written there); those of db.OnCommit run in this
// process once it has committed. A new reaction to a change is a new row
// here, never a hook field on the publisher.
func subscriptions(h *house) []db.Subscription {
	s := h.svc
	subs := []db.Subscription{
		// A request relay's item reports its moves to the relay's sender; an
		// approved item for a store agent runs the agent.
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemMoved) error {
			return s.relays.ItemMoved(ctx, tx, ev.Item, ev.From)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemMoved) error {
			return s.assistant.ItemMoved(ctx, tx, ev.Item, ev.From)
		}),
		// A project invite's item answers the invite: approved accepts,
		// rejected or deleted declines.
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemMoved) error {
			return s.groups.ItemMoved(ctx, tx, ev.Item, ev.From)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemRemoved) error {
			return s.groups.ItemRemoved(ctx, tx, ev.Item)
		}),
		// A contract's items answer it: the offer approved accepts, rejected
		// or deleted declines; an amendment's likewise; a question's result
		// is the answer.
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemMoved) error {
			return s.economy.ItemMoved(ctx, tx, ev.Item, ev.From)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemRemoved) error {
			return s.economy.ItemRemoved(ctx, tx, ev.Item)
		}),
		// An engagement offered over the network: its relay becomes the
		// provider's contract, and its ack answers the client's.
		db.On(func(ctx context.Context, tx *db.Tx, ev network.RelayTaken) error {
			return s.economy.RelayTaken(ctx, tx, ev)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev network.RelayAcked) error {
			return s.economy.RelayAcked(ctx, tx, ev.Relay, ev.State)
		}),
		// A job its owner closes by hand declines its pending applications;
		// a new auction wakes the economy's timer for its end.
		db.On(func(ctx context.Context, tx *db.Tx, ev network.JobClosed) error {
			return s.economyJobs.Closed(ctx, tx, ev.Job)
		}),
		db.OnCommit(func(_ context.Context, ev network.JobPosted) { s.economyJobs.Posted(ev.Job) }),
		// An invite sent over the network is answered by its relay's ack.
		db.On(func(ctx context.Context, tx *db.Tx, ev network.RelayAcked) error {
			return s.groups.RelayAcked(ctx, tx, ev.Relay, ev.State)
		}),
		// Both records that outlive an item learn how it ended: an A2A task
		// and a received relay (its sender is told through the outbox).
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemRemoved) error {
			return s.a2a.Removed(ctx, tx, ev.Item, ev.Rejected)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev queue.ItemRemoved) error {
			return s.relays.ItemRemoved(ctx, tx, ev.Item, ev.Rejected)
		}),
		// The digests wait for a timer or the next conversation: a peer's
		// change to a linked card makes the card digest due; the operator's
		// turn with the assistant tells both at once.
		db.On(func(ctx context.Context, tx *db.Tx, ev kanban.LinkedCardHeard) error {
			return s.relays.CardHeard(ctx, tx, ev)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev assistant.TurnStarted) error {
			return s.relays.TurnStarted(ctx, tx, ev.UserID)
		}),
		// A linked card's status and priority go to the peer's instance.
		db.On(func(ctx context.Context, tx *db.Tx, ev kanban.CardChanged) error {
			return s.relays.CardChanged(ctx, tx, ev.Before, ev.After)
		}),
		// The store's executions: the review lifecycle opens the requester's
		// item and delivers the result; a spoke returns its hub's dispatch; a
		// hub delivers its spoke's user's global run.
		db.On(func(ctx context.Context, tx *db.Tx, ev engine.ExecutionCreated) error {
			return s.review.Created(ctx, tx, ev.Execution)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev engine.ExecutionFinished) error {
			return s.review.Finished(ctx, tx, ev.Execution)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev engine.ExecutionFinished) error {
			return s.inbound.Finished(ctx, tx, ev.Execution)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev engine.ExecutionFinished) error {
			return s.remote.Finished(ctx, tx, ev.Execution)
		}),
		// The metrics count each execution at its first status and its last.
		db.OnCommit(func(_ context.Context, ev engine.ExecutionCreated) {
			h.cfg.Metrics.ExecutionReached(string(ev.Execution.Status))
		}),
		db.OnCommit(func(_ context.Context, ev engine.ExecutionFinished) {
			h.cfg.Metrics.ExecutionReached(string(ev.Execution.Status))
		}),
		// The requester's queue follows a marketplace execution.
		db.On(queue.ExecutionTracked),
		db.On(queue.ResultDelivered),
		// A decision on a synced listing or pack reaches its spoke through
		// the outbox.
		db.On(func(ctx context.Context, tx *db.Tx, ev developer.AgentDecided) error {
			_, err := s.hubAdmin.EnqueueApproval(ctx, tx, ev.Agent, ev.Reason)
			return err
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev developer.CapabilityDecided) error {
			return s.hubAdmin.EnqueueCapabilityApproval(ctx, tx, ev.Pack, ev.Reason)
		}),
		// The MCP door follows an account's installs (its tool and prompt
		// lists): here at once, so the install's answer means this replica's
		// sessions have the tool, and on every other replica through the
		// bus's store_changed below (mcp.Config.Hear). The event streams end
		// with their credential, and the key cache forgets an ended key.
		db.OnCommit(func(ctx context.Context, ev store.InstallsChanged) { h.door.Changed(ctx, ev.UserID) }),
		db.OnCommit(func(ctx context.Context, ev capabilities.InstallsChanged) { h.door.Changed(ctx, ev.UserID) }),
		db.OnCommit(func(_ context.Context, ev auth.CredentialEnded) {
			if ev.Credential.KeyID != "" {
				h.resolver.Forget()
			}
		}),
		db.OnCommit(func(_ context.Context, ev auth.CredentialEnded) { h.bus.EndStreams(ev.Credential) }),
		// The dashboard's live events (issue 31), each to the record's
		// owner: what the activity feed records (board, contacts,
		// connections, engagements), relays delivered and acked, the store's
		// results and installs.
		db.On(dashboard.Recorded),
		db.On(dashboard.ConnectionDeclined),
		db.On(dashboard.RelayDelivered),
		db.On(dashboard.RelayAcked),
		db.On(dashboard.ResultDelivered),
		// The installs' store_changed is also what the MCP door hears on
		// every replica to refresh an account's tool and prompt lists.
		db.OnCommit(func(ctx context.Context, ev store.InstallsChanged) {
			h.publish(ctx, ev.UserID, dashboard.InstallsChanged())
		}),
		db.OnCommit(func(ctx context.Context, ev capabilities.InstallsChanged) {
			h.publish(ctx, ev.UserID, dashboard.InstallsChanged())
		}),
		db.OnCommit(func(_ context.Context, ev auth.CredentialEnded) { h.door.EndStreams(ev.Credential) }),
	}
	subs = append(subs, onboardingSubscriptions(s)...)
	if finished := h.cfg.Executions.Finished; finished != nil {
		subs = append(subs, db.On(func(ctx context.Context, tx *db.Tx, ev engine.ExecutionFinished) error {
			return finished(ctx, tx, ev.Execution)
		}))
	}
	return subs
}

// publish stores a stream event of a change already committed, in a unit of
// work of its own; a failure costs the live update only, so it is logged.
func (h *house) publish(ctx context.Context, userID string, ev *switchboardv1.ChatEvent) {
	if err := h.bus.Publish(ctx, userID, ev); err != nil {
		h.cfg.Logger.WarnContext(ctx, "dashboard: live event not stored", "type", ev.GetType(), "error", err)
	}
}

// onboardingSubscriptions are the real actions that complete the onboarding
// checklist's steps (RULINGS "Onboarding, sprite, admin views, the developer
// portal"), each in the action's own unit of work; an install is heard after
// its commit, as the store and the packs publish it.
func onboardingSubscriptions(s services) []db.Subscription {
	o := s.onboarding
	return []db.Subscription{
		db.On(func(ctx context.Context, tx *db.Tx, ev keys.Created) error {
			return o.Done(ctx, tx, ev.UserID, vocab.OnboardingStepAPIKey, onboardingrules.ByAction)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev settings.Saved) error {
			if !ev.Setting.QueueAutoApprove {
				return nil
			}
			return o.Done(ctx, tx, ev.Setting.UserID, vocab.OnboardingStepAutoApprove, onboardingrules.BySettings)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev contacts.Added) error {
			return o.Done(ctx, tx, ev.UserID, vocab.OnboardingStepContact, onboardingrules.ByAction)
		}),
		db.OnCommit(func(ctx context.Context, ev store.InstallsChanged) { o.Installed(ctx, ev.UserID) }),
		db.OnCommit(func(ctx context.Context, ev capabilities.InstallsChanged) { o.Installed(ctx, ev.UserID) }),
		db.On(func(ctx context.Context, tx *db.Tx, ev network.ConnectionAccepted) error {
			return o.Done(ctx, tx, ev.Connection.UserID, vocab.OnboardingStepNetwork, onboardingrules.ByAction)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev spoke.HubJoined) error {
			return o.Done(ctx, tx, ev.UserID, vocab.OnboardingStepNetwork, onboardingrules.ByAction)
		}),
		db.On(func(ctx context.Context, tx *db.Tx, ev assistant.TurnStarted) error {
			return o.Done(ctx, tx, ev.UserID, vocab.OnboardingStepAssistant, onboardingrules.ByAction)
		}),
	}
}
