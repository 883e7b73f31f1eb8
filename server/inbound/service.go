// Package inbound owns the operator's inbound webhooks (RULINGS "The
// proactive layer"): their configuration (InboundWebhookService, session
// only), the delivery door at /api/webhooks/<kind>/<id> (a plain HTTP
// handler: the signature covers the raw body) and what each kind's
// delivery becomes, in the delivery's one unit of work. The decisions
// without storage live in server/inbound/rules.
package inbound

import (
	"context"
	"encoding/json"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/inbounddelivery"
	"github.com/switchboard-hq/switchboard/ent/inboundreceipt"
	"github.com/switchboard-hq/switchboard/ent/inboundwebhook"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/inbound/rules"
	"github.com/switchboard-hq/switchboard/server/queue"
)

var _ switchboardv1connect.InboundWebhookServiceHandler = (*Service)(nil)

// Path is where deliveries go: Path + <kind>/<id>.
const Path = "/api/webhooks/"

// shownDeliveries is how many log lines the list shows per hook; kept is
// how many each hook keeps.
const (
	shownDeliveries = 10
	keptDeliveries  = 100
)

// Service implements InboundWebhookService and serves deliveries.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Secrets seals the hooks' secrets; nil (no instance key) refuses to
	// make a hook.
	Secrets *secrets.Box
	// PublicURL begins each hook's URL ("" leaves the path alone).
	PublicURL string
	// BodyLimit is the largest delivery body taken.
	BodyLimit int64
	Queue     *queue.Service
	// LLM, when configured, extracts a transcript's action items (RULINGS
	// "The proactive layer"); without one, or when it fails, the action
	// lines do.
	LLM *llm.Client
	// Logger hears a provider that failed (the lines were used instead).
	Logger *slog.Logger
}

func (s *Service) now() time.Time { return s.Now().UTC().Truncate(time.Microsecond) }

// secretAAD binds a sealed secret to its hook.
func secretAAD(id string) []byte { return []byte("inbound_webhook:" + id + ":secret") }

// URL is where a hook's sender delivers.
func (s *Service) URL(kind, id string) string {
	return strings.TrimSuffix(s.PublicURL, "/") + Path + kind + "/" + id
}

// newSecret makes a secret and seals it for hook id.
func (s *Service) newSecret(id string) (plain, sealed string, err error) {
	if s.Secrets == nil {
		return "", "", &apperr.Error{Kind: apperr.KindUnavailable,
			Message: "this instance has no secret key (SWITCHBOARD_SECRET_KEY), so it cannot keep a webhook's secret"}
	}
	if plain, err = rules.NewSecret(); err != nil {
		return "", "", apperr.Internal(err)
	}
	if sealed, err = s.Secrets.SealText(plain, secretAAD(id)); err != nil {
		return "", "", apperr.Internal(err)
	}
	return plain, sealed, nil
}

// CreateInboundWebhook makes a hook and answers its secret once.
func (s *Service) CreateInboundWebhook(ctx context.Context, req *switchboardv1.CreateInboundWebhookRequest) (*switchboardv1.CreateInboundWebhookResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if err := apperr.OneOf("kind", req.GetKind(), vocab.Values("inbound_webhook_kind")); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.GetName())
	if name == "" {
		return nil, apperr.Invalid("name must not be blank")
	}
	id := ids.New()
	plain, sealed, err := s.newSecret(id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	h, err := s.DB.Client.InboundWebhook.Create().SetID(id).SetUserID(p.UserID).
		SetKind(inboundwebhook.Kind(req.GetKind())).SetName(name).SetSecretSealed(sealed).
		SetAcceptUnsigned(req.GetAcceptUnsigned()).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateInboundWebhookResponse{Id: h.ID, Url: s.URL(string(h.Kind), h.ID), Secret: plain,
		Webhook: s.toProto(h, nil)}, nil
}

// ListInboundWebhooks lists the account's hooks with their last deliveries.
func (s *Service) ListInboundWebhooks(ctx context.Context, _ *switchboardv1.ListInboundWebhooksRequest) (*switchboardv1.ListInboundWebhooksResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	hooks, err := s.DB.Client.InboundWebhook.Query().Where(inboundwebhook.UserID(p.UserID)).
		Order(ent.Asc(inboundwebhook.FieldCreatedAt), ent.Asc(inboundwebhook.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListInboundWebhooksResponse{Webhooks: []*switchboardv1.InboundWebhook{}}
	for _, h := range hooks {
		log, err := s.DB.Client.InboundDelivery.Query().Where(inbounddelivery.HookID(h.ID)).
			Order(ent.Desc(inbounddelivery.FieldReceivedAt), ent.Desc(inbounddelivery.FieldID)).Limit(shownDeliveries).All(ctx)
		if err != nil {
			return nil, err
		}
		out.Webhooks = append(out.Webhooks, s.toProto(h, log))
	}
	return out, nil
}

// own loads one of p's hooks; another account's is not found.
func own(ctx context.Context, c *ent.Client, userID, id string) (*ent.InboundWebhook, error) {
	h, err := c.InboundWebhook.Query().Where(inboundwebhook.ID(id), inboundwebhook.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no inbound webhook %q", id)
	}
	return h, err
}

// UpdateInboundWebhook changes what the request supplies.
func (s *Service) UpdateInboundWebhook(ctx context.Context, req *switchboardv1.UpdateInboundWebhookRequest) (*switchboardv1.UpdateInboundWebhookResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var mapping *string
	if m := req.GetMapping(); m != nil {
		rm := rules.Mapping{Title: strings.TrimSpace(m.GetTitle()), Description: strings.TrimSpace(m.GetDescription()),
			Priority: strings.TrimSpace(m.GetPriority()), Due: strings.TrimSpace(m.GetDue())}
		for field, path := range map[string]string{"title": rm.Title, "description": rm.Description, "priority": rm.Priority, "due": rm.Due} {
			if err := rules.CheckPath(field, path); err != nil {
				return nil, apperr.Invalid("%s", err)
			}
		}
		b, _ := json.Marshal(rm)
		text := string(b)
		mapping = &text
	}
	h, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.InboundWebhook, error) {
		h, err := own(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		if mapping != nil && h.Kind != inboundwebhook.KindGeneric {
			return nil, apperr.Invalid("only a generic webhook has a mapping; %q is a %s webhook", h.Name, h.Kind)
		}
		up := h.Update().SetUpdatedAt(s.now())
		if req.Enabled != nil {
			up.SetEnabled(req.GetEnabled())
		}
		if req.AcceptUnsigned != nil {
			up.SetAcceptUnsigned(req.GetAcceptUnsigned())
		}
		if mapping != nil {
			up.SetMapping(*mapping)
		}
		return up.Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateInboundWebhookResponse{Webhook: s.toProto(h, nil)}, nil
}

// RotateInboundWebhookSecret replaces a hook's secret: the old one stops
// verifying when this commits.
func (s *Service) RotateInboundWebhookSecret(ctx context.Context, req *switchboardv1.RotateInboundWebhookSecretRequest) (*switchboardv1.RotateInboundWebhookSecretResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	h, err := own(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	plain, sealed, err := s.newSecret(h.ID)
	if err != nil {
		return nil, err
	}
	if err := h.Update().SetSecretSealed(sealed).SetUpdatedAt(s.now()).Exec(ctx); err != nil {
		return nil, err
	}
	return &switchboardv1.RotateInboundWebhookSecretResponse{Id: h.ID, Url: s.URL(string(h.Kind), h.ID), Secret: plain}, nil
}

// DeleteInboundWebhook removes a hook, its log and its receipts.
func (s *Service) DeleteInboundWebhook(ctx context.Context, req *switchboardv1.DeleteInboundWebhookRequest) (*switchboardv1.DeleteInboundWebhookResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	h, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.InboundWebhook, error) {
		h, err := own(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		if _, err := tx.InboundDelivery.Delete().Where(inbounddelivery.HookID(h.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		if _, err := tx.InboundReceipt.Delete().Where(inboundreceipt.HookID(h.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		return h, tx.InboundWebhook.DeleteOneID(h.ID).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteInboundWebhookResponse{Webhook: s.toProto(h, nil)}, nil
}

// mappingOf reads a hook's stored mapping (zero when none).
func mappingOf(h *ent.InboundWebhook) (rules.Mapping, bool) {
	var m rules.Mapping
	if h.Mapping == nil {
		return m, false
	}
	if err := json.Unmarshal([]byte(*h.Mapping), &m); err != nil {
		return rules.Mapping{}, false
	}
	return m, true
}

func (s *Service) toProto(h *ent.InboundWebhook, log []*ent.InboundDelivery) *switchboardv1.InboundWebhook {
	out := &switchboardv1.InboundWebhook{Id: h.ID, Kind: string(h.Kind), Name: h.Name, Url: s.URL(string(h.Kind), h.ID),
		Enabled: h.Enabled, AcceptUnsigned: h.AcceptUnsigned, CreatedAt: ts(h.CreatedAt), UpdatedAt: ts(h.UpdatedAt),
		Deliveries: []*switchboardv1.InboundDelivery{}}
	if m, ok := mappingOf(h); ok {
		out.Mapping = &switchboardv1.InboundMapping{Title: m.Title, Description: m.Description, Priority: m.Priority, Due: m.Due}
	}
	for _, d := range log {
		out.Deliveries = append(out.Deliveries, &switchboardv1.InboundDelivery{Id: d.ID, ReceivedAt: ts(d.ReceivedAt),
			WebhookId: d.WebhookID, Outcome: string(d.Outcome), Status: d.Status})
	}
	return out
}
