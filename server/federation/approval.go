package federation

import (
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/auth"
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
	return Approval{Event: EventCapabilityApproval, CapabilityID: Deref(row.RemoteID), MarketplaceID: row.ID,
		Name: row.Name, Slug: Deref(row.Slug), Status: string(row.Status), Reason: reason,
		Timestamp: at.Format(time.RFC3339Nano)}
}
