package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, capabilityFixtures) }

// fullCapability is a paid pack as its owner sees it once installed and
// customized: every field set, the password value shown.
func fullCapability() *switchboardv1.CapabilityPack {
	return &switchboardv1.CapabilityPack{
		CapabilityId: "ckx3a0a1b0000qzrmcapack01", UserId: "ckx1f0a9z0000qzrmn831i7rn",
		Name: "Inbox Triage", Description: proto.String("Sorts the inbox \"by urgency\".\nDrafts replies."),
		Icon: proto.String("✉️"), Category: proto.String("email"), IntegrationType: proto.String("email"),
		PricingModel: "one_time", Price: 4.99,
		Prompt:               proto.String("Triage mail for {{owner}} in a {{tone}} tone."),
		EditableFields:       `[{"name":"owner","label":"Owner","type":"text","default":""},{"name":"tone","label":"Tone","type":"text","default":"warm"}]`,
		AccessPassword:       proto.String("letmein-please"),
		HasAccessPassword:    true,
		IntegrationConnected: true,
		Installed:            true,
		Customizations:       map[string]string{"owner": "Ada", "tone": "dry"},
		ResolvedPrompt:       proto.String("Triage mail for Ada in a dry tone."),
		CreatedAt:            tsCreated, UpdatedAt: tsAgentChanged,
	}
}

// sparseCapability is a free pack another account has not installed: no
// prompt, no optional field, no customizations.
func sparseCapability() *switchboardv1.CapabilityPack {
	return &switchboardv1.CapabilityPack{
		CapabilityId: "ckx3a0a1b0000qzrmcapack02", UserId: "ckx1f0a9z0000qzrmn831i7rn",
		Name: "Plain", PricingModel: "free", EditableFields: "[]", IntegrationConnected: true,
		Customizations: map[string]string{}, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func capabilityFixtures() []fixture {
	return []fixture{
		single("ListCapabilitiesResponse", "full", &switchboardv1.ListCapabilitiesResponse{
			Capabilities: []*switchboardv1.CapabilityPack{fullCapability(), sparseCapability()},
			Pagination:   &switchboardv1.Pagination{Total: 7, Limit: 2, Offset: 2, HasMore: true},
		}),
		single("ListCapabilitiesResponse", "sparse", &switchboardv1.ListCapabilitiesResponse{
			Capabilities: []*switchboardv1.CapabilityPack{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
		single("InstallOrCreateCapabilityResponse", "full", &switchboardv1.InstallOrCreateCapabilityResponse{Capability: fullCapability()}),
		single("InstallOrCreateCapabilityResponse", "sparse", &switchboardv1.InstallOrCreateCapabilityResponse{Capability: func() *switchboardv1.CapabilityPack {
			c := sparseCapability()
			c.Installed, c.Prompt, c.ResolvedPrompt = true, proto.String("Be brief."), proto.String("Be brief.")
			return c
		}()}),
		single("GetCapabilityResponse", "full", &switchboardv1.GetCapabilityResponse{Capability: fullCapability()}),
		single("GetCapabilityResponse", "sparse", &switchboardv1.GetCapabilityResponse{Capability: sparseCapability()}),
		single("CustomizeCapabilityResponse", "full", &switchboardv1.CustomizeCapabilityResponse{Capability: fullCapability()}),
		single("UninstallCapabilityResponse", "sparse", &switchboardv1.UninstallCapabilityResponse{Capability: func() *switchboardv1.CapabilityPack {
			c := fullCapability()
			c.Installed, c.Prompt, c.ResolvedPrompt, c.AccessPassword = false, nil, nil, nil
			c.Customizations = map[string]string{}
			return c
		}()}),
		single("ListSmartTasksResponse", "full", &switchboardv1.ListSmartTasksResponse{Tasks: []*switchboardv1.SmartTask{
			{
				AgentId: "ckx3a0a1b0000qzrmstagent1", AgentName: "Research Scout", AgentSlug: "research-scout",
				Description: proto.String("Finds sources"), Category: proto.String("research"),
				TaskTypes: []string{"research", "summary"}, SamplePrompts: []string{"Find three papers on X"},
				RequiredInputSchema: proto.String(`{"type":"object"}`), ContextInstructions: proto.String("Cite sources"),
				ExecutionNotes: proto.String("Slow on Mondays"), InputFormat: "json",
			},
			{
				AgentId: "builtin_custom", AgentName: "Custom task", AgentSlug: "custom",
				Description: proto.String("Anything else the assistant can do itself."), Category: proto.String("builtin"),
				TaskTypes: []string{"custom"}, SamplePrompts: []string{}, InputFormat: "text",
			},
		}}),
		single("ListSmartTasksResponse", "sparse", &switchboardv1.ListSmartTasksResponse{Tasks: []*switchboardv1.SmartTask{}}),
	}
}
