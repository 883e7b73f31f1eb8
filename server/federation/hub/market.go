package hub

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/review"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// The hub's side of the global store for spoke users
// (FederationMarketService; docs/decisions.md "Federation: the global store
// (issue 14)").

// DeliveriesPath is where a spoke takes the results of the global
// executions its users asked for.
const DeliveriesPath = "/api/v2/federation/deliveries"

// EventGlobalDelivery names the outbox rows that carry a global execution's
// result to the spoke whose user asked.
const EventGlobalDelivery = "federation.delivery"

// instanceAccountDomain is the email domain of the hub's per-instance
// accounts (a reserved name: no mail goes there).
const instanceAccountDomain = "instances.federation.invalid"

// ExecuteGlobalListing runs one of the hub's active listings for a user of
// the calling spoke: an execution of the spoke's account on the hub, task
// origin federation, the spoke as its source instance. A listing that is not
// in the store the spoke browses (inactive, hidden, unknown) is 404.
func (h *Platform) ExecuteGlobalListing(ctx context.Context, req *switchboardv1.ExecuteGlobalListingRequest) (*switchboardv1.ExecuteGlobalListingResponse, error) {
	// The credential before the body (RULINGS "Credentials before bodies").
	inst, err := h.hub.caller(ctx, "marketplace/execute", false)
	if err != nil {
		return nil, err
	}
	switch {
	case req.GetListingId() == "":
		return nil, apperr.Invalid("listingId is required")
	case strings.TrimSpace(req.GetInput()) == "":
		return nil, apperr.Invalid("input is required (the task text)")
	case req.GetRequester().GetUserId() == "":
		return nil, apperr.Invalid("requester.userId is required")
	}
	if h.Engine == nil {
		return nil, apperr.Internal(fmt.Errorf("federation: the hub has no execution engine"))
	}
	listing, err := h.globalListing(ctx, req.GetListingId())
	if err != nil {
		return nil, err
	}
	account, err := h.instanceAccount(ctx, inst)
	if err != nil {
		return nil, err
	}
	r := engine.Request{AgentID: listing.ID, UserID: account, Input: req.GetInput(), Origin: engine.OriginFederation,
		CallerInstanceURL: &inst.BaseURL, SourceInstanceID: &inst.ID, SourceInstanceName: &inst.Name,
		RequesterUserID: &req.Requester.UserId, Background: true}
	if name := strings.TrimSpace(req.GetRequester().GetName()); name != "" {
		r.RequesterName = &name
	}
	out, err := h.Engine.Execute(ctx, r)
	if err != nil {
		return nil, err
	}
	ex := out.Execution
	res := &switchboardv1.ExecuteGlobalListingResponse{ExecutionId: ex.ID, ListingId: listing.ID,
		ListingName: listing.Name, Status: string(ex.Status), PaymentHoldStatus: string(ex.PaymentHoldStatus)}
	if ex.QueuePosition != nil && ex.Status == execution.StatusQueued {
		p := int32(*ex.QueuePosition)
		res.QueuePosition = &p
	}
	return res, nil
}

// ReviewGlobalExecution confirms or denies a global execution waiting in the
// hub's review window, for the spoke user who asked for it: the review
// lifecycle's own confirm or deny for the calling instance's account, with
// its validation and answer. An execution that user did not ask for through
// the calling instance is 404.
func (h *Platform) ReviewGlobalExecution(ctx context.Context, req *switchboardv1.ReviewGlobalExecutionRequest) (*switchboardv1.ReviewGlobalExecutionResponse, error) {
	inst, err := h.hub.caller(ctx, "marketplace/review", false)
	if err != nil {
		return nil, err
	}
	switch {
	case req.GetExecutionId() == "":
		return nil, apperr.Invalid("executionId is required")
	case req.GetRequester().GetUserId() == "":
		return nil, apperr.Invalid("requester.userId is required")
	case req.GetAction() != "confirm" && req.GetAction() != "deny":
		return nil, apperr.Invalid("action must be confirm or deny, not %q", req.GetAction())
	}
	if h.Review == nil {
		return nil, apperr.Internal(fmt.Errorf("federation: the hub has no review lifecycle"))
	}
	account, err := h.requestedBy(ctx, inst, req.GetExecutionId(), req.GetRequester().GetUserId())
	if err != nil {
		return nil, err
	}
	out, err := h.Review.Decide(ctx, account, &switchboardv1.StoreLifecycleRequest{Action: req.GetAction(),
		ExecutionId: req.GetExecutionId(), Rating: req.Rating, Feedback: req.Feedback, Reason: req.GetReason(),
		Category: req.Category, Quality: req.Quality})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReviewGlobalExecutionResponse{Action: out.GetAction(), Execution: out.GetExecution(),
		Requeued: out.Requeued, Quality: out.Quality}, nil
}

// requestedBy answers the account of inst on the hub when execution id is a
// global execution that inst's user userID asked for; not found otherwise
// (another instance's, another user's, or the hub's own).
func (h *Platform) requestedBy(ctx context.Context, inst *ent.FederationInstance, id, userID string) (string, error) {
	notFound := apperr.NotFound("execution %q not found", id)
	account, err := h.hub.DB.User.Query().Where(user.Email(instanceAccountEmail(inst))).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return "", notFound // the instance never ran a global execution
	} else if err != nil {
		return "", err
	}
	ok, err := h.hub.DB.Execution.Query().Where(execution.ID(id), execution.UserID(account),
		execution.SourceInstanceID(inst.ID), execution.RequesterUserID(userID)).Exist(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", notFound
	}
	return account, nil
}

// globalListing is an active listing of the hub's store as browse shows it:
// the hub's own or synced from an instance that takes part in the store.
func (h *Platform) globalListing(ctx context.Context, id string) (*ent.StoreAgent, error) {
	notFound := apperr.NotFound("store agent %q not found in the hub's store", id)
	row, err := h.hub.DB.StoreAgent.Query().Where(storeagent.ID(id), storeagent.StatusEQ(storeagent.StatusActive)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	} else if err != nil {
		return nil, err
	}
	if row.SourceInstanceID == nil {
		return row, nil
	}
	shown, err := h.hub.DB.FederationInstance.Query().Where(federationinstance.ID(*row.SourceInstanceID),
		federationinstance.StoreParticipation(true), federationinstance.LeftAtIsNil()).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if !shown {
		return nil, notFound
	}
	return row, nil
}

// instanceAccount is the hub account that a spoke's users' global
// executions belong to, made at the first: holds are made against it, so
// what a spoke's users spend is the spoke's on the hub's ledger. It cannot
// log in (no password) and is not listed by discover.
func (h *Platform) instanceAccount(ctx context.Context, inst *ent.FederationInstance) (string, error) {
	email := instanceAccountEmail(inst)
	if id, err := h.hub.DB.User.Query().Where(user.Email(email)).OnlyID(ctx); err == nil {
		return id, nil
	} else if !ent.IsNotFound(err) {
		return "", err
	}
	username := "inst_" + strings.ToLower(inst.ID)
	if len(username) > 30 {
		username = username[:30]
	}
	var id string
	err := h.hub.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := h.hub.DB.Serialize(ctx, tx, "instance-account:"+inst.ID); err != nil {
			return err
		}
		if got, err := tx.User.Query().Where(user.Email(email)).OnlyID(ctx); err == nil {
			id = got
			return nil
		}
		u, err := tx.User.Create().SetUsername(username).SetEmail(email).SetName(inst.Name).
			SetPasswordHash("!").SetRole(user.RoleMember).Save(ctx)
		if err != nil {
			// Not the caller's conflict: the hub could not make its own
			// account for the instance (a person holds its username).
			return apperr.Internal(fmt.Errorf("federation: the account of instance %s: %w", inst.ID, err))
		}
		id = u.ID
		return tx.Setting.Create().SetUserID(u.ID).Exec(ctx)
	})
	return id, err
}

// instanceAccountEmail is the email of inst's account on the hub.
func instanceAccountEmail(inst *ent.FederationInstance) string {
	return "instance-" + strings.ToLower(inst.ID) + "@" + instanceAccountDomain
}

// Finished is the engine's hook on a hub: a global execution a spoke's user
// asked for has ended, so its result goes to that spoke's deliveries route
// through the outbox (in this transaction, on the federation retry
// schedule, with the spoke's secret added at each attempt). The review
// lifecycle has opened the hub's review window already when it completed.
func (h *Remote) Finished(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if ex.TaskOrigin != execution.TaskOriginFederation || ex.RequesterUserID == nil || ex.SourceInstanceID == nil {
		return nil
	}
	inst, err := tx.FederationInstance.Get(ctx, *ex.SourceInstanceID)
	if ent.IsNotFound(err) || (err == nil && inst.LeftAt != nil) {
		return nil // nobody to deliver to
	} else if err != nil {
		return err
	}
	cur, err := tx.Execution.Query().Where(execution.ID(ex.ID)).WithStoreAgent().Only(ctx)
	if err != nil {
		return err
	}
	res := &switchboardv1.DeliverGlobalResultRequest{ExecutionId: ex.ID, ListingId: federation.Deref(cur.AgentID),
		Status: string(vocab.CallbackStatusCompleted), Output: cur.Output,
		Requester: &switchboardv1.GlobalRequester{UserId: *ex.RequesterUserID, Name: federation.Deref(ex.RequesterName)}}
	if a := cur.Edges.StoreAgent; a != nil {
		res.ListingName = a.Name
	}
	if cur.Status == execution.StatusCompleted {
		if cur.ReviewWidgetShownAt != nil {
			res.ReviewDueAt = timestamppb.New(review.Due(*cur.ReviewWidgetShownAt))
		}
	} else {
		res.Status, res.Output, res.Error = string(vocab.CallbackStatusFailed), nil, federation.FailureText(cur)
	}
	body, err := protojson.Marshal(res)
	if err != nil {
		return err
	}
	return webhooks.EnqueueForward(ctx, tx, webhooks.Forward{UserID: ex.UserID, Event: EventGlobalDelivery,
		URL: inst.BaseURL + DeliveriesPath, Body: body, At: h.hub.now(), InstanceID: inst.ID})
}
