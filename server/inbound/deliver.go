package inbound

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/inbounddelivery"
	"github.com/switchboard-hq/switchboard/ent/inboundreceipt"
	"github.com/switchboard-hq/switchboard/ent/inboundwebhook"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/inbound/rules"
)

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// errDuplicate rolls back a delivery whose webhook-id already took effect.
var errDuplicate = errors.New("inbound: webhook-id already delivered")

// NoID answers document 1's paths without an id (POST /api/webhooks/<kind>):
// 404 naming the configured URL form.
func NoID(w http.ResponseWriter, r *http.Request) error {
	kind := strings.TrimPrefix(r.URL.Path, Path)
	return apperr.NotFound("inbound webhooks are delivered to %s%s/<id>: create one in Settings (POST /api/webhooks/inbound) and use the url it answers", Path, kind)
}

// Deliver answers POST /api/webhooks/<kind>/{id}: 202 {received: true}
// when the delivery is verified and took effect (or took effect before,
// by its webhook-id); every refusal is written to the hook's log and
// nothing else.
func (s *Service) Deliver(kind string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error { return s.serve(w, r, kind) }
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request, kind string) error {
	ctx := r.Context()
	id := r.PathValue("id")
	h, err := s.DB.Client.InboundWebhook.Query().Where(inboundwebhook.ID(id)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && string(h.Kind) != kind) {
		return apperr.NotFound("no inbound webhook at %s", r.URL.Path)
	} else if err != nil {
		return err
	}
	hdr := rules.Headers{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
		Signature: r.Header.Get("webhook-signature")}
	outcome, err := s.deliver(ctx, h, hdr, r.Body)
	status := http.StatusAccepted
	if err != nil {
		status = apperr.Report(ctx, err).HTTPStatus()
	}
	s.log(ctx, h.ID, hdr.ID, outcome, status)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"received":true}` + "\n"))
	return nil
}

// deliver checks and applies one delivery, answering its log outcome.
func (s *Service) deliver(ctx context.Context, h *ent.InboundWebhook, hdr rules.Headers, body io.Reader) (vocab.InboundDeliveryOutcome, error) {
	if !h.Enabled {
		return vocab.InboundDeliveryOutcomeDisabled, apperr.NotFound("the inbound webhook %q is disabled", h.Name)
	}
	raw, err := io.ReadAll(io.LimitReader(body, s.BodyLimit+1))
	if err != nil {
		return vocab.InboundDeliveryOutcomeInvalid, apperr.Invalid("the body could not be read")
	}
	if int64(len(raw)) > s.BodyLimit {
		return vocab.InboundDeliveryOutcomeTooLarge, apperr.TooLarge("request body is larger than %d bytes", s.BodyLimit)
	}
	signed := hdr.ID != "" || hdr.Timestamp != "" || hdr.Signature != ""
	// A signature presented is checked even where unsigned deliveries are
	// taken: a wrong one is a sender with the wrong secret.
	if signed || !h.AcceptUnsigned {
		if err := s.verify(h, hdr, raw); err != nil {
			return vocab.InboundDeliveryOutcomeUnauthorized, err
		}
	}
	doc, err := rules.Decode(raw)
	if err != nil {
		return vocab.InboundDeliveryOutcomeInvalid, apperr.Invalid("the body must be a JSON object: %s", err)
	}
	if !utf8.ValidString(hdr.ID) || len(hdr.ID) > 200 {
		return vocab.InboundDeliveryOutcomeInvalid, apperr.Invalid("webhook-id must be at most 200 characters of text")
	}
	// The provider is asked before the unit of work, which must not wait on
	// a call outside the machine.
	var extracted []string
	if h.Kind == inboundwebhook.KindTranscript && !s.received(ctx, h.ID, hdr.ID) {
		extracted = s.extractActions(ctx, str(doc, "text"))
	}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if hdr.ID != "" {
			// First, so a concurrent delivery of the same id waits on the
			// unique index and then finds it taken.
			if err := tx.InboundReceipt.Create().SetHookID(h.ID).SetWebhookID(hdr.ID).SetCreatedAt(s.now()).Exec(ctx); err != nil {
				if sqlgraph.IsUniqueConstraintError(err) {
					return errDuplicate
				}
				return err
			}
		}
		return s.apply(ctx, tx, h, raw, doc, extracted)
	})
	switch {
	case errors.Is(err, errDuplicate) || sqlgraph.IsUniqueConstraintError(err):
		return vocab.InboundDeliveryOutcomeDuplicate, nil
	case err != nil:
		return vocab.InboundDeliveryOutcomeFailed, err
	}
	return vocab.InboundDeliveryOutcomeAccepted, nil
}

// verify checks the Standard Webhooks signature with the hook's secret.
func (s *Service) verify(h *ent.InboundWebhook, hdr rules.Headers, raw []byte) error {
	if s.Secrets == nil {
		return apperr.Unauthenticated("this instance has no secret key to verify the signature with")
	}
	secret, err := s.Secrets.OpenText(h.SecretSealed, secretAAD(h.ID))
	if err != nil {
		return apperr.Internal(err)
	}
	if err := rules.Verify(secret, hdr, raw, s.Now()); err != nil {
		return apperr.Unauthenticated("the webhook signature was refused: %s", err)
	}
	return nil
}

// log writes one line of the hook's delivery log and keeps the newest
// keptDeliveries; a failure to log is reported, never the sender's.
func (s *Service) log(ctx context.Context, hookID, webhookID string, outcome vocab.InboundDeliveryOutcome, status int) {
	if r := []rune(webhookID); len(r) > 200 || !utf8.ValidString(webhookID) {
		webhookID = strings.ToValidUTF8(string(r[:min(len(r), 200)]), "")
	}
	err := s.DB.InTx(context.WithoutCancel(ctx), func(tx *db.Tx) error {
		if err := tx.InboundDelivery.Create().SetHookID(hookID).SetReceivedAt(s.now()).SetWebhookID(webhookID).
			SetOutcome(inbounddelivery.Outcome(outcome)).SetStatus(int32(status)).Exec(ctx); err != nil {
			return err
		}
		old, err := tx.InboundDelivery.Query().Where(inbounddelivery.HookID(hookID)).
			Order(ent.Desc(inbounddelivery.FieldReceivedAt), ent.Desc(inbounddelivery.FieldID)).Offset(keptDeliveries).IDs(ctx)
		if err != nil || len(old) == 0 {
			return err
		}
		_, err = tx.InboundDelivery.Delete().Where(inbounddelivery.IDIn(old...)).Exec(ctx)
		return err
	})
	if err != nil {
		slog.ErrorContext(ctx, "inbound: delivery log", "hook", hookID, "error", err)
	}
}

// received says a delivery of webhookID to the hook already took effect:
// a replay need not ask the provider again (the receipt's unique index,
// in the unit of work, is what makes it change nothing).
func (s *Service) received(ctx context.Context, hookID, webhookID string) bool {
	if webhookID == "" {
		return false
	}
	seen, err := s.DB.InboundReceipt.Query().Where(inboundreceipt.HookID(hookID), inboundreceipt.WebhookID(webhookID)).Exist(ctx)
	return err == nil && seen
}
