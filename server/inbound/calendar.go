package inbound

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// calendar would upsert events by externalId; the calendar's package is
// not here yet.
func (s *Service) calendar(context.Context, *db.Tx, *ent.InboundWebhook, map[string]any) error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Message: "calendar webhooks are not served by this version yet"}
}
