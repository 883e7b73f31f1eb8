// Package capabilities owns the capability packs (capabilities.proto): prompt
// templates with editable fields that every account can browse, that one
// account creates (and has installed at once) and that each account installs,
// customizes (the template resolved with its values) and uninstalls (soft: the
// row stays inactive). It also answers the smart-tasks list, built from the
// capability gate's inventory (server/capgate).
package capabilities

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	secretbox "github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Error codes (docs/decisions.md "Errors").
const (
	CodeIntegrationRequired = "INTEGRATION_REQUIRED"
	CodePaymentRequired     = "PAYMENT_REQUIRED"
)

// Service implements CapabilityService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Secrets seals access passwords so the owner can be shown them; nil
	// when the instance has no key, and then a pack with a password is 503.
	Secrets *secretbox.Box
	// Gate reads the handlers the smart-tasks list shows.
	Gate *capgate.Resolver
	// Guesses limits the attempts at a pack's access password.
	Guesses auth.Guesses
}

// InstallsChanged is published once an account's installed packs changed
// (an install or an uninstall has committed): the MCP door refreshes that
// account's tool and prompt lists.
type InstallsChanged struct{ UserID string }

// installed announces that userID's installed packs changed.
func (s *Service) installed(ctx context.Context, userID string) {
	if err := s.DB.Publish(ctx, InstallsChanged{UserID: userID}); err != nil {
		slog.Default().Error("installs changed", "err", err)
	}
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// passwordAAD binds a sealed password to its pack.
func passwordAAD(id string) []byte { return []byte("capability_pack:" + id + ":access_password") }

// InstallOrCreateCapability installs a pack, or creates one with action
// "create" (installed for its creator at once).
func (s *Service) InstallOrCreateCapability(ctx context.Context, req *switchboardv1.InstallOrCreateCapabilityRequest) (*switchboardv1.InstallOrCreateCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.InstallOrCreateCapabilityResponse
	switch req.GetAction() {
	case "create":
		out, err = s.create(ctx, p.UserID, req)
	case "", "install":
		out, err = s.install(ctx, p.UserID, req)
	default:
		return nil, apperr.Invalid("action %q is not one of create, install (or none for an install)", req.GetAction())
	}
	if err == nil {
		s.installed(ctx, p.UserID)
	}
	return out, err
}

func (s *Service) create(ctx context.Context, userID string, req *switchboardv1.InstallOrCreateCapabilityRequest) (*switchboardv1.InstallOrCreateCapabilityResponse, error) {
	in, err := parseCreate(req)
	if err != nil {
		return nil, err
	}
	id := ids.New()
	var sealed []byte
	if in.password != nil {
		if s.Secrets == nil {
			return nil, &apperr.Error{Kind: apperr.KindUnavailable,
				Message: "this instance has no secret key configured, so it cannot keep access passwords"}
		}
		if sealed, err = s.Secrets.Seal([]byte(*in.password), passwordAAD(id)); err != nil {
			return nil, apperr.Internal(err)
		}
	}
	resolved := resolvedOf(in.prompt, in.fields, nil)
	w := provenance.Of(ctx)
	var pack *ent.CapabilityPack
	var inst *ent.CapabilityInstall
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		now := s.now()
		c := tx.CapabilityPack.Create().SetID(id).SetUserID(userID).SetName(in.name).
			SetNillableDescription(in.description).SetNillableIcon(in.icon).SetNillableCategory(in.cat).
			SetNillableIntegrationType(in.integration).SetPricingModel(in.pricing).SetPrice(in.price).
			SetPrompt(in.prompt).SetEditableFields(in.fields).SetCreatedAt(now).SetUpdatedAt(now)
		provenance.SetCreated[capabilitypack.CreatedBy, capabilitypack.TextBy](c.Mutation(), w)
		if sealed != nil {
			c.SetAccessPasswordSealed(sealed)
		}
		if pack, err = c.Save(ctx); err != nil {
			return apperr.Internal(err)
		}
		inst, err = newInstall(ctx, tx, userID, id, map[string]string{}, resolved, w, now)
		if err != nil {
			return apperr.Internal(err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v, err := s.viewOf(ctx, userID, pack, inst)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.InstallOrCreateCapabilityResponse{Capability: v}, nil
}

// createOnly are the create fields an install must not carry (a stray one
// means the client meant a create and forgot the action).
func createOnly(req *switchboardv1.InstallOrCreateCapabilityRequest) bool {
	return req.GetName() != "" || req.Description != nil || req.Icon != nil || req.Category != nil ||
		req.IntegrationType != nil || req.GetPricingModel() != "" || req.Price != nil ||
		req.GetPrompt() != "" || req.GetEditableFields() != ""
}

// install checks, in order: the pack exists, is not installed yet, its
// integration is connected (422), and it is paid for or the password is
// right (402). The owner never pays for their own pack.
func (s *Service) install(ctx context.Context, userID string, req *switchboardv1.InstallOrCreateCapabilityRequest) (*switchboardv1.InstallOrCreateCapabilityResponse, error) {
	if req.GetCapabilityId() == "" {
		return nil, apperr.Invalid("capabilityId is required (or action \"create\" to create a pack)")
	}
	if createOnly(req) {
		return nil, apperr.Invalid("an install takes only capabilityId and accessPassword (a create needs action \"create\")")
	}
	pack, err := s.pack(ctx, req.GetCapabilityId())
	if err != nil {
		return nil, err
	}
	if pack.Status != capabilitypack.StatusActive { // a synced pack not approved (or suspended)
		return nil, apperr.NotFound("capability %q not found", pack.ID)
	}
	prev, err := s.installOf(ctx, userID, pack.ID)
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.Active {
		return nil, apperr.Conflict("capability %q is already installed", pack.Name)
	}
	if err := s.checkIntegration(ctx, userID, pack); err != nil {
		return nil, err
	}
	if err := s.checkPayment(ctx, userID, pack, req.AccessPassword); err != nil {
		return nil, err
	}
	custom := map[string]string{}
	if prev != nil {
		custom = prev.Customizations
	}
	resolved := resolvedOf(pack.Prompt, pack.EditableFields, custom)
	var inst *ent.CapabilityInstall
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		now := s.now()
		if prev != nil {
			// Conditional on inactive, so that of two racing installs one wins.
			n, err := tx.CapabilityInstall.Update().
				Where(capabilityinstall.ID(prev.ID), capabilityinstall.Active(false)).
				SetActive(true).SetNillableResolvedPrompt(resolved).SetUpdatedAt(now).Save(ctx)
			if err != nil {
				return apperr.Internal(err)
			}
			if n == 0 {
				return apperr.Conflict("capability %q is already installed", pack.Name)
			}
			inst, err = tx.CapabilityInstall.Get(ctx, prev.ID)
			return apperr.Wrap(err)
		}
		inst, err = newInstall(ctx, tx, userID, pack.ID, custom, resolved, provenance.Of(ctx), now)
		if ent.IsConstraintError(err) {
			return apperr.Conflict("capability %q is already installed", pack.Name)
		}
		return apperr.Wrap(err)
	})
	if err != nil {
		return nil, err
	}
	v, err := s.viewOf(ctx, userID, pack, inst)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.InstallOrCreateCapabilityResponse{Capability: v}, nil
}

// checkPayment: a one_time pack needs payment, which this instance has no
// path for yet, so only the right access password (or owning the pack) lets
// it install; anything else is 402 with the price. A password given for a
// pack that has one is a guess: counted before it is compared, and refused
// (429) past the client's or the pack's window, right or not.
func (s *Service) checkPayment(ctx context.Context, userID string, pack *ent.CapabilityPack, password *string) error {
	if pack.PricingModel != "one_time" || pack.UserID == userID {
		return nil
	}
	if sealed := sealedPassword(pack); password != nil && sealed != nil && s.Secrets != nil {
		if err := s.Guesses.Guess(ctx, "capability_pack:"+pack.ID); err != nil {
			return err
		}
		want, err := s.Secrets.Open(sealed, passwordAAD(pack.ID))
		if err != nil {
			return apperr.Internal(err)
		}
		if subtle.ConstantTimeCompare(want, []byte(*password)) == 1 {
			return nil
		}
	}
	price := pack.Price.Float()
	msg := "capability " + quote(pack.Name) + " is a paid pack: payment or its access password is required"
	if password != nil {
		msg = "capability " + quote(pack.Name) + " is a paid pack: the access password is not right, and payment is required"
	}
	return &apperr.Error{Kind: apperr.KindPaymentRequired, Message: msg,
		Detail: &switchboardv1.ErrorInfo{Code: CodePaymentRequired, Price: &price}}
}

// checkIntegration is the 422 INTEGRATION_REQUIRED (docs/decisions.md "Errors").
func (s *Service) checkIntegration(ctx context.Context, userID string, pack *ent.CapabilityPack) error {
	if pack.IntegrationType == nil {
		return nil
	}
	ok, err := s.connected(ctx, userID, *pack.IntegrationType)
	if err != nil || ok {
		return err
	}
	return &apperr.Error{
		Kind:    apperr.KindIntegrationRequired,
		Detail:  &switchboardv1.ErrorInfo{Code: CodeIntegrationRequired, RequiredIntegration: pack.IntegrationType},
		Message: "capability " + quote(pack.Name) + " needs the " + *pack.IntegrationType + " integration connected first",
	}
}

// GetCapability answers one pack as the caller sees it.
func (s *Service) GetCapability(ctx context.Context, req *switchboardv1.GetCapabilityRequest) (*switchboardv1.GetCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pack, err := s.pack(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	inst, err := s.installOf(ctx, p.UserID, pack.ID)
	if err != nil {
		return nil, err
	}
	v, err := s.viewOf(ctx, p.UserID, pack, inst)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetCapabilityResponse{Capability: v}, nil
}

// CustomizeCapability replaces the caller's values (fields left out take
// their default) and stores the resolved prompt; a variable left without a
// value is refused, and nothing is written.
func (s *Service) CustomizeCapability(ctx context.Context, req *switchboardv1.CustomizeCapabilityRequest) (*switchboardv1.CustomizeCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.changeInstall(ctx, p.UserID, req.GetId(), func(pack *ent.CapabilityPack, inst *ent.CapabilityInstall, u *ent.CapabilityInstallUpdate) error {
		values, err := checkCustomizations(pack.EditableFields, req.GetCustomizations())
		if err != nil {
			return err
		}
		resolved, missing := Resolve(pack.Prompt, defaults(pack.EditableFields), values)
		if len(missing) > 0 {
			return apperr.Invalid("no value for %s: give one in customizations (the field has no default)", joinQuoted(missing))
		}
		// The values are the install's words, replaced as a whole.
		by := provenance.Written(provenance.Read(string(inst.TextBy), inst.TextByRef), provenance.Of(ctx),
			provenance.Field{Before: valuesText(inst.Customizations), After: valuesText(values), Set: true})
		u.SetCustomizations(values).SetResolvedPrompt(resolved)
		provenance.SetText[capabilityinstall.TextBy](u.Mutation(), by)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CustomizeCapabilityResponse{Capability: v}, nil
}

// UninstallCapability disables the caller's installation; the row and its
// customizations stay for a later install.
func (s *Service) UninstallCapability(ctx context.Context, req *switchboardv1.UninstallCapabilityRequest) (*switchboardv1.UninstallCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.changeInstall(ctx, p.UserID, req.GetId(), func(_ *ent.CapabilityPack, _ *ent.CapabilityInstall, u *ent.CapabilityInstallUpdate) error {
		u.SetActive(false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.installed(ctx, p.UserID)
	return &switchboardv1.UninstallCapabilityResponse{Capability: v}, nil
}

// pack loads a pack by id; every account sees every pack.
func (s *Service) pack(ctx context.Context, id string) (*ent.CapabilityPack, error) {
	if id == "" {
		return nil, apperr.Invalid("id is required")
	}
	row, err := s.DB.CapabilityPack.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("capability %q not found", id)
	}
	return row, apperr.Wrap(err)
}

// installOf answers the caller's installation row of a pack, active or not;
// nil when none.
func (s *Service) installOf(ctx context.Context, userID, packID string) (*ent.CapabilityInstall, error) {
	row, err := s.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.CapabilityID(packID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return row, apperr.Wrap(err)
}

// activeInstall answers the pack and the caller's active installation; an
// installation is private, so a pack the caller has not installed is 404.
func (s *Service) activeInstall(ctx context.Context, userID, id string) (*ent.CapabilityPack, *ent.CapabilityInstall, error) {
	pack, err := s.pack(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	inst, err := s.installOf(ctx, userID, pack.ID)
	if err != nil {
		return nil, nil, err
	}
	if inst == nil || !inst.Active {
		return nil, nil, notInstalled()
	}
	return pack, inst, nil
}

// changeInstall applies set to the caller's active installation of pack id
// while it is still active (a concurrent uninstall makes it 404) and answers
// the pack's view. set only checks and sets (no I/O: it runs in the
// transaction); its error refuses the change and nothing is written.
func (s *Service) changeInstall(ctx context.Context, userID, id string,
	set func(*ent.CapabilityPack, *ent.CapabilityInstall, *ent.CapabilityInstallUpdate) error) (*switchboardv1.CapabilityPack, error) {
	pack, inst, err := s.activeInstall(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		u := tx.CapabilityInstall.Update().
			Where(capabilityinstall.ID(inst.ID), capabilityinstall.Active(true)).SetUpdatedAt(s.now())
		if err := set(pack, inst, u); err != nil {
			return err
		}
		n, err := u.Save(ctx)
		if err != nil {
			return apperr.Wrap(err)
		}
		if n == 0 {
			return notInstalled()
		}
		inst, err = tx.CapabilityInstall.Get(ctx, inst.ID)
		return apperr.Wrap(err)
	})
	if err != nil {
		return nil, err
	}
	return s.viewOf(ctx, userID, pack, inst)
}

// newInstall writes an active install of pack id for userID in tx, its
// values written by w.
func newInstall(ctx context.Context, tx *db.Tx, userID, id string, values map[string]string, resolved *string,
	w provenance.Mark, now time.Time) (*ent.CapabilityInstall, error) {
	create := tx.CapabilityInstall.Create().SetUserID(userID).SetCapabilityID(id).SetActive(true).
		SetCustomizations(values).SetNillableResolvedPrompt(resolved).SetCreatedAt(now).SetUpdatedAt(now)
	provenance.SetCreated[capabilityinstall.CreatedBy, capabilityinstall.TextBy](create.Mutation(), w)
	return create.Save(ctx)
}

// valuesText is an install's values as one text, in key order.
func valuesText(values map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(values)) {
		b.WriteString(k + "=" + values[k] + "\n")
	}
	return b.String()
}

func notInstalled() error { return apperr.NotFound("capability not installed") }
