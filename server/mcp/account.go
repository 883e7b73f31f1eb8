package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	c "github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capabilities"
	"github.com/switchboard-hq/switchboard/server/input"
)

// storeToolPrefix names the tool of an installed store agent:
// marketplace_{slug}.
const storeToolPrefix = "marketplace_"

// syncAccount makes an account's server hold one tool per installed store
// agent and one prompt per installed capability pack. The SDK announces a
// changed list to the account's open sessions (notifications/*/list_changed).
func (s *Server) syncAccount(ctx context.Context, a *account, userID string) error {
	installs, err := s.cfg.DB.StoreInstall.Query().
		Where(storeinstall.UserID(userID), storeinstall.HasStoreAgentWith(storeagent.StatusEQ(storeagent.StatusActive))).
		WithStoreAgent().All(ctx)
	if err != nil {
		return err
	}
	packs, err := s.cfg.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.Active(true)).
		WithCapability().All(ctx)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()

	want := map[string]*tool{}
	for _, in := range installs {
		t := s.storeTool(in.Edges.StoreAgent)
		want[t.name] = t
	}
	gone, added := changes(a.store, want)
	if len(gone) > 0 {
		a.server.RemoveTools(gone...)
	}
	for _, name := range added {
		a.server.AddTool(want[name].sdkTool(), want[name].handler(s))
	}
	a.store = want

	prompts := map[string]*ent.CapabilityInstall{}
	for _, in := range packs {
		if in.Edges.Capability != nil {
			prompts[promptName(in.Edges.Capability)] = in
		}
	}
	gone, added = changes(a.prompts, prompts)
	if len(gone) > 0 {
		a.server.RemovePrompts(gone...)
	}
	for _, name := range added {
		pack := prompts[name].Edges.Capability
		a.server.AddPrompt(packPrompt(pack), s.packHandler(pack.ID))
	}
	a.prompts = prompts
	return nil
}

// changes names what is in have and not in want (gone), and what is in want
// and not in have (added), each sorted.
func changes[V any](have, want map[string]V) (gone, added []string) {
	for name := range have {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	for name := range want {
		if _, ok := have[name]; !ok {
			added = append(added, name)
		}
	}
	slices.Sort(gone)
	slices.Sort(added)
	return gone, added
}

// storeTool is the tool of one installed store agent: it runs the execution
// contract with the caller's input, as POST /api/marketplace/{id}/execute.
func (s *Server) storeTool(agent *ent.StoreAgent) *tool {
	desc := agent.Name
	if agent.Description != nil && *agent.Description != "" {
		desc += ": " + *agent.Description
	}
	exec := &switchboardv1.ExecuteStoreAgentRequest{}
	t := &tool{
		name: storeToolPrefix + agent.Slug, title: agent.Name,
		description: desc + " (runs the store agent; answers its output, its quote or its queue position)",
		calls:       []string{c.StoreExecutionServiceExecuteStoreAgentProcedure},
		input: object([]string{"input"}, map[string]*jsonschema.Schema{
			"input": arg(exec, "input", "the task for the agent"),
		}),
		output: (&switchboardv1.ExecuteStoreAgentResponse{}).ProtoReflect().Descriptor(),
	}
	id := agent.ID
	t.run = with(func(ctx context.Context, _ *auth.Principal, a struct {
		Input string `json:"input"`
	}) (any, error) {
		return input.Call(ctx, s.cfg.Executions.ExecuteStoreAgent, &switchboardv1.ExecuteStoreAgentRequest{Id: id, Input: a.Input})
	})
	if err := t.bind(s.cfg.Table); err != nil {
		panic(err) // the procedure is the contract's own
	}
	return t
}

// promptName is a pack's prompt: its id, which is unique and stable.
func promptName(pack *ent.CapabilityPack) string { return "pack_" + pack.ID }

func packPrompt(pack *ent.CapabilityPack) *sdk.Prompt {
	p := &sdk.Prompt{Name: promptName(pack), Title: pack.Name}
	if pack.Description != nil {
		p.Description = *pack.Description
	}
	for _, f := range pack.EditableFields {
		p.Arguments = append(p.Arguments, &sdk.PromptArgument{
			Name: f.Name, Title: f.Label,
			Description: fmt.Sprintf("%s (default %q)", f.Label, f.Default),
		})
	}
	return p
}

// packHandler resolves a pack's template for the caller: an argument wins,
// then the caller's saved customization, then the field's default.
func (s *Server) packHandler(packID string) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		p, err := callerOf(req.Extra)
		if err != nil {
			return nil, err
		}
		if !p.HasScope("store") {
			return nil, fmt.Errorf(`API key lacks the "store" scope, which capability pack prompts need`)
		}
		in, err := s.cfg.DB.CapabilityInstall.Query().
			Where(capabilityinstall.UserID(p.UserID), capabilityinstall.CapabilityID(packID), capabilityinstall.Active(true)).
			WithCapability().Only(ctx)
		if err != nil {
			return nil, fmt.Errorf("prompt %q is not installed", req.Params.Name)
		}
		pack := in.Edges.Capability
		defaults := map[string]string{}
		for _, f := range pack.EditableFields {
			defaults[f.Name] = f.Default
		}
		values := maps.Clone(in.Customizations)
		if values == nil {
			values = map[string]string{}
		}
		for k, v := range req.Params.Arguments {
			if v != "" {
				values[k] = v
			}
		}
		text, _ := capabilities.Resolve(pack.Prompt, defaults, values)
		res := &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}
		if pack.Description != nil {
			res.Description = *pack.Description
		}
		return res, nil
	}
}
