package federation

import (
	"context"
	"net/http"

	"github.com/switchboard-hq/switchboard/ent"
)

// PlatformCallers finds the registered instance whose platform token an
// Authorization header presents (the hub's side; nil for anything else).
type PlatformCallers interface {
	PlatformCaller(ctx context.Context, authorization string) *ent.FederationInstance
}

// HubSecrets finds this spoke's membership whose own secret a request
// presents (the spoke's side; nil for anything else).
type HubSecrets interface {
	OwnSecret(ctx context.Context, token string) (*ent.FederationMembership, error)
}

// CallerInstance names the instance a federation request comes from, for
// the gate's federation rate class (30 a minute per instance): on a hub, the
// registered instance whose platform token the request presents; on a
// spoke, its hub, when the X-Federation-Token is this instance's own secret.
// Anything else (no credential, an unknown one) names nobody and is counted
// by client IP.
func CallerInstance(h PlatformCallers, s HubSecrets) func(ctx context.Context, r *http.Request) string {
	return func(ctx context.Context, r *http.Request) string {
		if inst := h.PlatformCaller(ctx, r.Header.Get("Authorization")); inst != nil {
			return "instance:" + inst.ID
		}
		m, err := s.OwnSecret(ctx, r.Header.Get(InstanceHeader))
		if err != nil || m == nil {
			return ""
		}
		return "hub:" + m.ID
	}
}
