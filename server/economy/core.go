// Package economy is the task economy's core (issue 29; RULINGS "The task
// economy"): contracts and the one way they change (Apply: the state
// table of server/economy/rules, the money on the client's ledger, the
// thread, activity and comms on each local side, queue items for the side
// that must act, and the move sent to the other instance through the
// outbox). The operator's EconomyService (server/economy/operator), the
// peers' EconomyPeerService (server/economy/peer) and the admin's disputes
// (server/economy/disputes) are services over one Core, cut at the trust
// boundary.
package economy

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/groups"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Queue is what contracts need of the queue (server/queue.Service): the
// items of the side that must act, made and moved in the move's unit of work.
type Queue interface {
	CreateHeld(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest,
		writer provenance.Mark) (*ent.QueueItem, error)
	LoadIn(ctx context.Context, tx *db.Tx, p *auth.Principal, id string) (*ent.QueueItem, error)
	MoveIn(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, to string) (*ent.QueueItem, error)
	RemoveIn(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, summary string) error
}

// Projects makes and closes engagement projects (server/groups.Core).
type Projects interface {
	OpenEngagement(ctx context.Context, tx *db.Tx, e groups.Engagement) (string, error)
	CloseEngagement(ctx context.Context, tx *db.Tx, projectID string) error
}

// Relays sends the offer to a connection's peer (server/network/relays.Service).
type Relays interface {
	SendRelay(ctx context.Context, req *switchboardv1.SendRelayRequest) (*switchboardv1.SendRelayResponse, error)
}

// Reputation recomputes a user's reputation after a review (server/reputation).
type Reputation func(ctx context.Context, tx *db.Tx, now time.Time, userID string) error

// Core is what the economy's services share.
type Core struct {
	DB       *db.DB
	Now      func() time.Time
	Queue    Queue
	Projects Projects
	Relays   Relays
	// Net reaches the other instance of a remote contract (the outbox) and
	// tells which connection a peer's call comes from.
	Net        *network.Core
	Reputation Reputation
	// HoldLimit is the most a client may hold open on this instance's
	// ledger across its contracts, in cents (--economy-hold-limit); 0 is
	// no limit. A hold or a raise beyond it is refused with 402.
	HoldLimit money.Cents
	Logger    *slog.Logger
	// timer is the economy's timer once started (StartTimer), which a new
	// auction wakes (Jobs.Posted).
	timer atomic.Pointer[alarm.Loop]
}

func (s *Core) now() time.Time { return s.Now().UTC() }

// DefaultCurrency is a hire's currency when neither the request nor the
// instance names one.
const DefaultCurrency = "USD"
