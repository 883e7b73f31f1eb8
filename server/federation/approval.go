package federation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// WebhookPath is where a spoke hears the hub's decisions on its listings.
const WebhookPath = "/api/marketplace/webhook"

// InstanceHeader carries the spoke's own secret on the hub's calls to it.
const InstanceHeader = auth.FederationTokenHeader

// EventAgentApproval names the approval webhook (its event and
// X-Service-Event).
const EventAgentApproval = "agent_approval"

// EventCapabilityApproval names the approval webhook of a capability pack:
// the same body with capabilityId in place of agentId
// (docs/decisions.md "Federation platform routes (issue 14)").
const EventCapabilityApproval = "capability_approval"

// Approval is the approval webhook's body: agentId for agent_approval,
// capabilityId for capability_approval.
type Approval struct {
	Event         string  `json:"event"`
	AgentID       string  `json:"agentId,omitempty"`
	CapabilityID  string  `json:"capabilityId,omitempty"`
	MarketplaceID string  `json:"marketplaceId"`
	Name          string  `json:"name"`
	Slug          string  `json:"slug"`
	Status        string  `json:"status"`
	Reason        *string `json:"reason"`
	Timestamp     string  `json:"timestamp"`
}

// ApprovalOf is the approval webhook's body for a decision on row at: the
// agent is named by its id on the source instance when it was synced.
func ApprovalOf(row *ent.StoreAgent, reason *string, at time.Time) Approval {
	agentID := row.ID
	if row.RemoteID != nil {
		agentID = *row.RemoteID
	}
	return Approval{Event: EventAgentApproval, AgentID: agentID, MarketplaceID: row.ID, Name: row.Name,
		Slug: row.Slug, Status: string(row.Status), Reason: reason, Timestamp: at.Format(time.RFC3339Nano)}
}

// CapabilityApprovalOf is the webhook's body for a decision on a synced
// capability pack, named by its id on its spoke.
func CapabilityApprovalOf(row *ent.CapabilityPack, reason *string, at time.Time) Approval {
	return Approval{Event: EventCapabilityApproval, CapabilityID: deref(row.RemoteID), MarketplaceID: row.ID,
		Name: row.Name, Slug: deref(row.Slug), Status: string(row.Status), Reason: reason,
		Timestamp: at.Format(time.RFC3339Nano)}
}

// EnqueueApproval writes, in the decision's transaction, the approval
// webhook of a decision on a synced listing for its spoke, through the
// outbox (retries, breaker, the spoke's credential read at send time).
// handled is false for a listing that was not synced from an instance.
func (h *HubAdmin) EnqueueApproval(ctx context.Context, tx *db.Tx, row *ent.StoreAgent, reason *string) (handled bool, err error) {
	if row.SourceInstanceID == nil {
		return false, nil
	}
	return true, h.enqueueDecision(ctx, tx, *row.SourceInstanceID, row.UserID, ApprovalOf(row, reason, h.hub.now()))
}

// EnqueueCapabilityApproval is EnqueueApproval for a capability pack; a
// local pack has nobody to tell.
func (h *HubAdmin) EnqueueCapabilityApproval(ctx context.Context, tx *db.Tx, row *ent.CapabilityPack, reason *string) error {
	if row.SourceInstanceID == nil || row.RemoteID == nil {
		return nil
	}
	return h.enqueueDecision(ctx, tx, *row.SourceInstanceID, row.UserID, CapabilityApprovalOf(row, reason, h.hub.now()))
}

// enqueueDecision puts ev in the outbox for instance id, unless it left.
func (h *HubAdmin) enqueueDecision(ctx context.Context, tx *db.Tx, instanceID, userID string, ev Approval) error {
	inst, err := tx.FederationInstance.Get(ctx, instanceID)
	if ent.IsNotFound(err) || (err == nil && inst.LeftAt != nil) {
		return nil // nobody to tell
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return webhooks.EnqueueForward(ctx, tx, webhooks.Forward{
		UserID: userID, Event: ev.Event, URL: inst.BaseURL + WebhookPath,
		Headers: map[string]string{"X-Service-Event": ev.Event}, Body: body, At: h.hub.now(), InstanceID: inst.ID,
	})
}

// Credential is the header the hub's outbox adds to a delivery for
// instance id: its own secret, opened now. An instance that left or is gone
// is not found.
func (h *Hub) Credential(ctx context.Context, id string) (header, value string, found bool, err error) {
	inst, err := h.DB.FederationInstance.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && inst.LeftAt != nil) {
		return "", "", false, nil
	}
	if err != nil || h.Secrets == nil {
		return "", "", false, err
	}
	secret, err := h.Secrets.OpenText(inst.APIKeySealed, secretAAD(inst.ID))
	if err != nil {
		return "", "", false, err
	}
	return InstanceHeader, secret, true, nil
}
