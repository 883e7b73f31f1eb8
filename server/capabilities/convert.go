package capabilities

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// viewOf renders one pack for the caller.
func (s *Service) viewOf(ctx context.Context, userID string, pack *ent.CapabilityPack, inst *ent.CapabilityInstall) (*switchboardv1.CapabilityPack, error) {
	set, err := s.connectedSet(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.toPack(userID, pack, inst, set)
}

// toPack applies the visibility rules: the prompt only to the owner and to
// an account with an active installation (the prompt is hidden until
// installed), the password value only to the owner, the customizations
// and resolved prompt only while installed.
func (s *Service) toPack(userID string, pack *ent.CapabilityPack, inst *ent.CapabilityInstall, connected map[string]bool) (*switchboardv1.CapabilityPack, error) {
	owner := pack.UserID == userID
	installed := inst != nil && inst.Active
	fields, err := json.Marshal(pack.EditableFields)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.CapabilityPack{
		CapabilityId: pack.ID, UserId: pack.UserID, Name: pack.Name,
		Description: pack.Description, Icon: pack.Icon, Category: pack.Category,
		IntegrationType: pack.IntegrationType, PricingModel: pack.PricingModel, Price: pack.Price.Float(),
		EditableFields:       string(fields),
		HasAccessPassword:    sealedPassword(pack) != nil,
		IntegrationConnected: pack.IntegrationType == nil || connected[*pack.IntegrationType],
		Installed:            installed,
		Customizations:       map[string]string{},
		CreatedAt:            timestamppb.New(pack.CreatedAt), UpdatedAt: timestamppb.New(pack.UpdatedAt),
	}
	if owner || installed {
		out.Prompt = &pack.Prompt
	}
	if installed {
		out.Customizations = inst.Customizations
		if out.Customizations == nil {
			out.Customizations = map[string]string{}
		}
		out.ResolvedPrompt = inst.ResolvedPrompt
	}
	if sealed := sealedPassword(pack); owner && sealed != nil {
		if s.Secrets == nil {
			return nil, &apperr.Error{Kind: apperr.KindUnavailable,
				Message: "this instance has no secret key configured, so it cannot show the access password"}
		}
		pw, err := s.Secrets.Open(sealed, passwordAAD(pack.ID))
		if err != nil {
			return nil, err
		}
		v := string(pw)
		out.AccessPassword = &v
	}
	return out, nil
}

// sealedPassword is the pack's sealed access password, nil when none (ent
// reads a NULL bytes column as a pointer to an empty slice).
func sealedPassword(pack *ent.CapabilityPack) []byte {
	if pack.AccessPasswordSealed == nil || len(*pack.AccessPasswordSealed) == 0 {
		return nil
	}
	return *pack.AccessPasswordSealed
}
