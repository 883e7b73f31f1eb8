package developer

import (
	"context"
	"encoding/json"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// enqueueApproval puts the approval webhook of a self-registered listing's
// decision in the outbox, in the decision's transaction (RULINGS "Details
// for the house issue"): only to an instance joined to this hub, at its
// verified baseUrl, with its key (X-Federation-Token, added by the hub's
// outbox credential), on the federation retry schedule. A listing whose
// instance has left, or that names none, has nobody to tell.
func (s *Service) enqueueApproval(ctx context.Context, tx *db.Tx, a *ent.StoreAgent, reason *string) error {
	if a.SourceInstanceURL == nil {
		return nil
	}
	inst, err := tx.FederationInstance.Query().Where(federationinstance.BaseURL(*a.SourceInstanceURL),
		federationinstance.LeftAtIsNil()).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ev := federation.ApprovalOf(a, reason, s.now())
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return webhooks.EnqueueForward(ctx, tx, webhooks.Forward{
		UserID: a.UserID, Event: ev.Event, URL: inst.BaseURL + federation.WebhookPath,
		Headers: map[string]string{"X-Service-Event": ev.Event}, Body: body, At: s.now(), InstanceID: inst.ID,
	})
}
