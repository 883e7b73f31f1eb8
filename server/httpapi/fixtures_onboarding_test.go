package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, onboardingFixtures) }

// onboardingFixtures cover OnboardingService (before setup-project, the
// checklist with its card and project, complete), SpriteService (the
// defaults, a save) and the assistant's status (every model, none).
func onboardingFixtures() []fixture {
	steps := func(done int) []*switchboardv1.OnboardingStep {
		keys := []string{"api_key", "auto_approve", "contact", "store", "network", "assistant"}
		texts := []string{"Create an API key", "Turn on auto-approve in the settings", "Add a contact",
			"Install a store agent or a capability pack", "Connect to another operator or join a hub",
			"Hold a first conversation with the assistant"}
		out := make([]*switchboardv1.OnboardingStep, len(keys))
		for i := range keys {
			out[i] = &switchboardv1.OnboardingStep{Key: keys[i], Text: texts[i], Completed: i < done}
		}
		return out
	}
	card := kanbanDetail(&switchboardv1.KanbanCard{Id: kanbanCard2ID, Title: "Getting started",
		Description: proto.String("Each item checks itself off when you do it; or mark it done from Now."),
		Status:      "active", Priority: "medium", Assignee: "human", ProjectId: proto.String("ckx2p0r1a0000qzrmprojecta1"),
		DueDate: tsUsed, Checklist: []*switchboardv1.ChecklistItem{
			{Id: "ckx2k0c1a0000qzrmchecka001", Text: "Create an API key", Completed: true, Order: 0, CardId: kanbanCard2ID,
				SourceType: proto.String("onboarding"), SourceId: proto.String("api_key"), CreatedAt: tsCreated, UpdatedAt: tsUsed},
			{Id: "ckx2k0c1a0000qzrmchecka002", Text: "Turn on auto-approve in the settings", Order: 1, CardId: kanbanCard2ID,
				SourceType: proto.String("onboarding"), SourceId: proto.String("auto_approve"), CreatedAt: tsCreated, UpdatedAt: tsCreated},
		}, Contacts: []*switchboardv1.CardContact{}, Labels: []string{}, CreatedAt: tsCreated, UpdatedAt: tsUsed})
	project := &switchboardv1.Project{Id: "ckx2p0r1a0000qzrmprojecta1", Name: "Getting started",
		Description: proto.String("Six steps to set Switchboard up."), Color: "#6366F1", Visibility: "private",
		Status: "active", Kind: "standard", LeadId: "ckx2u0s1a0000qzrmuseraaaa1", Role: proto.String("lead"),
		MemberCount: 1, CreatedAt: tsCreated, UpdatedAt: tsCreated}
	sprite := &switchboardv1.SpriteSettings{Enabled: true, ShowLabels: true, AnimationSpeed: "normal", IdleStyle: "float", Opacity: 1, Size: "normal"}
	saved := &switchboardv1.SpriteSettings{AnimationSpeed: "slow", IdleStyle: "hidden", Opacity: 0.3, Size: "large"}
	noModel := "the assistant needs a language model, and none is configured on this instance (--llm-base-url, --llm-model)"
	noVoice := "voice needs a transcription model, and none is configured on this instance (--llm-base-url, --llm-transcription-model)"
	return []fixture{
		single("GetOnboardingResponse", "before", &switchboardv1.GetOnboardingResponse{Steps: steps(0)}),
		single("GetOnboardingResponse", "full", &switchboardv1.GetOnboardingResponse{OnboardingPhase: 6, Card: card,
			Steps: steps(1), Project: project}),
		single("StartIntroResponse", "full", &switchboardv1.StartIntroResponse{OnboardingPhase: 6}),
		single("SetupProjectResponse", "full", &switchboardv1.SetupProjectResponse{Card: card, Steps: steps(1), Project: project}),
		single("SetupProjectResponse", "sparse", &switchboardv1.SetupProjectResponse{Card: card, Steps: steps(0)}),
		single("AdvanceOnboardingResponse", "complete", &switchboardv1.AdvanceOnboardingResponse{Card: card, Steps: steps(6),
			Project: project, OnboardingComplete: true}),
		single("GetSpriteSettingsResponse", "defaults", &switchboardv1.GetSpriteSettingsResponse{Settings: sprite}),
		single("UpdateSpriteSettingsResponse", "saved", &switchboardv1.UpdateSpriteSettingsResponse{Settings: saved}),
		single("GetAssistantStatusResponse", "all", &switchboardv1.GetAssistantStatusResponse{Chat: true, Voice: true, Images: true}),
		single("GetAssistantStatusResponse", "none", &switchboardv1.GetAssistantStatusResponse{ChatUnavailable: &noModel, VoiceUnavailable: &noVoice}),
	}
}
