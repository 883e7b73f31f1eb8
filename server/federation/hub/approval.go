package hub

import (
	"context"
	"encoding/json"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// EnqueueApproval writes, in the decision's transaction, the approval
// webhook of a decision on a synced listing for its spoke, through the
// outbox (retries, breaker, the spoke's credential read at send time).
// handled is false for a listing that was not synced from an instance.
func (h *Admin) EnqueueApproval(ctx context.Context, tx *db.Tx, row *ent.StoreAgent, reason *string) (handled bool, err error) {
	if row.SourceInstanceID == nil {
		return false, nil
	}
	return true, h.enqueueDecision(ctx, tx, *row.SourceInstanceID, row.UserID, federation.ApprovalOf(row, reason, h.hub.now()))
}

// EnqueueCapabilityApproval is EnqueueApproval for a capability pack; a
// local pack has nobody to tell.
func (h *Admin) EnqueueCapabilityApproval(ctx context.Context, tx *db.Tx, row *ent.CapabilityPack, reason *string) error {
	if row.SourceInstanceID == nil || row.RemoteID == nil {
		return nil
	}
	return h.enqueueDecision(ctx, tx, *row.SourceInstanceID, row.UserID, federation.CapabilityApprovalOf(row, reason, h.hub.now()))
}

// enqueueDecision puts ev in the outbox for instance id, unless it left.
func (h *Admin) enqueueDecision(ctx context.Context, tx *db.Tx, instanceID, userID string, ev federation.Approval) error {
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
		UserID: userID, Event: ev.Event, URL: inst.BaseURL + federation.WebhookPath,
		Headers: map[string]string{"X-Service-Event": ev.Event}, Body: body, At: h.hub.now(), InstanceID: inst.ID,
	})
}

// Credential is the header the hub's outbox adds to a delivery for
// instance id: its own secret, opened now. An instance that left or is gone
// is not found.
func (h *Core) Credential(ctx context.Context, id string) (header, value string, found bool, err error) {
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
	return federation.InstanceHeader, secret, true, nil
}
