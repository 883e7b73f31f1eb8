package capabilities

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/page"
)

// ListCapabilities browses every pack, newest first, for the caller.
func (s *Service) ListCapabilities(ctx context.Context, req *switchboardv1.ListCapabilitiesRequest) (*switchboardv1.ListCapabilitiesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	// Synced packs waiting for review (or suspended) are not in the
	// catalogue; local packs are always active.
	where := []predicate.CapabilityPack{capabilitypack.StatusEQ(capabilitypack.StatusActive)}
	// The contract bounds category and search (1,000 characters of text).
	if c := strings.TrimSpace(req.GetCategory()); c != "" {
		where = append(where, capabilitypack.Category(c))
	}
	if q := strings.TrimSpace(req.GetSearch()); q != "" {
		where = append(where, predicate.CapabilityPack(db.ContainsFolded(s.DB.Dialect, db.FoldASCII(q),
			capabilitypack.FieldName, capabilitypack.FieldDescription, capabilitypack.FieldCategory)))
	}
	if req.GetInstalled() {
		where = append(where, capabilitypack.HasInstallsWith(
			capabilityinstall.UserID(p.UserID), capabilityinstall.Active(true)))
	}
	total, err := s.DB.CapabilityPack.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, err
	}
	var rows []*ent.CapabilityPack
	if pg.Offset < total {
		rows, err = s.DB.CapabilityPack.Query().Where(where...).
			Order(ent.Desc(capabilitypack.FieldCreatedAt), ent.Desc(capabilitypack.FieldID)).
			Offset(pg.Offset).Limit(pg.Limit).All(ctx)
		if err != nil {
			return nil, err
		}
	}
	installs, err := s.installsOf(ctx, p.UserID, rows)
	if err != nil {
		return nil, err
	}
	connected, err := s.connectedSet(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListCapabilitiesResponse{
		Capabilities: make([]*switchboardv1.CapabilityPack, 0, len(rows)), Pagination: pg.Of(total, len(rows)),
	}
	for _, r := range rows {
		v, err := s.toPack(p.UserID, r, installs[r.ID], connected)
		if err != nil {
			return nil, err
		}
		out.Capabilities = append(out.Capabilities, v)
	}
	return out, nil
}

// installsOf answers the caller's installation rows of the page's packs in
// one query.
func (s *Service) installsOf(ctx context.Context, userID string, rows []*ent.CapabilityPack) (map[string]*ent.CapabilityInstall, error) {
	out := map[string]*ent.CapabilityInstall{}
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	got, err := s.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.CapabilityIDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range got {
		out[g.CapabilityID] = g
	}
	return out, nil
}

// ListSmartTasks answers the caller's handlers as the capability gate sees
// them: installed active store agents (oldest installation first), then the
// built-ins (ids builtin_<name>, category builtin).
func (s *Service) ListSmartTasks(ctx context.Context, _ *switchboardv1.ListSmartTasksRequest) (*switchboardv1.ListSmartTasksResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := s.Gate.Inventory(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListSmartTasksResponse{Tasks: make([]*switchboardv1.SmartTask, 0, len(inv.Agents)+len(capgate.Builtins))}
	for _, a := range inv.Agents {
		out.Tasks = append(out.Tasks, &switchboardv1.SmartTask{
			AgentId: a.ID, AgentName: a.Name, AgentSlug: a.Slug, Description: a.Description, Category: a.Category,
			TaskTypes: nonNil(a.TaskTypes), SamplePrompts: samples(a.UsageExamples),
			RequiredInputSchema: a.RequiredInputSchema, ContextInstructions: a.ContextInstructions,
			ExecutionNotes: a.ExecutionNotes, InputFormat: a.InputFormat,
		})
	}
	builtin := "builtin"
	for _, b := range capgate.Builtins {
		desc := b.Description
		out.Tasks = append(out.Tasks, &switchboardv1.SmartTask{
			AgentId: b.ID(), AgentName: b.Title, AgentSlug: b.Name, Description: &desc, Category: &builtin,
			TaskTypes: b.Domains, SamplePrompts: b.SamplePrompts, InputFormat: "text",
		})
	}
	return out, nil
}

// maxSamples is how many sample prompts an agent's entry carries.
const maxSamples = 5

// samples are the listing's usage examples, one per non-blank line, at most
// maxSamples: the store keeps usageExamples as free text.
func samples(usage *string) []string {
	out := []string{}
	if usage == nil {
		return out
	}
	for _, line := range strings.Split(*usage, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•"))
		if line != "" && len(out) < maxSamples {
			out = append(out, line)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
