package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, widgetFixtures) }

var tsWidgetAnswered = timestamppb.New(time.Date(2025, 5, 8, 9, 30, 0, 250_000_000, time.UTC))

// widgetFixtures cover WidgetService: a terminal answer to a payment
// prompt's row, forwarded, and a bare answer to a widget without rows.
func widgetFixtures() []fixture {
	done := sparseQueueItem()
	done.Status = "done_today"
	paid, _ := structpb.NewStruct(map[string]any{"amount": 5, "note": `paid "now"`})
	return []fixture{
		single("RespondToWidgetResponse", "full", &switchboardv1.RespondToWidgetResponse{
			Response: &switchboardv1.WidgetResponse{
				ItemId: done.GetId(), WidgetId: "pay-1", WidgetItemId: proto.String("card"), Action: "approve",
				Payload: paid, RespondedAt: tsWidgetAnswered,
			},
			Item: done, Completed: true, Forwarded: true,
		}),
		single("RespondToWidgetResponse", "sparse", &switchboardv1.RespondToWidgetResponse{
			Response: &switchboardv1.WidgetResponse{
				ItemId: fullQueueItem().GetId(), WidgetId: "0", Action: "select", Payload: &structpb.Struct{}, RespondedAt: tsWidgetAnswered,
			},
			Item: fullQueueItem(),
		}),
	}
}
