package spoke

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// feeTimeout bounds the hub's fee check at a settlement: a settlement does
// not wait long for a hub that is away.
const feeTimeout = 5 * time.Second

// CheckFee asks the hub's validate-payment, before a paid execution of one
// of this instance's own listings is settled, whether its fee holds (the
// review's FeeCheck). nil when nothing is asked: a standalone or a hub, an
// instance not joined, an unpaid or unlinked execution or a listing held for another
// instance. A hub that cannot be reached (or refuses the call) gives a
// check that is not validated, and the local fee stands
// (docs/decisions.md "Federation platform routes (issue 14)").
func (s *Admin) CheckFee(ctx context.Context, ex *ent.Execution) *payments.HubCheck {
	if s.spoke.Role == "hub" || ex.Gross == nil || ex.FeePercent == nil || ex.AgentID == nil {
		return nil
	}
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil || m == nil || m.JoinedAt == nil {
		if err != nil {
			s.spoke.Logger.Warn("federation: the membership could not be read for a fee check", "err", err)
		}
		return nil
	}
	own, err := s.spoke.DB.StoreAgent.Query().Where(storeagent.ID(*ex.AgentID), storeagent.SourceInstanceIDIsNil()).Exist(ctx)
	if err != nil || !own {
		return nil
	}
	token, err := s.spoke.token(m)
	if err != nil {
		s.spoke.Logger.Warn("federation: no platform token for the fee check", "execution", ex.ID, "err", err)
		return &payments.HubCheck{}
	}
	cctx, cancel := context.WithTimeout(ctx, feeTimeout)
	defer cancel()
	gross := ex.Gross.Float()
	res, err := switchboardv1connect.NewFederationPlatformServiceClient(s.spoke.client, m.HubURL).ValidatePayment(
		withBearer(cctx, token), &switchboardv1.ValidatePaymentRequest{TransactionType: payments.TransactionMarketplace,
			GrossAmount: &gross, ProposedFeePercent: ex.FeePercent, AgentId: *ex.AgentID, ExecutionId: ex.ID})
	if err != nil {
		s.spoke.Logger.Warn("federation: the hub's fee check failed; settling with the local fee", "execution", ex.ID,
			"hub", m.HubURL, "err", err)
		return &payments.HubCheck{}
	}
	enforced := res.GetEnforcedFeePercent()
	return &payments.HubCheck{Validated: res.GetValid(), EnforcedFeePercent: &enforced}
}
