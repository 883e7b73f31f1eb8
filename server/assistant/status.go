package assistant

import (
	"context"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// GetAssistantStatus says what the configured language model can do, so the
// dashboard disables what it cannot (the voice button with its reason); the
// reasons are the refusals SendChat and the voice route answer.
func (s *Service) GetAssistantStatus(ctx context.Context, _ *switchboardv1.GetAssistantStatusRequest) (*switchboardv1.GetAssistantStatusResponse, error) {
	if _, err := auth.RequirePrincipal(ctx); err != nil {
		return nil, err
	}
	res := &switchboardv1.GetAssistantStatusResponse{Chat: s.LLM != nil, Voice: s.LLM.CanTranscribe(), Images: s.LLM.CanDraw()}
	if !res.Chat {
		res.ChatUnavailable = new(errNoProvider.Message)
	}
	if !res.Voice {
		res.VoiceUnavailable = new(errNoTranscription.Message)
	}
	return res, nil
}
