package spoke

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/store"
)

// maxWebhook caps an approval webhook's body.
const maxWebhook = 64 << 10

// TypeHubDecision is the comms message telling a listing's owner of the
// hub's decision.
const TypeHubDecision = "store_hub_decision"

// decisions are the statuses a hub decides.
var decisions = []string{store.StatusActive, store.StatusRejected, store.StatusDisabled}

// Webhook answers POST WebhookPath: the hub's decision on one of this
// instance's listings, presented with this instance's own secret. A decision
// older than the last one applied is acknowledged and ignored.
func (s *Inbound) Webhook() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		applied, err := s.webhook(r)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]bool{"success": true, "applied": applied})
		return nil
	}
}

func (s *Inbound) webhook(r *http.Request) (bool, error) {
	ctx := r.Context()
	m, err := s.spoke.OwnSecret(ctx, r.Header.Get(federation.InstanceHeader))
	if err != nil {
		return false, err
	}
	if m == nil {
		return false, apperr.Unauthenticated("invalid %s: the webhook takes this instance's secret (%s…) from its hub", federation.InstanceHeader, auth.InstanceKeyPrefix)
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxWebhook+1))
	if err != nil {
		return false, apperr.Invalid("the body could not be read")
	}
	if len(raw) > maxWebhook {
		return false, apperr.TooLarge("the body is over %d bytes", maxWebhook)
	}
	if !utf8.Valid(raw) || bytes.Contains(raw, []byte(`\u0000`)) {
		return false, apperr.Invalid("the body must be valid UTF-8 without NUL characters")
	}
	var ev federation.Approval
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return false, apperr.Invalid("the body must be the approval JSON: %s", err)
	}
	if ev.Event != federation.EventAgentApproval && ev.Event != federation.EventCapabilityApproval {
		return false, apperr.Invalid("event must be %s or %s", federation.EventAgentApproval, federation.EventCapabilityApproval)
	}
	idField, id, other := "agentId", ev.AgentID, ev.CapabilityID
	if ev.Event == federation.EventCapabilityApproval {
		idField, id, other = "capabilityId", ev.CapabilityID, ev.AgentID
	}
	if other != "" {
		return false, apperr.Invalid("%s takes %s alone (agentId for %s, capabilityId for %s)", ev.Event, idField,
			federation.EventAgentApproval, federation.EventCapabilityApproval)
	}
	var missing []string
	for name, v := range map[string]string{idField: id, "marketplaceId": ev.MarketplaceID,
		"status": ev.Status, "timestamp": ev.Timestamp} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return false, apperr.Invalid("missing fields: %s", strings.Join(missing, ", "))
	}
	if !slices.Contains(decisions, ev.Status) {
		return false, apperr.OneOf("status", ev.Status, decisions)
	}
	at, err := time.Parse(time.RFC3339Nano, ev.Timestamp)
	if err != nil {
		return false, apperr.Invalid("timestamp must be an RFC 3339 time")
	}
	applied := false
	err = s.spoke.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		if ev.Event == federation.EventCapabilityApproval {
			applied, err = s.applyCapability(ctx, tx, ev, at)
		} else {
			applied, err = s.applyAgent(ctx, tx, ev, at)
		}
		return err
	})
	return applied, err
}

// ownRow is what a decision needs of this instance's own listing or pack.
type ownRow struct {
	id, userID, name string
	decidedAt        *time.Time
}

// applyDecision records the hub's decision on one of this instance's own
// listings or packs (kind), under its lock, unless one as new was applied,
// and tells its owner.
func (s *Inbound) applyDecision(ctx context.Context, tx *db.Tx, kind, lockKey, id string, ev federation.Approval, at time.Time,
	load func() (ownRow, error), record func(id string) error) (bool, error) {
	if err := s.spoke.DB.Serialize(ctx, tx, lockKey); err != nil {
		return false, err
	}
	row, err := load()
	if ent.IsNotFound(err) {
		return false, apperr.NotFound("no %s %q on this instance", kind, id)
	} else if err != nil {
		return false, err
	}
	if row.decidedAt != nil && !at.After(*row.decidedAt) {
		return false, nil // an older (or replayed) decision
	}
	if err := record(row.id); err != nil {
		return false, err
	}
	return true, s.tellOwner(ctx, tx, row.userID, kind, row.id, row.name, ev)
}

func (s *Inbound) applyAgent(ctx context.Context, tx *db.Tx, ev federation.Approval, at time.Time) (bool, error) {
	return s.applyDecision(ctx, tx, "listing", "store_agent:"+ev.AgentID, ev.AgentID, ev, at,
		func() (ownRow, error) {
			r, err := tx.StoreAgent.Query().Where(storeagent.ID(ev.AgentID), storeagent.SourceInstanceIDIsNil()).Only(ctx)
			if err != nil {
				return ownRow{}, err
			}
			return ownRow{id: r.ID, userID: r.UserID, name: r.Name, decidedAt: r.HubDecidedAt}, nil
		},
		func(id string) error {
			return tx.StoreAgent.UpdateOneID(id).SetHubStatus(ev.Status).SetMarketplaceID(ev.MarketplaceID).
				SetHubDecidedAt(at).Exec(ctx)
		})
}

func (s *Inbound) applyCapability(ctx context.Context, tx *db.Tx, ev federation.Approval, at time.Time) (bool, error) {
	return s.applyDecision(ctx, tx, "capability", "capability_pack:"+ev.CapabilityID, ev.CapabilityID, ev, at,
		func() (ownRow, error) {
			r, err := tx.CapabilityPack.Query().
				Where(capabilitypack.ID(ev.CapabilityID), capabilitypack.SourceInstanceIDIsNil()).Only(ctx)
			if err != nil {
				return ownRow{}, err
			}
			return ownRow{id: r.ID, userID: r.UserID, name: r.Name, decidedAt: r.HubDecidedAt}, nil
		},
		func(id string) error {
			return tx.CapabilityPack.UpdateOneID(id).SetHubStatus(ev.Status).SetMarketplaceID(ev.MarketplaceID).
				SetHubDecidedAt(at).Exec(ctx)
		})
}

// tellOwner writes the decision on the owner's listing or capability
// (kind) into the owner's comms.
func (s *Inbound) tellOwner(ctx context.Context, tx *db.Tx, userID, kind, id, name string, ev federation.Approval) error {
	assistant := "assistant"
	if st, err := tx.Setting.Query().Where(setting.UserID(userID)).Only(ctx); err == nil && st.AssistantName != "" {
		assistant = st.AssistantName
	}
	verb := map[string]string{store.StatusActive: "approved", store.StatusRejected: "rejected", store.StatusDisabled: store.StatusDisabled}[ev.Status]
	text := fmt.Sprintf("The hub %s your %s %q.", verb, kind, name)
	if ev.Reason != nil && *ev.Reason != "" {
		text += " Reason: " + *ev.Reason
	}
	meta := map[string]any{"type": TypeHubDecision, "marketplaceId": ev.MarketplaceID, "status": ev.Status}
	if kind == "capability" {
		meta["capabilityId"] = id
	} else {
		meta["agentId"] = id
	}
	m, err := comms.Post(ctx, tx, s.spoke.now(), userID, text, assistant, meta)
	if err != nil {
		return err
	}
	tx.Emit(db.Event{UserID: m.UserID, Body: events.NewMessage(m)})
	return nil
}
