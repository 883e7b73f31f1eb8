package developer

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t.UTC()) }

func toDeveloperKey(k *ent.DeveloperKey) *switchboardv1.DeveloperKey {
	out := &switchboardv1.DeveloperKey{Id: k.ID, Label: k.Label, Prefix: k.Prefix, Active: k.Active, CreatedAt: ts(k.CreatedAt)}
	if k.LastUsedAt != nil {
		out.LastUsedAt = ts(*k.LastUsedAt)
	}
	return out
}

func toShipGateRun(r *ent.ShipGateRun) *switchboardv1.ShipGateRun {
	out := &switchboardv1.ShipGateRun{
		Id: r.ID, AgentId: r.AgentID, Trigger: string(r.Trigger), Task: r.Task, Passed: r.Passed,
		ResponseTimeMs: int32(r.ResponseTimeMs), CreatedAt: ts(r.CreatedAt),
	}
	if r.Hint != "" {
		out.Hint = &r.Hint
	}
	if r.HTTPStatus != nil {
		v := int32(*r.HTTPStatus)
		out.HttpStatus = &v
	}
	return out
}

func toProbe(v Verdict) *switchboardv1.EndpointProbe {
	out := &switchboardv1.EndpointProbe{Conforms: v.Conforms}
	if v.Hint != "" {
		out.Hint = &v.Hint
	}
	return out
}
