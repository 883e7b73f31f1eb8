// Package groups is how operators group themselves and their work (issue
// 28; RULINGS "Teams, projects, invites, profiles"): Teams, TeamService (teams,
// their members, token invites, projects assigned to them) and
// Projects, ProjectService (projects, their members by role, invites answered from
// the invitee's queue). Who may do what is rules.go's; whether a request
// may see a team or project at all is access.go's (a non-member's id is
// 404, a member lacking the right 403). The queue and the board check a
// projectId through server/membership, which this package writes.
package groups

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

var (
	_ switchboardv1connect.TeamServiceHandler    = (*Teams)(nil)
	_ switchboardv1.TeamServiceServer            = (*Teams)(nil)
	_ switchboardv1connect.ProjectServiceHandler = (*Projects)(nil)
	_ switchboardv1.ProjectServiceServer         = (*Projects)(nil)
)

// Queue is what an invite needs of the queue (server/queue.Service): the
// invitee's item, created and removed in the invite's unit of work.
type Queue interface {
	CreateHeld(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.CreateQueueItemRequest,
		writer provenance.Mark) (*ent.QueueItem, error)
	Discard(ctx context.Context, tx *db.Tx, userID, itemID string) error
	Finish(ctx context.Context, userID, itemID, summary string) error
}

// Core is what the two services share: the database, the clock, the
// queue and the network they reach, and the writes both make (joining,
// assigning, answering invites); it also hears the queue's and the
// network's events (server/subscriptions.go).
type Core struct {
	DB    *db.DB
	Now   func() time.Time
	Queue Queue
	// Billing charges platform teams' plans (billing.go).
	Billing Charger
	// Relays and Notify reach a connection's peer (remote.go).
	Relays Relays
	Notify Notifier
	// PublicURL is the instance's address, for invite links; "" makes them
	// relative to the dashboard.
	PublicURL string
	// Platform is true on the managed platform (--role hub), where a team
	// made without originInstanceUrl is not self-hosted.
	Platform bool
	Logger   *slog.Logger
}

func (s *Core) now() time.Time { return s.Now().UTC() }

// Teams implements TeamService.
type Teams struct{ core *Core }

// Projects implements ProjectService.
type Projects struct{ core *Core }

// New makes the two services over one core.
func New(core *Core) (*Teams, *Projects) { return &Teams{core: core}, &Projects{core: core} }
