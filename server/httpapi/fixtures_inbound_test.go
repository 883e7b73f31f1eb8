package httpapi

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, inboundFixtures) }

// inboundFixtures cover InboundWebhookService: a hook made (its secret
// once), the list with a learned mapping and the log, a change, a rotation
// and a removal.
func inboundFixtures() []fixture {
	at := timestamppb.New(time.Date(2026, 11, 29, 9, 30, 0, 250_000_000, time.UTC))
	url := "https://switchboard.example.com/api/webhooks/generic/ckx5f0a1b0000qzrminbound01"
	bare := &switchboardv1.InboundWebhook{Id: "ckx5f0a1b0000qzrminbound01", Kind: "generic", Name: "alerts", Url: url,
		Enabled: true, CreatedAt: at, UpdatedAt: at, Deliveries: []*switchboardv1.InboundDelivery{}}
	learned := &switchboardv1.InboundWebhook{Id: bare.Id, Kind: "generic", Name: "alerts", Url: url, Enabled: true,
		AcceptUnsigned: true, CreatedAt: at, UpdatedAt: at,
		Mapping: &switchboardv1.InboundMapping{Title: "alert.summary", Description: "details.body", Priority: "alert.urgency", Due: "deadline"},
		Deliveries: []*switchboardv1.InboundDelivery{
			{Id: "ckx5f0a1b0000qzrmdelivery02", ReceivedAt: at, WebhookId: "msg_2", Outcome: "accepted", Status: 202},
			{Id: "ckx5f0a1b0000qzrmdelivery01", ReceivedAt: at, WebhookId: "msg_1", Outcome: "unauthorized", Status: 401},
		}}
	secret := "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	return []fixture{
		single("CreateInboundWebhookResponse", "full", &switchboardv1.CreateInboundWebhookResponse{Id: bare.Id, Url: url,
			Secret: secret, Webhook: bare}),
		single("ListInboundWebhooksResponse", "full", &switchboardv1.ListInboundWebhooksResponse{
			Webhooks: []*switchboardv1.InboundWebhook{learned}}),
		single("ListInboundWebhooksResponse", "empty", &switchboardv1.ListInboundWebhooksResponse{}),
		single("UpdateInboundWebhookResponse", "full", &switchboardv1.UpdateInboundWebhookResponse{Webhook: learned}),
		single("RotateInboundWebhookSecretResponse", "full", &switchboardv1.RotateInboundWebhookSecretResponse{Id: bare.Id,
			Url: url, Secret: secret}),
		single("DeleteInboundWebhookResponse", "full", &switchboardv1.DeleteInboundWebhookResponse{Webhook: bare}),
	}
}
