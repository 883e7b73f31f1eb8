package spoke

import (
	"context"
)

// HubCheck refuses a call of the spoke's routes that does not present this
// instance's secret, as fromHub does.
func (s *Inbound) HubCheck(route string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := s.fromHub(ctx, route)
		return err
	}
}
