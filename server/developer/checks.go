package developer

import "context"

// CredentialCheck refuses a developer route's call without a developer key,
// a connect token or (selfConfig) the agent's self-config token, before the
// gate reads the body (gate.Check; RULINGS "Credentials before bodies"), as
// the handler's own check does.
func (s *Service) CredentialCheck(selfConfig bool) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := s.caller(ctx, selfConfig)
		return err
	}
}
