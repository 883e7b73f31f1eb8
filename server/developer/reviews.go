package developer

import (
	"context"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/page"
)

// ListMarketplaceReviews lists the store agents and capability packs in one
// review status (pending_review by default), oldest first, the two kinds
// merged by creation time; each names its origin, and a synced one its
// instance.
func (s *Service) ListMarketplaceReviews(ctx context.Context, req *switchboardv1.ListMarketplaceReviewsRequest) (*switchboardv1.ListMarketplaceReviewsResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	status := req.GetStatus()
	if status == "" {
		status = "pending_review"
	}
	if err := apperr.OneOf("status", status, vocab.Values("listing_status")); err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	// Each kind's first offset+limit rows hold the merged page.
	n := pg.Offset + pg.Limit
	agentQ := s.DB.StoreAgent.Query().Where(storeagent.StatusEQ(storeagent.Status(status)))
	packQ := s.DB.CapabilityPack.Query().Where(capabilitypack.StatusEQ(capabilitypack.Status(status)))
	agentTotal, err := agentQ.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	packTotal, err := packQ.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	agents, err := agentQ.Order(ent.Asc(storeagent.FieldCreatedAt), ent.Asc(storeagent.FieldID)).Limit(n).All(ctx)
	if err != nil {
		return nil, err
	}
	packs, err := packQ.Order(ent.Asc(capabilitypack.FieldCreatedAt), ent.Asc(capabilitypack.FieldID)).Limit(n).All(ctx)
	if err != nil {
		return nil, err
	}
	items := make([]*switchboardv1.MarketplaceReview, 0, len(agents)+len(packs))
	for _, a := range agents {
		items = append(items, review("agent", a.ID, a.Name, &a.Slug, string(a.Status), a.SourceInstanceID, a.RemoteID,
			a.CreatedAt, a.UpdatedAt))
	}
	for _, p := range packs {
		items = append(items, review("capability", p.ID, p.Name, p.Slug, string(p.Status), p.SourceInstanceID, p.RemoteID,
			p.CreatedAt, p.UpdatedAt))
	}
	slices.SortStableFunc(items, func(a, b *switchboardv1.MarketplaceReview) int {
		if c := a.GetCreatedAt().AsTime().Compare(b.GetCreatedAt().AsTime()); c != 0 {
			return c
		}
		return strings.Compare(a.GetId(), b.GetId())
	})
	items = items[min(pg.Offset, len(items)):min(n, len(items))]
	if err := s.nameInstances(ctx, items); err != nil {
		return nil, err
	}
	return &switchboardv1.ListMarketplaceReviewsResponse{Items: items, Pagination: pg.Of(agentTotal+packTotal, len(items))}, nil
}

func review(kind, id, name string, slug *string, status string, instance, remote *string, created, updated time.Time) *switchboardv1.MarketplaceReview {
	r := &switchboardv1.MarketplaceReview{Kind: kind, Id: id, Name: name, Slug: slug, Status: status, Origin: "local",
		CreatedAt: timestamppb.New(created), UpdatedAt: timestamppb.New(updated)}
	if instance != nil {
		r.Origin, r.InstanceId, r.RemoteId = "synced", instance, remote
	}
	return r
}

// nameInstances fills in the name of each synced item's instance.
func (s *Service) nameInstances(ctx context.Context, items []*switchboardv1.MarketplaceReview) error {
	var ids []string
	for _, it := range items {
		if it.InstanceId != nil {
			ids = append(ids, it.GetInstanceId())
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.DB.FederationInstance.Query().Where(federationinstance.IDIn(ids...)).All(ctx)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, r := range rows {
		names[r.ID] = r.Name
	}
	for _, it := range items {
		if name, ok := names[it.GetInstanceId()]; ok {
			it.InstanceName = &name
		}
	}
	return nil
}
