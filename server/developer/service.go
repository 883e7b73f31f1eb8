// Package developer owns developer self-registration (developer.proto):
// developer signup, developer keys (sbd_…) and connect tokens (fct_…),
// registering agents through the ship-gate (health check, conformance probe in
// the real dispatch shape, a persisted ship-gate run, widget analysis),
// changing them, test-runs, and the admin's approve, reject and disable with
// the approval webhook to the source instance.
//
// Listings themselves belong to server/store: this package hands it the
// agent's fields as a StoreAgentInput, so slugs, enumerations, pricing and
// credential sealing follow the store's rules exactly; it adds the
// self-registration enumerations and the ship-gate on top.
package developer

import (
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/store"
)

// Service implements DeveloperService.
type Service struct {
	DB       *db.DB
	Now      func() time.Time
	Accounts *accounts.Service
	Store    *store.Service
	// Egress guards the health check, the probe and the approval webhook.
	Egress egress.Policy
	// Prober runs the conformance probe; the real dispatch when nil.
	Prober Prober
	Logger *slog.Logger
	// BaseURL is this instance's public URL, for registerUrl; empty gives the
	// path alone.
	BaseURL string

	proberOnce    sync.Once
	defaultProber Prober
}

// AgentDecided is published in the transaction of an admin's decision on a
// store listing: a listing synced from a spoke (SourceInstanceID set) is told
// to its spoke through the outbox; another goes by the approval webhook.
type AgentDecided struct {
	Agent  *ent.StoreAgent
	Reason *string
}

// CapabilityDecided is AgentDecided for a capability pack: a synced pack's
// decision goes to its spoke.
type CapabilityDecided struct {
	Pack   *ent.CapabilityPack
	Reason *string
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// The statuses this package moves a listing between.
const (
	statusPending  = string(vocab.ListingStatusPending)
	statusActive   = string(vocab.ListingStatusActive)
	statusRejected = string(vocab.ListingStatusRejected)
	statusDisabled = string(vocab.ListingStatusDisabled)
)
