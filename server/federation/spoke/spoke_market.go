package spoke

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/store"
)

// The spoke's side of the global store: its users browse the hub's store
// and run its listings through this instance (docs/decisions.md
// "Federation: the global store (issue 14)").

// Joined says whether this instance has joined a hub (the store's Global).
func (s *Admin) Joined(ctx context.Context) (bool, error) {
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil {
		return false, err
	}
	return m != nil && m.JoinedAt != nil, nil
}

// BrowseGlobal pages the hub's public store (GET /api/v2/federation/browse)
// through this instance's audited client. store.ErrNotJoined when this
// instance has not joined a hub.
func (s *Admin) BrowseGlobal(ctx context.Context, search string, limit, offset int) ([]*switchboardv1.StoreAgent, int, error) {
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil {
		return nil, 0, err
	}
	if m == nil || m.JoinedAt == nil {
		return nil, 0, store.ErrNotJoined
	}
	client := switchboardv1connect.NewFederationPlatformServiceClient(s.spoke.client, m.HubURL)
	res, err := client.BrowseFederation(ctx, &switchboardv1.BrowseFederationRequest{Q: search,
		Limit: int32(limit), Offset: int32(offset)})
	if err != nil {
		return nil, 0, hubError(m.HubURL, err)
	}
	out := make([]*switchboardv1.StoreAgent, 0, len(res.GetAgents()))
	for _, a := range res.GetAgents() {
		out = append(out, fromDiscoverAgent(a))
	}
	return out, int(res.GetPagination().GetTotal()), nil
}

// fromDiscoverAgent is a hub listing as this instance's store shows it:
// the public half, active, marked global; its id is the hub's.
func fromDiscoverAgent(a *switchboardv1.DiscoverAgent) *switchboardv1.StoreAgent {
	tt := a.GetTaskTypes()
	if tt == nil {
		tt = []string{}
	}
	return &switchboardv1.StoreAgent{Id: a.GetId(), Name: a.GetName(), Slug: a.GetSlug(),
		Description: a.Description, DeveloperName: a.DeveloperName, Category: a.Category,
		PricingModel: a.GetPricingModel(), PricePerTask: a.GetPricePerTask(), Currency: a.GetCurrency(),
		TaskTypes: tt, SupportsA2A: a.GetSupportsA2A(), SupportsMcp: a.GetSupportsMcp(), Version: a.GetVersion(),
		Availability: a.GetAvailability(), RatingAvg: a.GetRatingAvg(), RatingCount: a.GetRatingCount(),
		Status: store.StatusActive, CreatedAt: a.GetCreatedAt(), UpdatedAt: a.GetCreatedAt(),
		Commands: []*switchboardv1.AgentCommand{}, DeclaredWidgetTypes: []string{},
		Origin: proto.String(store.OriginGlobal)}
}

// ExecuteGlobal runs the hub's listing id for userID through the hub
// (POST /api/v2/federation/marketplace/execute with the platform token) and
// opens the requester's queue item here, which the hub's delivery
// completes. An instance that has not joined a hub, and an id the hub does
// not know, are 404.
func (s *Admin) ExecuteGlobal(ctx context.Context, userID, id, input string) (*switchboardv1.ExecuteStoreAgentResponse, error) {
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil {
		return nil, err
	}
	if m == nil || m.JoinedAt == nil {
		return nil, apperr.NotFound("store agent %q not found (this instance has not joined a hub, so it has no global store)", id)
	}
	if strings.TrimSpace(input) == "" {
		return nil, apperr.Invalid("input is required (the task text)")
	}
	u, err := s.spoke.DB.User.Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	client := switchboardv1connect.NewFederationMarketServiceClient(s.spoke.client, m.HubURL)
	res, err := client.ExecuteGlobalListing(withBearer(ctx, token), &switchboardv1.ExecuteGlobalListingRequest{
		ListingId: id, Input: input, Requester: &switchboardv1.GlobalRequester{UserId: u.ID, Name: u.Name}})
	if err != nil {
		var ce *connect.Error
		if errors.As(err, &ce) && ce.Code() == connect.CodeNotFound {
			return nil, apperr.NotFound("store agent %q not found", id)
		}
		return nil, hubError(m.HubURL, err)
	}
	// The hub has made the execution: its item is opened even if the caller
	// has gone.
	bg := context.WithoutCancel(ctx)
	err = s.spoke.DB.InTx(bg, func(tx *db.Tx) error {
		_, err := s.spoke.track(bg, tx, globalDelivery{userID: u.ID, executionID: res.GetExecutionId(),
			listingID: res.GetListingId(), listingName: res.GetListingName(), input: input, hubURL: m.HubURL})
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ExecuteStoreAgentResponse{ExecutionId: res.GetExecutionId(), AgentId: res.GetListingId(),
		Status: res.GetStatus(), TaskOrigin: "federation", IsolationMode: "output_only",
		PaymentHoldStatus: res.GetPaymentHoldStatus(), QueuePosition: res.QueuePosition}
	return out, nil
}

// globalDelivery is a global execution as the requester's queue shows it.
type globalDelivery struct {
	userID, executionID, listingID, listingName, input, hubURL string
}

func (g globalDelivery) delivery(s *Core) queue.Delivery {
	name := g.listingName
	if name == "" {
		name = g.listingID
	}
	return queue.Delivery{UserID: g.userID, ExecutionID: g.executionID, AgentName: name,
		Title: fmt.Sprintf("%s: %s", name, firstLine(g.input)), Description: g.input, At: s.now(),
		Metadata: map[string]any{"executionId": g.executionID, "agentId": g.listingID, "agentName": name,
			"taskOrigin": "marketplace", "origin": store.OriginGlobal, "hubUrl": g.hubURL}}
}

// track opens the requester's item of a global execution unless it exists
// (the hub's delivery may come first), serialized on the execution.
func (s *Core) track(ctx context.Context, tx *db.Tx, g globalDelivery) (*ent.QueueItem, error) {
	if err := s.DB.Serialize(ctx, tx, "global-execution:"+g.executionID); err != nil {
		return nil, err
	}
	it, err := tx.QueueItem.Query().Where(queueitem.UserID(g.userID), queueitem.ExecutionID(g.executionID)).First(ctx)
	if err == nil {
		return it, nil
	} else if !ent.IsNotFound(err) {
		return nil, err
	}
	return queue.Track(ctx, tx, g.delivery(s))
}

// DeliverGlobalResult puts the result of a global execution in its
// requester's queue: done_today with the output (the hub's review window
// named in the metadata), or blocked with the reason. Only this instance's
// hub may call it, with this instance's secret; a requester who is not a
// user here is 404; a delivery repeated after it landed changes nothing.
func (s *Inbound) DeliverGlobalResult(ctx context.Context, req *switchboardv1.DeliverGlobalResultRequest) (*switchboardv1.DeliverGlobalResultResponse, error) {
	switch {
	case req.GetExecutionId() == "":
		return nil, apperr.Invalid("executionId is required")
	case req.GetRequester().GetUserId() == "":
		return nil, apperr.Invalid("requester.userId is required")
	}
	if err := apperr.OneOf("status", req.GetStatus(), vocab.Values("callback_status")); err != nil {
		return nil, err
	}
	m, err := s.fromHub(ctx, "deliveries")
	if err != nil {
		return nil, err
	}
	userID := req.GetRequester().GetUserId()
	if ok, err := s.spoke.DB.User.Query().Where(user.ID(userID)).Exist(ctx); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.NotFound("requester %q is not a user of this instance", userID)
	}
	g := globalDelivery{userID: userID, executionID: req.GetExecutionId(), listingID: req.GetListingId(),
		listingName: req.GetListingName(), hubURL: m.HubURL}
	var itemID string
	err = s.spoke.DB.InTx(ctx, func(tx *db.Tx) error {
		it, err := s.spoke.track(ctx, tx, g)
		if err != nil {
			return err
		}
		itemID = it.ID
		if it.CompletedAt != nil {
			return nil // delivered already
		}
		d := g.delivery(s.spoke)
		d.Description = federation.Deref(it.Description)
		d.Completed = req.GetStatus() == string(vocab.CallbackStatusCompleted)
		d.Result = fmt.Sprintf("The agent did not deliver (%s).", req.GetError())
		d.Metadata = map[string]any{"hubStatus": req.GetStatus()}
		if d.Completed {
			d.Result = req.GetOutput()
			if due := req.GetReviewDueAt(); due != nil {
				d.Metadata["reviewDueAt"] = due.AsTime().UTC().Format(time.RFC3339Nano)
			}
		}
		_, err = queue.Deliver(ctx, tx, d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeliverGlobalResultResponse{Received: true, QueueItemId: itemID}, nil
}

// firstLine is the first line of a task, cut to 80 characters.
func firstLine(input string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(input), "\n")
	if r := []rune(line); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return line
}

// ReviewGlobal confirms or denies, through the hub, one of userID's global
// executions (their queue item with that execution id and origin global)
// and answers what the hub answered; the item records the decision, and a
// denial's requeued execution gets its own item, which the hub's delivery
// completes (docs/decisions.md "Federation: the global store (issue 14)").
// An id of none of userID's global items is not found.
func (s *Admin) ReviewGlobal(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error) {
	id := req.GetExecutionId()
	it, err := s.globalItem(ctx, s.spoke.DB.Client, userID, id)
	if err != nil {
		return nil, err
	}
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil {
		return nil, err
	}
	if m == nil || m.JoinedAt == nil {
		return nil, apperr.NotFound("execution %q not found (this instance is no longer joined to a hub)", id)
	}
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	client := switchboardv1connect.NewFederationMarketServiceClient(s.spoke.client, m.HubURL)
	res, err := client.ReviewGlobalExecution(withBearer(ctx, token), &switchboardv1.ReviewGlobalExecutionRequest{
		ExecutionId: id, Requester: &switchboardv1.GlobalRequester{UserId: userID}, Action: req.GetAction(),
		Rating: req.Rating, Feedback: req.Feedback, Reason: req.GetReason(), Category: req.Category, Quality: req.Quality})
	if err != nil {
		return nil, reviewError(id, m.HubURL, err)
	}
	// The hub has decided: the item records it even if the caller has gone.
	bg := context.WithoutCancel(ctx)
	if err := s.spoke.DB.InTx(bg, func(tx *db.Tx) error { return s.recordReview(bg, tx, it, m.HubURL, res) }); err != nil {
		return nil, err
	}
	return &switchboardv1.StoreLifecycleResponse{Action: res.GetAction(), Execution: res.GetExecution(),
		Requeued: res.Requeued, Quality: res.Quality}, nil
}

// globalItem is userID's queue item of the global execution id; not found
// when there is none.
func (s *Admin) globalItem(ctx context.Context, c *ent.Client, userID, id string) (*ent.QueueItem, error) {
	items, err := c.QueueItem.Query().Where(queueitem.UserID(userID), queueitem.ExecutionID(id)).
		Order(ent.Asc(queueitem.FieldCreatedAt), ent.Asc(queueitem.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if meta := queue.Meta(it); meta["origin"] == store.OriginGlobal {
			return it, nil
		}
	}
	return nil, apperr.NotFound("execution %q not found", id)
}

// reviewError is the spoke's answer for the hub's refusal of a review: the
// hub's 400 and 404 are the caller's; anything else is hubError's.
func reviewError(id, hubURL string, err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		switch ce.Code() {
		case connect.CodeNotFound:
			return apperr.NotFound("execution %q not found", id)
		case connect.CodeInvalidArgument:
			return apperr.Invalid("%s", ce.Message())
		case connect.CodeFailedPrecondition:
			return apperr.IllegalMove("%s", ce.Message())
		}
	}
	return hubError(hubURL, err)
}

// recordReview writes the hub's decision into the reviewed item's metadata
// (reviewStatus, and requeuedAs after a denial) and opens the item of the
// requeued execution, as a local denial's requeue opens one.
func (s *Admin) recordReview(ctx context.Context, tx *db.Tx, it *ent.QueueItem, hubURL string, res *switchboardv1.ReviewGlobalExecutionResponse) error {
	if err := s.spoke.DB.Serialize(ctx, tx, "global-execution:"+federation.Deref(it.ExecutionID)); err != nil {
		return err
	}
	it, err := tx.QueueItem.Get(ctx, it.ID)
	if err != nil {
		return err
	}
	meta := queue.Meta(it)
	set := map[string]any{"reviewStatus": res.GetExecution().GetReviewStatus()}
	again := res.GetRequeued()
	if again != nil {
		set["requeuedAs"] = again.GetExecutionId()
	}
	if err := queue.Annotate(ctx, tx, it, set, s.spoke.now()); err != nil {
		return err
	}
	if again == nil {
		return nil
	}
	name, _ := meta["agentName"].(string)
	listing, _ := meta["agentId"].(string)
	next, err := s.spoke.track(ctx, tx, globalDelivery{userID: it.UserID, executionID: again.GetExecutionId(),
		listingID: listing, listingName: name, input: federation.Deref(it.Description), hubURL: hubURL})
	if err != nil {
		return err
	}
	return queue.Annotate(ctx, tx, next, map[string]any{"requeuedFrom": federation.Deref(it.ExecutionID)}, s.spoke.now())
}
