package capabilities

import (
	"context"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
)

// maxSamples is how many sample prompts an agent's entry carries.
const maxSamples = 5

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
		return nil, apperr.Internal(err)
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
