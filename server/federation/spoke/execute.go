package spoke

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// EventResult names the outbox rows that carry a result back to the hub.
const EventResult = "federation.result"

// The spoke's side of hub-to-spoke execution: FederationSpokeService.

// fromHub checks the credential of a call from this instance's hub: its own
// secret in X-Federation-Token. Anything else is 401.
func (s *Inbound) fromHub(ctx context.Context, route string) (*ent.FederationMembership, error) {
	token := auth.CredentialsFrom(ctx).FederationToken
	if _, err := tokenOf(token, auth.InstanceKeyPrefix, route); err != nil {
		return nil, err
	}
	m, err := s.spoke.OwnSecret(ctx, token)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, apperr.Unauthenticated("%s: invalid %s: it takes this instance's secret, which only the hub it joined holds", route, federation.InstanceHeader)
	}
	return m, nil
}

// OwnSecret answers this instance's membership when token is its own secret
// (sbi_…, which only its hub holds), nil when it is not (or there is no
// membership).
func (s *Core) OwnSecret(ctx context.Context, token string) (*ent.FederationMembership, error) {
	if !strings.HasPrefix(token, auth.InstanceKeyPrefix) {
		return nil, nil
	}
	m, err := s.membership(ctx, s.DB.Client)
	if err != nil || m == nil || m.APIKeyHash == nil || !federation.SameHash(auth.HashToken(token), *m.APIKeyHash) {
		return nil, err
	}
	return m, nil
}

// tokenOf checks that a token sent in X-Federation-Token is of the kind
// want and answers its hash.
func tokenOf(token, want, route string) (string, error) {
	if !strings.HasPrefix(token, want) {
		return "", apperr.Unauthenticated("%s takes %s (%s…) in %s", route, auth.KindOf(want), want, federation.InstanceHeader)
	}
	return auth.HashToken(token), nil
}

// Execute takes an execution of one of this instance's listings from its
// hub and runs it in the background: its own agent, through its own
// dispatch, isolation output_only, no hold here (the hub holds). The same
// hub execution id answers the execution it already made.
func (s *Inbound) Execute(ctx context.Context, req *switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
	var missing []string
	for name, v := range map[string]string{"executionId": req.GetExecutionId(), "listingId": req.GetListingId(),
		"input": req.GetInput(), "callbackUrl": req.GetCallbackUrl(), "callbackToken": req.GetCallbackToken()} {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, apperr.Invalid("required: %s", strings.Join(missing, ", "))
	}
	m, err := s.fromHub(ctx, "execute")
	if err != nil {
		return nil, err
	}
	if s.Engine == nil || s.spoke.Secrets == nil {
		return refuse("this instance runs no store executions"), nil
	}
	want := m.HubURL + strings.Replace(federation.ResultPath, "{id}", req.GetExecutionId(), 1)
	if req.GetCallbackUrl() != want {
		return nil, apperr.Invalid("callbackUrl must be %s: results go only to this instance's hub", want)
	}
	if prior, err := s.dispatched(ctx, req.GetExecutionId()); err != nil || prior != nil {
		return prior, err
	}
	listing, err := s.spoke.DB.StoreAgent.Query().Where(storeagent.ID(req.GetListingId()), storeagent.SourceInstanceIDIsNil()).Only(ctx)
	if ent.IsNotFound(err) {
		return refuse(fmt.Sprintf("no listing %q on this instance", req.GetListingId())), nil
	} else if err != nil {
		return nil, err
	}
	if listing.Status != storeagent.StatusActive {
		// The engine lets an owner run their own listing in any status; the
		// hub's dispatch is not the owner's own run.
		return refuse(fmt.Sprintf("listing %q is %s on this instance", listing.Slug, listing.Status)), nil
	}
	sealed, err := s.spoke.Secrets.SealText(req.GetCallbackToken(), callbackAAD(req.GetExecutionId()))
	if err != nil {
		return nil, apperr.Internal(err)
	}
	hubURL := m.HubURL
	r := engine.Request{
		AgentID: listing.ID, UserID: listing.UserID, Input: req.GetInput(), Origin: engine.OriginFederation,
		CallerInstanceURL: &hubURL, CallbackURL: &want,
		RemoteExecutionID: &req.ExecutionId, CallbackTokenSealed: &sealed, Background: true,
	}
	if who := req.GetRequester(); who != nil {
		r.RequesterName = who.Name
	}
	if u := req.GetRequester().GetInstanceUrl(); u != "" && u != hubURL {
		r.SourceInstanceName = &u
	}
	out, err := s.Engine.Execute(ctx, r)
	if err != nil {
		// The same execution sent twice at once: the unique id made one.
		if prior, perr := s.dispatched(ctx, req.GetExecutionId()); perr != nil || prior != nil {
			return prior, perr
		}
		if e := apperr.From(err); e.Kind != apperr.KindInternal {
			return refuse(e.Message), nil
		}
		return nil, err
	}
	id := out.Execution.ID
	return &switchboardv1.FederationSpokeServiceExecuteResponse{Accepted: true, SpokeExecutionId: &id}, nil
}

// dispatched answers the execution already made for the hub's executionID,
// nil when there is none.
func (s *Inbound) dispatched(ctx context.Context, executionID string) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
	ex, err := s.spoke.DB.Execution.Query().Where(execution.RemoteExecutionID(executionID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &switchboardv1.FederationSpokeServiceExecuteResponse{Accepted: true, SpokeExecutionId: &ex.ID}, nil
}

func refuse(reason string) *switchboardv1.FederationSpokeServiceExecuteResponse {
	return &switchboardv1.FederationSpokeServiceExecuteResponse{Reason: &reason}
}

func callbackAAD(hubExecutionID string) []byte {
	return []byte("executions.callback_token_sealed:" + hubExecutionID)
}

// Finished is the engine's hook on a spoke: an execution its hub dispatched
// has ended, so its result goes back to the hub through the outbox (in this
// transaction, on the federation retry schedule, with the platform token
// added at each attempt). The callback token then lives only in that row.
func (s *Inbound) Finished(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if ex.RemoteExecutionID == nil || ex.CallbackURL == nil || ex.CallbackTokenSealed == nil {
		return nil
	}
	m, err := s.spoke.membership(ctx, tx.Client())
	if err != nil {
		return err
	}
	if m == nil || m.InstanceID == nil || s.spoke.Secrets == nil {
		s.spoke.Logger.Warn("federation: a result for a hub this instance no longer belongs to is dropped", "execution", ex.ID)
		return nil
	}
	token, err := s.spoke.Secrets.OpenText(*ex.CallbackTokenSealed, callbackAAD(*ex.RemoteExecutionID))
	if err != nil {
		return fmt.Errorf("federation: callback token: %w", err)
	}
	res := &switchboardv1.DeliverFederationResultRequest{ExecutionId: *ex.RemoteExecutionID, CallbackToken: token,
		Status: string(vocab.CallbackStatusCompleted), Output: ex.Output}
	if ex.Status != execution.StatusCompleted {
		res.Status, res.Output, res.Error = string(vocab.CallbackStatusFailed), nil, federation.FailureText(ex)
	}
	body, err := protojson.Marshal(res)
	if err != nil {
		return err
	}
	err = webhooks.EnqueueForward(ctx, tx, webhooks.Forward{UserID: ex.UserID, Event: EventResult, URL: *ex.CallbackURL,
		Body: body, At: s.spoke.now(), InstanceID: *m.InstanceID})
	if err != nil {
		return err
	}
	return tx.Execution.UpdateOneID(ex.ID).ClearCallbackTokenSealed().Exec(ctx)
}

// Credential is the header a spoke's outbox adds to a delivery for its hub
// (instance id is this instance's id on the hub): the platform token, opened
// now. A membership that ended is not found.
func (s *Core) Credential(ctx context.Context, id string) (header, value string, found bool, err error) {
	m, err := s.membership(ctx, s.DB.Client)
	if err != nil || m == nil || m.InstanceID == nil || *m.InstanceID != id || m.PlatformTokenSealed == nil {
		return "", "", false, err
	}
	token, err := s.token(m)
	if err != nil {
		return "", "", false, err
	}
	return "Authorization", "Bearer " + token, true, nil
}
