package federation

import (
	"context"
	"net/http"
)

// CallerInstance names the instance a federation request comes from, for
// the gate's federation rate class (30 a minute per instance): on a hub, the
// registered instance whose platform token the request presents; on a
// spoke, its hub, when the X-Federation-Token is this instance's own secret.
// Anything else (no credential, an unknown one) names nobody and is counted
// by client IP.
func CallerInstance(h *Hub, s *Spoke) func(ctx context.Context, r *http.Request) string {
	return func(ctx context.Context, r *http.Request) string {
		if inst := h.platformCaller(ctx, r.Header.Get("Authorization")); inst != nil {
			return "instance:" + inst.ID
		}
		m, err := s.ownSecret(ctx, r.Header.Get(InstanceHeader))
		if err != nil || m == nil {
			return ""
		}
		return "hub:" + m.ID
	}
}
