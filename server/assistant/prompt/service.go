package prompt

import (
	"context"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

var (
	_ switchboardv1connect.AssistantPromptServiceHandler = (*Service)(nil)
	_ switchboardv1.AssistantPromptServiceServer         = (*Service)(nil)
)

// Service serves AssistantPromptService: the admin's view of the prompt.
type Service struct {
	Sources Sources
}

// GetAssistantPrompt assembles the caller's prompt for the message, as a
// send would, without calling the model (assistant_prompt.proto).
func (s *Service) GetAssistantPrompt(ctx context.Context, req *switchboardv1.GetAssistantPromptRequest) (*switchboardv1.GetAssistantPromptResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if p.Role != "admin" {
		return nil, apperr.Forbidden("only this instance's admin may read the assistant's prompt")
	}
	pr, err := s.Sources.Prompt(ctx, p, req.GetMessage())
	if err != nil {
		return nil, err
	}
	return toProto(pr), nil
}

func toProto(p Prompt) *switchboardv1.GetAssistantPromptResponse {
	out := &switchboardv1.GetAssistantPromptResponse{Tokens: int32(p.Tokens), Budget: int32(p.Budget), Outside: p.Outside,
		Messages: make([]*switchboardv1.AssistantPromptMessage, len(p.Messages)),
		Sections: sections(p.Sections), Dropped: sections(p.Dropped)}
	for i, m := range p.Messages {
		out.Messages[i] = &switchboardv1.AssistantPromptMessage{Role: m.Role, Content: m.Content}
	}
	return out
}

func sections(ss []Section) []*switchboardv1.AssistantPromptSection {
	out := make([]*switchboardv1.AssistantPromptSection, len(ss))
	for i, s := range ss {
		out[i] = &switchboardv1.AssistantPromptSection{Kind: s.Kind, Name: s.Name, Tokens: int32(s.Tokens), Outside: s.Outside,
			Provenance: s.Writer.Kind, ProvenanceRef: s.Writer.RefPtr()}
	}
	return out
}
