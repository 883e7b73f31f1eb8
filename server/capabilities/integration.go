package capabilities

import (
	"context"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/setting"
)

// connectedSet answers the integrations the account has connected: a
// serviceKeys entry (the settings' webhooks and service keys, one list here)
// whose service is the integration's name. The built-in capabilities
// (email, meetings, custom) run inside the assistant and connect no outside
// service, so they connect no integration.
func (s *Service) connectedSet(ctx context.Context, userID string) (map[string]bool, error) {
	row, err := s.DB.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, k := range row.ServiceKeys {
		if slices.Contains(IntegrationTypes, k.Service) {
			out[k.Service] = true
		}
	}
	return out, nil
}

func (s *Service) connected(ctx context.Context, userID, integration string) (bool, error) {
	set, err := s.connectedSet(ctx, userID)
	return set[integration], err
}
