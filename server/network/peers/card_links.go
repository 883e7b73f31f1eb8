package peers

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// ReceiveCardStatus adds the peer's change of a linked card to the local
// card's change log, silently (no activity, no notification; the card's own
// status and priority stay): at most ChangeLogLimit entries, the oldest
// dropped. The card must be the connection's user's and linked to the
// sender's card on the sender's instance (else 404).
func (s *Service) ReceiveCardStatus(ctx context.Context, req *switchboardv1.ReceiveCardStatusRequest) (*switchboardv1.ReceiveCardStatusResponse, error) {
	var body error
	if strings.TrimSpace(req.GetCardId()) == "" || strings.TrimSpace(req.GetExternalCardId()) == "" {
		body = apperr.Invalid("cardId and externalCardId are required")
	}
	c, err := s.core.FromActivePeer(ctx, "card-status", body)
	if err != nil {
		return nil, err
	}
	n, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (int, error) {
		return kanban.AppendChange(ctx, tx, req.GetExternalCardId(), func(ctx context.Context) (*ent.Card, error) {
			k, err := tx.Card.Query().Where(card.ID(req.GetExternalCardId()), card.UserID(c.UserID),
				card.ExternalInstanceURL(c.PeerInstanceURL), card.ExternalCardID(req.GetCardId())).Only(ctx)
			if ent.IsNotFound(err) {
				return nil, apperr.NotFound("no card %q here is linked to your card %q", req.GetExternalCardId(), req.GetCardId())
			}
			return k, err
		}, &switchboardv1.CardChange{ExternalCardId: req.GetCardId(), NewStatus: req.GetNewStatus(),
			NewPriority: req.GetNewPriority(), ChangeLog: req.GetChangeLog(), From: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL),
			ReceivedAt: timestamppb.New(s.core.NowUTC().Truncate(time.Microsecond))})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReceiveCardStatusResponse{Entries: int32(n)}, nil
}
