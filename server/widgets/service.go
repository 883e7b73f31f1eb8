// Package widgets owns the answers to the widgets a queue item carries in
// its metadata (widgets.proto, WidgetService): the pure decision (rules.go:
// which widget, which row, which action, what is recorded) and the service
// that applies it in one transaction: the item's metadata and activity and,
// for a terminal action, its completion through the queue's own moves
// (server/queue), and the forward to the item's widgetResponseUrl through the
// webhook outbox (server/webhooks).
package widgets

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// EventHeader and Event mark a forwarded response (document 2, "Agent store").
const (
	EventHeader = "X-Service-Event"
	Event       = "widget_response"
)

// Service implements WidgetService.
type Service struct {
	DB    *db.DB
	Now   func() time.Time
	Queue *queue.Service
	// Egress is the address rule a widgetResponseUrl must pass.
	Egress egress.Policy
}

// RespondToWidget records a response to one of the caller's item's widgets
// (widgets.proto).
func (s *Service) RespondToWidget(ctx context.Context, req *switchboardv1.RespondToWidgetRequest) (*switchboardv1.RespondToWidgetResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.RelayId != nil {
		itemID, err := s.relayItem(ctx, p.UserID, req.GetRelayId())
		if err != nil {
			return nil, err
		}
		if req.GetItemId() != "" && req.GetItemId() != itemID {
			return nil, apperr.Invalid("itemId %q is not the queue item of relay %q", req.GetItemId(), req.GetRelayId())
		}
		req.ItemId = itemID
	}
	if req.GetItemId() == "" {
		return nil, apperr.Invalid("itemId or relayId is required (the queue item carrying the widget, or the relay it came with)")
	}
	if req.GetWidgetId() == "" || req.GetAction() == "" {
		return nil, apperr.Invalid("widgetId and action are required")
	}
	// A Struct on both transports (RULINGS "Objects stay objects"); absent
	// is {}.
	payload := req.GetPayload().AsMap()
	r := Response{ItemID: req.GetItemId(), WidgetID: req.GetWidgetId(), Action: req.GetAction(), Payload: payload}
	if req.GetWidgetItemId() != "" {
		r.WidgetItemID = req.WidgetItemId
	}
	// Decided once before the transaction, so that the URL is checked (it
	// resolves names) outside it, and again inside on the current row.
	it, err := s.Queue.Load(ctx, s.DB.Client, p.UserID, r.ItemID)
	if err != nil {
		return nil, err
	}
	plan, err := Decide(parseMeta(it.Metadata), r)
	if err != nil {
		return nil, err
	}
	if err := s.checkURL(ctx, plan.ForwardURL); err != nil {
		return nil, err
	}
	out := &switchboardv1.RespondToWidgetResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		r.At = s.Now().UTC()
		it, err := s.Queue.Load(ctx, tx.Client(), p.UserID, r.ItemID)
		if err != nil {
			return err
		}
		again, err := Decide(parseMeta(it.Metadata), r)
		if err != nil {
			return err
		}
		if again.ForwardURL != plan.ForwardURL {
			return apperr.Conflict("queue item %q changed while the response was recorded; send it again", it.ID)
		}
		meta, err := json.Marshal(again.Metadata)
		if err != nil {
			return err
		}
		summary := fmt.Sprintf("Answered %q on %q", r.Action, it.Title)
		declines := DeclinesRelay(again.Metadata, r)
		it, err = s.Queue.Annotate(ctx, tx, p, it, queue.Annotation{
			Metadata: string(meta), Action: Event, Summary: summary, Complete: again.Complete && !declines,
			Details: map[string]any{"queueItemId": it.ID, "widgetId": r.WidgetID, "action": r.Action, "terminal": again.Complete},
		})
		if err != nil {
			return err
		}
		if declines {
			// The relay's sender hears declined (the queue's Removed hook).
			if err := s.Queue.RemoveIn(ctx, tx, p, it, "Declined %q"); err != nil {
				return err
			}
		}
		if again.ForwardURL != "" {
			body, err := ForwardBody(again.Record)
			if err != nil {
				return err
			}
			if err := webhooks.EnqueueForward(ctx, tx, webhooks.Forward{
				UserID: p.UserID, Event: Event, URL: again.ForwardURL, Body: body, At: r.At,
				Headers: map[string]string{EventHeader: Event},
			}); err != nil {
				return err
			}
		}
		out.Item, out.Completed, out.Forwarded = queue.Proto(it), again.Complete, again.ForwardURL != ""
		return nil
	})
	if err != nil {
		return nil, err
	}
	shown, err := structpb.NewStruct(payload)
	if err != nil {
		return nil, err
	}
	out.Response = &switchboardv1.WidgetResponse{ItemId: r.ItemID, WidgetId: r.WidgetID, WidgetItemId: r.WidgetItemID,
		Action: r.Action, Payload: shown, RespondedAt: timestamppb.New(r.At)}
	return out, nil
}

// relayItem is the queue item a relay the caller received became; another
// account's relay, or one that made no item, is 404.
func (s *Service) relayItem(ctx context.Context, userID, id string) (string, error) {
	r, err := s.DB.Relay.Query().Where(relay.ID(id), relay.UserID(userID), relay.DirectionEQ(relay.DirectionInbound),
		relay.ItemIDNotNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return "", apperr.NotFound("relay %q not found, or it made no queue item", id)
	}
	if err != nil {
		return "", err
	}
	return *r.ItemID, nil
}

// checkURL applies the save-time address rule to the item's
// widgetResponseUrl (RULINGS "Input at the boundary"): a URL that fails it is
// refused with the response, and nothing is written.
func (s *Service) checkURL(ctx context.Context, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := egress.ParseURL(raw)
	if err != nil {
		return apperr.Invalid("the item's metadata.widgetResponseUrl: %v", err)
	}
	if err := s.Egress.CheckURL(ctx, u); err != nil {
		return apperr.Invalid("the item's metadata.widgetResponseUrl: %v (the instance does not allow private endpoints)", err)
	}
	return nil
}

func parseMeta(raw string) map[string]any {
	m := map[string]any{}
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &m) // stored metadata is a JSON object
	}
	return m
}
