package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// User is an account: the operator of one command center.
type User struct{ ent.Schema }

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("username").Unique().NotEmpty().MaxLen(30),
		// Stored lowercased so that uniqueness ignores case.
		field.String("email").Unique().NotEmpty().MaxLen(254),
		field.String("name").NotEmpty().MaxLen(500),
		field.String("password_hash").Sensitive(),
		field.Enum("role").Values(vocab.Values("user_role")...).Default("member"),
		field.String("avatar").Optional().Nillable(),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("sessions", Session.Type),
		edge.To("api_keys", APIKey.Type),
		edge.To("settings", Setting.Type).Unique(),
		edge.To("queue_items", QueueItem.Type),
		edge.To("cards", Card.Type),
		edge.To("checklist_items", ChecklistItem.Type),
		edge.To("contacts", Contact.Type),
		edge.To("card_contacts", CardContact.Type),
		edge.To("chat_messages", ChatMessage.Type),
		edge.To("assistant_messages", AssistantMessage.Type),
		edge.To("activity_entries", ActivityEntry.Type),
		edge.To("store_agents", StoreAgent.Type),
		edge.To("executions", Execution.Type),
		edge.To("webhook_deliveries", WebhookDelivery.Type),
		edge.To("stream_events", StreamEvent.Type),
		edge.To("store_installs", StoreInstall.Type),
		edge.To("store_subscriptions", StoreSubscription.Type),
		edge.To("store_unlocks", StoreUnlock.Type),
		edge.To("memory_entries", MemoryEntry.Type),
		edge.To("capability_packs", CapabilityPack.Type),
		edge.To("capability_installs", CapabilityInstall.Type),
		edge.To("connect_tokens", ConnectToken.Type),
		edge.To("network_connections", NetworkConnection.Type),
		edge.To("relays", Relay.Type),
		edge.To("network_preference", NetworkPreference.Type).Unique(),
		edge.To("developer_keys", DeveloperKey.Type),
		edge.To("quality_signals", AgentQualitySignal.Type),
		edge.To("reputation", UserReputation.Type).Unique(),
		edge.To("documents", Document.Type),
		edge.To("a2a_tasks", A2ATask.Type),
		edge.To("notifications", Notification.Type),
		edge.To("inbound_webhooks", InboundWebhook.Type),
		edge.To("work_pattern", WorkPattern.Type).Unique(),
		edge.To("peer_patterns", PeerPattern.Type),
		edge.To("jobs", Job.Type),
		edge.To("provider_capabilities", ProviderCapability.Type),
		edge.To("calendar_events", CalendarEvent.Type),
		edge.To("behavior_signals", BehaviorSignal.Type),
		edge.To("learnings", Learning.Type),
		// The developer portal: the account's team, the teams it is a
		// member of, and its widget templates.
		edge.To("developer_team", DeveloperTeamMember.Type),
		edge.To("developer_memberships", DeveloperTeamMember.Type),
		edge.To("widget_templates", WidgetTemplate.Type),
	}
}
