package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/peerwire"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

// The hub's side of hub-to-spoke execution: it implements the engine's
// Remote for listings synced from a spoke.

// Target answers the verified address of the spoke a synced listing came
// from, or why that spoke takes no executions now (left, deactivated, in
// maintenance).
func (h *Remote) Target(ctx context.Context, agent *ent.StoreAgent) (string, error) {
	if h.hub.PublicURL == "" {
		return "", errors.New("this hub has no public URL (--public-url) for its spokes to deliver results to")
	}
	inst, err := h.source(ctx, agent)
	if err != nil {
		return "", err
	}
	return inst.BaseURL, nil
}

func (h *Remote) source(ctx context.Context, agent *ent.StoreAgent) (*ent.FederationInstance, error) {
	if agent.SourceInstanceID == nil {
		return nil, errors.New("the listing was not synced from an instance")
	}
	inst, err := h.hub.DB.FederationInstance.Get(ctx, *agent.SourceInstanceID)
	switch {
	case ent.IsNotFound(err):
		return nil, errors.New("its instance is no longer registered")
	case err != nil:
		return nil, err
	case inst.LeftAt != nil:
		return nil, errors.New("its instance has left the hub")
	case inst.DeactivatedAt != nil:
		return nil, errors.New("its instance has been deactivated")
	case inst.Health == federationinstance.HealthMaintenance:
		return nil, errors.New("its instance is in maintenance")
	}
	return inst, nil
}

// Send hands ex to the spoke over FederationSpokeService.Execute (Connect,
// binary protobuf, or the documented REST route for a spoke whose document
// does not list connect: peerwire) with the spoke's own secret. A spoke
// that cannot be reached or fails is an error (it counts against the
// spoke's breaker); a spoke that answers with a refusal is refused, with
// its reason.
func (h *Remote) Send(ctx context.Context, ex *ent.Execution, agent *ent.StoreAgent, callbackToken string) (string, error) {
	inst, err := h.source(ctx, agent)
	if err != nil {
		return "", err
	}
	if agent.RemoteID == nil {
		return "listing without the spoke's id", nil
	}
	if h.hub.Secrets == nil {
		return "", errors.New("this hub has no instance key to open the spoke's secret")
	}
	secret, err := h.hub.Secrets.OpenText(inst.APIKeySealed, secretAAD(inst.ID))
	if err != nil {
		return "", fmt.Errorf("the spoke's secret cannot be opened: %w", err)
	}
	origin := "marketplace"
	if ex.TaskOrigin == execution.TaskOriginFederation {
		origin = "federation"
	}
	requester := &switchboardv1.FederationRequester{Name: ex.RequesterName, InstanceUrl: h.hub.PublicURL}
	if ex.CallerInstanceURL != nil {
		requester.InstanceUrl = *ex.CallerInstanceURL
	}
	ctx = peerwire.WithHeader(ctx, federation.InstanceHeader, secret)
	res, err := h.spokeClient(ctx, inst.BaseURL).Execute(ctx, &switchboardv1.FederationSpokeServiceExecuteRequest{
		ExecutionId: ex.ID, ListingId: *agent.RemoteID, Input: ex.Input, Requester: requester,
		TaskOrigin: origin, TimeoutSeconds: int32(agent.ExecutionTimeout),
		CallbackUrl:   h.hub.PublicURL + strings.Replace(federation.ResultPath, "{id}", ex.ID, 1),
		CallbackToken: callbackToken,
	})
	if err != nil {
		// A spoke that got no call is told in words (the execution's error
		// is the requester's to read); the cause stays for the log.
		if cause, ok := egress.Unreachable(err); ok && !connect.IsWireError(err) {
			return "", cause
		}
		var ce *connect.Error
		if errors.As(err, &ce) {
			switch ce.Code() {
			case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeUnknown, connect.CodeInternal:
				return "", fmt.Errorf("the spoke failed: %s", ce.Message())
			}
			return ce.Message(), nil
		}
		return "", err
	}
	if !res.GetAccepted() {
		reason := res.GetReason()
		if reason == "" {
			reason = "no reason given"
		}
		return reason, nil
	}
	return "", nil
}

// spokeClient is the typed client of the spoke at base, in the protocol it
// speaks (Connect's default codec is binary protobuf).
func (h *Remote) spokeClient(ctx context.Context, base string) peerwire.Spoke {
	return h.hub.spokes.Spoke(ctx, base, h.hub.ClientOptions...)
}

// DeliverFederationResult records the result a spoke delivers for an
// execution the hub dispatched to it. The token is bound to the execution
// and the execution to the calling spoke: anything else is 404 alike.
func (h *Platform) DeliverFederationResult(ctx context.Context, req *switchboardv1.DeliverFederationResultRequest) (*switchboardv1.DeliverFederationResultResponse, error) {
	if req.GetExecutionId() == "" || req.GetCallbackToken() == "" {
		return nil, apperr.Invalid("executionId and callbackToken are required")
	}
	inst, err := h.hub.caller(ctx, "result", true)
	if err != nil {
		return nil, err
	}
	if h.Engine == nil {
		return nil, apperr.Internal(errors.New("federation: the hub has no execution engine"))
	}
	notFound := apperr.NotFound("execution %q not found, or the callback token does not match", req.GetExecutionId())
	ex, err := h.hub.DB.Execution.Query().Where(execution.ID(req.GetExecutionId())).WithStoreAgent().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	} else if err != nil {
		return nil, err
	}
	if a := ex.Edges.StoreAgent; a == nil || a.SourceInstanceID == nil || *a.SourceInstanceID != inst.ID {
		return nil, notFound
	}
	out, err := h.Engine.Deliver(ctx, engine.Delivery{ExecutionID: ex.ID, Token: req.GetCallbackToken(),
		Status: req.GetStatus(), Output: req.Output, Error: req.GetError()})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeliverFederationResultResponse{Received: true, Status: string(out.Execution.Status)}, nil
}
