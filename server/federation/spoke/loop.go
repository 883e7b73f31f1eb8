package spoke

import (
	"context"

	"github.com/switchboard-hq/switchboard/internal/periodic"
)

// HeartbeatTimer is the heartbeat's name in the timers' registry.
const HeartbeatTimer = "federation_heartbeat"

// Heartbeat is the heartbeat as a periodic timer: every Interval while this
// instance is joined, sent by one replica (the join sends the first).
func (s *Admin) Heartbeat() periodic.Timer {
	return periodic.Timer{Name: HeartbeatTimer, Every: s.spoke.Interval, Run: func(ctx context.Context) error {
		m, err := s.spoke.joined(ctx)
		if err != nil {
			return nil // not joined: nothing to send
		}
		if _, err := s.beat(ctx, m); err != nil && ctx.Err() == nil {
			s.spoke.Logger.Warn("federation: heartbeat not recorded", "err", err)
		}
		return nil
	}}
}
