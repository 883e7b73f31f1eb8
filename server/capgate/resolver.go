package capgate

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
)

// Resolver reads an account's handlers from the database.
type Resolver struct {
	DB *ent.Client
}

// Inventory answers the account's installed store agents that are active
// (a suspended or disabled listing takes no task), oldest installation
// first, and its active capability packs, oldest first.
func (r *Resolver) Inventory(ctx context.Context, userID string) (Inventory, error) {
	var inv Inventory
	installs, err := r.DB.StoreInstall.Query().
		Where(storeinstall.UserID(userID), storeinstall.HasStoreAgentWith(storeagent.StatusEQ(storeagent.StatusActive))).
		WithStoreAgent().Order(ent.Asc(storeinstall.FieldCreatedAt), ent.Asc(storeinstall.FieldID)).All(ctx)
	if err != nil {
		return inv, fmt.Errorf("capgate: installed agents: %w", err)
	}
	for _, in := range installs {
		a := in.Edges.StoreAgent
		inv.Agents = append(inv.Agents, Agent{
			ID: a.ID, Name: a.Name, Slug: a.Slug, Description: a.Description, Category: a.Category,
			TaskTypes: a.TaskTypes, UsageExamples: a.UsageExamples, RequiredInputSchema: a.RequiredInputSchema,
			ContextInstructions: a.ContextInstructions, ExecutionNotes: a.ExecutionNotes, InputFormat: string(a.InputFormat),
		})
	}
	caps, err := r.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.Active(true)).
		WithCapability().Order(ent.Asc(capabilityinstall.FieldCreatedAt), ent.Asc(capabilityinstall.FieldID)).All(ctx)
	if err != nil {
		return inv, fmt.Errorf("capgate: installed capabilities: %w", err)
	}
	for _, in := range caps {
		c := in.Edges.Capability
		inv.Capabilities = append(inv.Capabilities, Capability{
			ID: c.ID, Name: c.Name, Category: deref(c.Category), IntegrationType: deref(c.IntegrationType),
		})
	}
	return inv, nil
}

// Check answers the account's handler for a task of taskType; ok is false
// when none exists and no item may be created.
func (r *Resolver) Check(ctx context.Context, userID, taskType string) (h Handler, ok bool, err error) {
	inv, err := r.Inventory(ctx, userID)
	if err != nil {
		return Handler{}, false, err
	}
	h, ok = Check(inv, taskType)
	return h, ok, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
