package federation

import (
	"context"

	"github.com/jonboulle/clockwork"
)

// kick asks the heartbeat loop to restart its wait (after a join).
func (s *Spoke) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends a heartbeat every Interval on clock while this instance is
// joined, until ctx ends.
func (s *Spoke) Run(ctx context.Context, clock clockwork.Clock) {
	for {
		timer := clock.NewTimer(s.Interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.wake:
			timer.Stop()
			continue
		case <-timer.Chan():
		}
		m, err := s.joined(ctx)
		if err != nil {
			continue // not joined: nothing to send
		}
		if _, err := s.beat(ctx, m); err != nil && ctx.Err() == nil {
			s.Logger.Warn("federation: heartbeat not recorded", "err", err)
		}
	}
}
