package store

import (
	"slices"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// viewer is who a listing is rendered for: the owner sees how the agent is
// reached, everyone sees whether they installed, subscribed to or unlocked
// it.
type viewer struct {
	userID                          string
	installed, subscribed, unlocked bool
	// admin: one of the instance's admins, who read an instance agent's kit.
	admin bool
}

// toAgent renders a listing for v. The credential is never rendered; only
// the owner learns whether one is stored.
func toAgent(a *ent.StoreAgent, v viewer) *switchboardv1.StoreAgent {
	out := &switchboardv1.StoreAgent{
		Id:                  a.ID,
		UserId:              a.UserID,
		Name:                a.Name,
		Slug:                a.Slug,
		Description:         a.Description,
		DeveloperName:       a.DeveloperName,
		Category:            a.Category,
		PricingModel:        a.PricingModel,
		PricePerTask:        a.PricePerTask.Float(),
		Currency:            a.Currency,
		PricingConfig:       toPricingConfig(a.PricingConfig),
		InstallGuide:        a.InstallGuide,
		Commands:            toCommands(a.Commands),
		TaskTypes:           nonNil(slices.Clone(a.TaskTypes)),
		ContextInstructions: a.ContextInstructions,
		SupportsA2A:         a.SupportsA2a,
		SupportsMcp:         a.SupportsMcp,
		Version:             a.Version,
		HasAccessPassword:   a.AccessPasswordHash != nil,
		InputFormat:         string(a.InputFormat),
		OutputFormat:        a.OutputFormat,
		AuthMethod:          string(a.AuthMethod),
		DeclaredWidgetTypes: nonNil(slices.Clone(a.DeclaredWidgetTypes)),
		Availability:        string(a.Availability),
		ExecutionTimeout:    int32(a.ExecutionTimeout),
		RequiredInputSchema: a.RequiredInputSchema,
		OutputSchema:        a.OutputSchema,
		UsageExamples:       a.UsageExamples,
		ContextPreparation:  a.ContextPreparation,
		ExecutionNotes:      a.ExecutionNotes,
		Status:              string(a.Status),
		RatingAvg:           a.RatingAvg,
		RatingCount:         int32(a.RatingCount),
		InstallCount:        int32(a.InstallCount),
		SubscriberCount:     int32(a.SubscriberCount),
		ExecutionCount:      int32(a.ExecutionCount),
		Installed:           v.installed,
		Subscribed:          v.subscribed,
		Unlocked:            v.unlocked,
		CreatedAt:           ts(a.CreatedAt),
		UpdatedAt:           ts(a.UpdatedAt),
		HubStatus:           a.HubStatus,
		MarketplaceId:       a.MarketplaceID,
		InstanceOwned:       a.InstanceOwned,
	}
	if v.admin && a.InstanceOwned {
		out.Kit = toKit(a)
	}
	if v.userID == a.UserID {
		out.EndpointUrl = a.EndpointURL
		out.HealthCheckUrl = a.HealthCheckURL
		out.CurrentExecutionId = a.CurrentExecutionID
		out.AuthCredentialSet = proto.Bool(a.AuthCredentialEncrypted != nil && len(*a.AuthCredentialEncrypted) > 0)
	}
	return out
}

func toPricingConfig(c *schema.PricingConfig) *switchboardv1.PricingConfig {
	if c == nil {
		return nil
	}
	out := &switchboardv1.PricingConfig{Tiers: make([]*switchboardv1.PricingTier, 0, len(c.Tiers))}
	if c.Model != "" {
		out.Model = proto.String(c.Model)
	}
	for _, t := range c.Tiers {
		out.Tiers = append(out.Tiers, &switchboardv1.PricingTier{
			Name: t.Name, PricePerTask: t.PricePerTask.Float(), TaskLimit: t.TaskLimit, Description: optional(t.Description),
		})
	}
	if d := c.DynamicConfig; d != nil {
		out.DynamicConfig = &switchboardv1.DynamicPricing{
			EstimateRange:    money.Floats(d.EstimateRange),
			RequiresApproval: d.RequiresApproval,
			Description:      optional(d.Description),
		}
	}
	return out
}

func toCommands(cs []schema.AgentCommand) []*switchboardv1.AgentCommand {
	out := make([]*switchboardv1.AgentCommand, 0, len(cs))
	for _, c := range cs {
		out = append(out, &switchboardv1.AgentCommand{Name: c.Name, Description: optional(c.Description), Usage: optional(c.Usage)})
	}
	return out
}

func toChange(e schema.ChangelogEntry) *switchboardv1.ChangelogEntry {
	return &switchboardv1.ChangelogEntry{
		Version: e.Version, Notes: optional(e.Notes), Breaking: e.Breaking,
		Fields: nonNil(slices.Clone(e.Fields)), CreatedAt: ts(e.At),
	}
}

// toChangelog renders a changelog newest first.
func toChangelog(entries []schema.ChangelogEntry) []*switchboardv1.ChangelogEntry {
	out := make([]*switchboardv1.ChangelogEntry, 0, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, toChange(entries[i]))
	}
	return out
}

func toExecution(e *ent.Execution) *switchboardv1.StoreExecution {
	out := &switchboardv1.StoreExecution{
		ExecutionId:         e.ID,
		AgentId:             derefString(e.AgentID, ""),
		Status:              string(e.Status),
		Input:               e.Input,
		Output:              e.Output,
		ResponseTimeMs:      int32p(e.ResponseTimeMs),
		IsOwnAgent:          e.IsOwnAgent,
		TaskOrigin:          string(e.TaskOrigin),
		RequesterEmail:      e.RequesterEmail,
		RequesterName:       e.RequesterName,
		QueuePosition:       int32p(e.QueuePosition),
		QueuedAt:            tsp(e.QueuedAt),
		DenialReason:        e.DenialReason,
		DenialCategory:      e.DenialCategory,
		ReviewedAt:          tsp(e.ReviewedAt),
		ReviewWidgetShownAt: tsp(e.ReviewWidgetShownAt),
		PaymentHoldStatus:   string(e.PaymentHoldStatus),
		HoldExpiresAt:       tsp(e.HoldExpiresAt),
		Rating:              int32p(e.Rating),
		Feedback:            e.Feedback,
		CreatedAt:           ts(e.CreatedAt),
		FinishedAt:          tsp(e.FinishedAt),
	}
	if e.ReviewStatus != nil {
		out.ReviewStatus = proto.String(string(*e.ReviewStatus))
	}
	if e.Gross != nil {
		out.Revenue = &switchboardv1.StoreRevenue{
			Gross: e.Gross.Float(), DeveloperPayout: money.FloatOrZero(e.DeveloperPayout), PlatformFee: money.FloatOrZero(e.PlatformFee),
			FeePercent: deref(e.FeePercent), Currency: derefString(e.Currency, "USD"),
		}
	}
	return out
}

func toMemoryEntry(m *ent.MemoryEntry) *switchboardv1.MemoryEntry {
	return &switchboardv1.MemoryEntry{Id: m.ID, Kind: m.Kind, Title: m.Title, Content: m.Content, CreatedAt: ts(m.CreatedAt)}
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t.UTC()) }

func tsp(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func int32p(v *int) *int32 {
	if v == nil {
		return nil
	}
	return proto.Int32(int32(*v))
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

func derefString(v *string, def string) string {
	if v == nil {
		return def
	}
	return *v
}
