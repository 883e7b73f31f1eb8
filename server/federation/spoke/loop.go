package spoke

import (
	"context"

	"github.com/jonboulle/clockwork"
)

// kick asks the heartbeat loop to restart its wait (after a join).
func (s *Core) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends a heartbeat every Interval on clock while this instance is
// joined, until ctx ends.
func (s *Admin) Run(ctx context.Context, clock clockwork.Clock) {
	for {
		timer := clock.NewTimer(s.spoke.Interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.spoke.wake:
			timer.Stop()
			continue
		case <-timer.Chan():
		}
		m, err := s.spoke.joined(ctx)
		if err != nil {
			continue // not joined: nothing to send
		}
		if _, err := s.beat(ctx, m); err != nil && ctx.Err() == nil {
			s.spoke.Logger.Warn("federation: heartbeat not recorded", "err", err)
		}
	}
}
