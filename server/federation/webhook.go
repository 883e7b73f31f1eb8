package federation

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
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// maxWebhook caps an approval webhook's body.
const maxWebhook = 64 << 10

// TypeHubDecision is the comms message telling a listing's owner of the
// hub's decision.
const TypeHubDecision = "store_hub_decision"

// decisions are the statuses a hub decides.
var decisions = []string{"active", "rejected", "disabled"}

// Webhook answers POST WebhookPath: the hub's decision on one of this
// instance's listings, presented with this instance's own secret. A decision
// older than the last one applied is acknowledged and ignored.
func (s *Spoke) Webhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		applied, err := s.webhook(r)
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]bool{"success": true, "applied": applied})
	})
}

func (s *Spoke) webhook(r *http.Request) (bool, error) {
	ctx := r.Context()
	m, err := s.membership(ctx, s.DB.Client)
	if err != nil {
		return false, apperr.Internal(err)
	}
	token := r.Header.Get(InstanceHeader)
	if m == nil || m.APIKeyHash == nil || !strings.HasPrefix(token, InstanceKeyPrefix) ||
		!sameHash(auth.HashToken(token), *m.APIKeyHash) {
		return false, apperr.Unauthenticated("invalid %s: the webhook takes this instance's secret (%s…) from its hub", InstanceHeader, InstanceKeyPrefix)
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
	var ev Approval
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return false, apperr.Invalid("the body must be the approval JSON: %s", err)
	}
	var missing []string
	for name, v := range map[string]string{"event": ev.Event, "agentId": ev.AgentID, "marketplaceId": ev.MarketplaceID,
		"status": ev.Status, "timestamp": ev.Timestamp} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return false, apperr.Invalid("missing fields: %s", strings.Join(missing, ", "))
	}
	if ev.Event != EventAgentApproval {
		return false, apperr.Invalid("event must be %s", EventAgentApproval)
	}
	if !slices.Contains(decisions, ev.Status) {
		return false, apperr.OneOf("status", ev.Status, decisions)
	}
	at, err := time.Parse(time.RFC3339Nano, ev.Timestamp)
	if err != nil {
		return false, apperr.Invalid("timestamp must be an RFC 3339 time")
	}
	applied := false
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := s.DB.Serialize(ctx, tx, "store_agent:"+ev.AgentID); err != nil {
			return apperr.Internal(err)
		}
		row, err := tx.StoreAgent.Query().Where(storeagent.ID(ev.AgentID), storeagent.SourceInstanceIDIsNil()).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("no listing %q on this instance", ev.AgentID)
		} else if err != nil {
			return apperr.Internal(err)
		}
		if row.HubDecidedAt != nil && !at.After(*row.HubDecidedAt) {
			return nil // an older (or replayed) decision
		}
		err = tx.StoreAgent.UpdateOneID(row.ID).SetHubStatus(ev.Status).SetMarketplaceID(ev.MarketplaceID).
			SetHubDecidedAt(at).Exec(ctx)
		if err != nil {
			return apperr.Internal(err)
		}
		applied = true
		return s.tellOwner(ctx, tx, row, ev)
	})
	return applied, err
}

// tellOwner writes the decision into the owner's comms.
func (s *Spoke) tellOwner(ctx context.Context, tx *db.Tx, row *ent.StoreAgent, ev Approval) error {
	assistant := "assistant"
	if st, err := tx.Setting.Query().Where(setting.UserID(row.UserID)).Only(ctx); err == nil && st.AssistantName != "" {
		assistant = st.AssistantName
	}
	verb := map[string]string{"active": "approved", "rejected": "rejected", "disabled": "disabled"}[ev.Status]
	text := fmt.Sprintf("The hub %s your listing %q.", verb, row.Name)
	if ev.Reason != nil && *ev.Reason != "" {
		text += " Reason: " + *ev.Reason
	}
	m, err := comms.Post(ctx, tx, s.now(), row.UserID, text, assistant, map[string]any{
		"type": TypeHubDecision, "agentId": row.ID, "marketplaceId": ev.MarketplaceID, "status": ev.Status,
	})
	if err != nil {
		return apperr.Internal(err)
	}
	tx.Emit(db.Event{UserID: m.UserID, Body: events.NewMessage(m)})
	return nil
}
