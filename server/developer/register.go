package developer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/shipgaterun"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
)

// The self-registration enumerations (vocabulary.proto).
var (
	selfCategories = vocab.Values("developer_category")
	selfPricing    = vocab.Values("developer_pricing_model")
)

// checkSelfInput applies the self-registration rules on top of the store's:
// the narrower enumerations and, on registration, the required fields.
func checkSelfInput(a *switchboardv1.DeveloperAgentInput, create bool) error {
	if a == nil {
		return apperr.Invalid("the agent's fields are required")
	}
	if create {
		for _, f := range []struct {
			wire string
			v    *string
		}{{"name", a.Name}, {"slug", a.Slug}, {"description", a.Description}, {"endpointUrl", a.EndpointUrl},
			{"category", a.Category}, {"pricingModel", a.PricingModel}} {
			if f.v == nil || strings.TrimSpace(*f.v) == "" {
				return apperr.Invalid("%s is required", f.wire)
			}
		}
		if len(a.GetDeclaredWidgetTypes()) == 0 {
			return apperr.Invalid("declaredWidgetTypes is required: at least one of choice_card, action_list, info_card, payment_prompt")
		}
	}
	if a.Category != nil && !slices.Contains(selfCategories, *a.Category) {
		return apperr.OneOf("category", *a.Category, selfCategories)
	}
	if a.PricingModel != nil && !slices.Contains(selfPricing, *a.PricingModel) {
		return apperr.OneOf("pricingModel", *a.PricingModel, selfPricing)
	}
	return nil
}

// toStoreInput hands the fields to the store, whose rules then apply.
func toStoreInput(a *switchboardv1.DeveloperAgentInput, withSlug bool) *switchboardv1.StoreAgentInput {
	in := &switchboardv1.StoreAgentInput{
		Name: a.Name, Description: a.Description, EndpointUrl: a.EndpointUrl,
		DeveloperName: a.DeveloperName, Category: a.Category, PricingModel: a.PricingModel,
		PricePerTask: a.PricePerTask, Currency: a.Currency, DeclaredWidgetTypes: a.DeclaredWidgetTypes,
		InputFormat: a.InputFormat, AuthMethod: a.AuthMethod, AuthCredential: a.AuthCredential,
		HealthCheckUrl: a.HealthCheckUrl, TaskTypes: a.TaskTypes, ContextInstructions: a.ContextInstructions,
		SupportsA2A: a.SupportsA2A, SupportsMcp: a.SupportsMcp, Version: a.Version,
	}
	if withSlug {
		in.Slug = a.Slug
	}
	return in
}

// checkInstanceURL applies the address rule to the developer's instance URL,
// where the approval webhook goes, and then RULINGS "Details for the house
// issue": it must be the verified baseUrl of an instance joined to this hub
// (the webhook carries that instance's key), else 400. A given URL is
// replaced by that instance's baseUrl as recorded.
func (s *Service) checkInstanceURL(ctx context.Context, raw *string) error {
	if raw == nil {
		return nil
	}
	u, err := egress.ParseURL(*raw)
	if err != nil {
		return apperr.Invalid("instanceUrl: %v", err)
	}
	if err := s.Egress.CheckURL(ctx, u); err != nil {
		// The refusal names the flag that would admit the address.
		return apperr.Invalid("instanceUrl: %v", err)
	}
	inst, err := s.DB.FederationInstance.Query().Where(federationinstance.BaseURL(strings.TrimRight(u.String(), "/")),
		federationinstance.LeftAtIsNil()).First(ctx)
	if ent.IsNotFound(err) {
		return apperr.Invalid("instanceUrl must be the verified address of an instance joined to this hub; %s is not", *raw)
	}
	if err != nil {
		return err
	}
	*raw = inst.BaseURL
	return nil
}

func (s *Service) prober() Prober {
	s.proberOnce.Do(func() { s.defaultProber = newDispatchProber(s.Egress, s.Now) })
	if s.Prober != nil {
		return s.Prober
	}
	return s.defaultProber
}

// RegisterDeveloperAgent registers an agent through the ship-gate: input
// checks, health check, conformance probe, then in one transaction the
// listing (pending, or active when auto-promoted), its ship-gate run and the
// connect token's consumption. A probe that does not conform still registers.
func (s *Service) RegisterDeveloperAgent(ctx context.Context, req *switchboardv1.RegisterDeveloperAgentRequest) (*switchboardv1.RegisterDeveloperAgentResponse, error) {
	d, err := s.caller(ctx, false)
	if err != nil {
		return nil, err
	}
	a := req.GetAgent()
	if err := checkSelfInput(a, true); err != nil {
		return nil, err
	}
	if err := s.checkInstanceURL(ctx, a.InstanceUrl); err != nil {
		return nil, err
	}
	checked, err := s.Store.Check(ctx, toStoreInput(a, true))
	if err != nil {
		return nil, err
	}
	if taken, err := s.Store.SlugTaken(ctx, checked); err != nil {
		return nil, err
	} else if taken {
		return nil, apperr.Conflict("slug %q is already taken", a.GetSlug())
	}
	out := &switchboardv1.RegisterDeveloperAgentResponse{}
	if out.HealthCheck, err = s.health(ctx, a); err != nil {
		return nil, err
	}
	// The probe sees the agent as it will be stored.
	probeAgent := &ent.StoreAgent{EndpointURL: a.EndpointUrl, InputFormat: storeagent.InputFormatText, AuthMethod: storeagent.AuthMethodNone}
	if a.InputFormat != nil {
		probeAgent.InputFormat = storeagent.InputFormat(*a.InputFormat)
	}
	if a.AuthMethod != nil {
		probeAgent.AuthMethod = storeagent.AuthMethod(*a.AuthMethod)
	}
	task := seededTask(a.GetName())
	verdict := s.prober().Probe(ctx, probeAgent, a.GetAuthCredential(), task)
	selfToken, selfHash := auth.NewToken(auth.SelfConfigPrefix)

	var row *ent.StoreAgent
	status := func(tx *db.Tx) (string, error) {
		if !verdict.Conforms {
			return statusPending, nil
		}
		live, err := tx.StoreAgent.Query().Where(storeagent.UserID(d.userID), storeagent.StatusEQ(storeagent.StatusActive)).Exist(ctx)
		if err != nil {
			return "", err
		}
		if live {
			return statusActive, nil // auto-promoted
		}
		return statusPending, nil
	}
	after := func(tx *db.Tx, created *ent.StoreAgent) error {
		if err := s.consume(ctx, tx, d, created.ID); err != nil {
			return err
		}
		run, err := s.saveRun(ctx, tx, created.ID, shipgaterun.TriggerRegistration, task, verdict)
		if err != nil {
			return err
		}
		out.ShipGateRun = toShipGateRun(run)
		row, err = tx.StoreAgent.UpdateOneID(created.ID).SetSelfConfigTokenHash(selfHash).
			SetNillableSourceInstanceURL(a.InstanceUrl).Save(ctx)
		if err != nil {
			return err
		}
		return nil
	}
	if _, err := s.Store.CreateChecked(ctx, d.userID, checked, status, after); err != nil {
		return nil, err
	}
	out.Agent = store.OwnerView(row)
	out.EndpointProbe = toProbe(verdict)
	out.WidgetAnalysis = analyzeWidgets(a.GetDeclaredWidgetTypes(), a.GetCategory(), a.GetPricingModel())
	out.WidgetRecommendations = recommendWidgets(a.GetDeclaredWidgetTypes(), a.GetCategory(), a.GetPricingModel())
	out.SelfConfigToken = selfToken
	return out, nil
}

// health runs the health check unless skipped or there is no healthCheckUrl;
// anything but 200 refuses the registration.
func (s *Service) health(ctx context.Context, a *switchboardv1.DeveloperAgentInput) (*switchboardv1.HealthCheck, error) {
	if a.GetSkipHealthCheck() || a.GetHealthCheckUrl() == "" {
		return &switchboardv1.HealthCheck{Status: "skipped"}, nil
	}
	status, err := healthCheck(ctx, s.Egress.Client(healthTimeout), a.GetHealthCheckUrl())
	if err != nil {
		return nil, apperr.Invalid("health check failed: GET healthCheckUrl did not answer (%s); fix it or send skipHealthCheck: true", errText(err))
	}
	if status != 200 {
		return nil, apperr.Invalid("health check failed: GET healthCheckUrl answered HTTP %d, not 200; fix it or send skipHealthCheck: true", status)
	}
	code := int32(status)
	return &switchboardv1.HealthCheck{Status: "checked", HttpStatus: &code}, nil
}

// saveRun persists a ship-gate run of the verdict.
func (s *Service) saveRun(ctx context.Context, tx *db.Tx, agentID string, trigger shipgaterun.Trigger, task string, v Verdict) (*ent.ShipGateRun, error) {
	run, err := tx.ShipGateRun.Create().SetAgentID(agentID).SetTrigger(trigger).SetTask(task).
		SetPassed(v.Conforms).SetHint(v.Hint).SetNillableHTTPStatus(v.HTTPStatus).
		SetResponseTimeMs(v.ResponseMS).SetCreatedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	return run, nil
}

// UpdateDeveloperAgent changes an agent the developer manages (its own, or
// one of a developer whose team it belongs to), found by slug. A breaking
// change (endpoint, auth method, pricing model) sends a listed or rejected
// agent back to pending: the ship-gate again.
func (s *Service) UpdateDeveloperAgent(ctx context.Context, req *switchboardv1.UpdateDeveloperAgentRequest) (*switchboardv1.UpdateDeveloperAgentResponse, error) {
	d, err := s.caller(ctx, false)
	if err != nil {
		return nil, err
	}
	a := req.GetAgent()
	if a.GetSlug() == "" {
		return nil, apperr.Invalid("slug is required: it names the agent to change")
	}
	if err := checkSelfInput(a, false); err != nil {
		return nil, err
	}
	if a.GetSkipHealthCheck() {
		return nil, apperr.Invalid("skipHealthCheck applies to registration only")
	}
	cur, err := s.bySlug(ctx, d.userID, a.GetSlug())
	if err != nil {
		return nil, err
	}
	row, change, err := s.change(ctx, cur, a, func(row *ent.StoreAgent, breaking bool) string {
		return store.ShipGateAfterChange(string(row.Status), breaking)
	})
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.UpdateDeveloperAgentResponse{
		Agent:                 store.OwnerView(row),
		WidgetRecommendations: recommendWidgets(row.DeclaredWidgetTypes, derefString(row.Category), row.PricingModel),
	}
	if change != nil {
		out.Change, out.ReviewRequired = change, change.Breaking
	}
	return out, nil
}

// bySlug finds the agent slug among those userID manages; else 404.
func (s *Service) bySlug(ctx context.Context, userID, slug string) (*ent.StoreAgent, error) {
	notFound := apperr.NotFound("agent %q not found among your agents", slug)
	id, err := s.DB.StoreAgent.Query().Where(storeagent.Slug(slug)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	} else if err != nil {
		return nil, err
	}
	row, _, err := managed(ctx, s.DB.Client, userID, id)
	if err != nil && apperr.From(err).Kind == apperr.KindNotFound {
		return nil, notFound
	}
	return row, err
}

// change applies a developer's change to cur through the store (on its
// owner's behalf), statusAfter deciding the status after a breaking one,
// and records the developer's instance URL. The entry is nil when nothing
// changed.
func (s *Service) change(ctx context.Context, cur *ent.StoreAgent, a *switchboardv1.DeveloperAgentInput,
	statusAfter func(row *ent.StoreAgent, breaking bool) string) (*ent.StoreAgent, *switchboardv1.ChangelogEntry, error) {
	if err := s.checkInstanceURL(ctx, a.InstanceUrl); err != nil {
		return nil, nil, err
	}
	row, change, err := s.Store.UpdateListing(ctx, cur.UserID, cur.ID, toStoreInput(a, false), statusAfter)
	if err != nil {
		return nil, nil, err
	}
	if a.InstanceUrl != nil && derefString(row.SourceInstanceURL) != *a.InstanceUrl {
		if row, err = s.DB.StoreAgent.UpdateOneID(row.ID).SetSourceInstanceURL(*a.InstanceUrl).Save(ctx); err != nil {
			return nil, nil, err
		}
	}
	if change == nil {
		return row, nil, nil
	}
	entry := &switchboardv1.ChangelogEntry{Version: change.Version, Breaking: change.Breaking, Fields: change.Fields, CreatedAt: ts(change.At)}
	if change.Notes != "" {
		entry.Notes = &change.Notes
	}
	return row, entry, nil
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RunDeveloperAgentTest re-dispatches the probe and persists its run, for
// an agent the developer manages (a self-config token: its own agent only).
func (s *Service) RunDeveloperAgentTest(ctx context.Context, req *switchboardv1.RunDeveloperAgentTestRequest) (*switchboardv1.RunDeveloperAgentTestResponse, error) {
	d, err := s.caller(ctx, true)
	if err != nil {
		return nil, err
	}
	id := req.GetId()
	if id == "" || (d.via == viaSelfConfig && d.agentID != id) {
		return nil, apperr.NotFound("agent %q not found among your agents", id)
	}
	row, _, err := managed(ctx, s.DB.Client, d.userID, id)
	if err != nil {
		return nil, err
	}
	verdict, run, err := s.testRun(ctx, row)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RunDeveloperAgentTestResponse{EndpointProbe: toProbe(verdict), ShipGateRun: toShipGateRun(run)}, nil
}

// testRun probes row with its seeded task and persists the run.
func (s *Service) testRun(ctx context.Context, row *ent.StoreAgent) (Verdict, *ent.ShipGateRun, error) {
	credential, err := s.credential(row)
	if err != nil {
		return Verdict{}, nil, err
	}
	task := seededTask(row.Name)
	verdict := s.prober().Probe(ctx, row, credential, task)
	var run *ent.ShipGateRun
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		run, err = s.saveRun(ctx, tx, row.ID, shipgaterun.TriggerTestRun, task, verdict)
		return err
	})
	if err != nil {
		return Verdict{}, nil, err
	}
	return verdict, run, nil
}

// credential opens the agent's sealed credential for a call.
func (s *Service) credential(row *ent.StoreAgent) (string, error) {
	if row.AuthCredentialEncrypted == nil || len(*row.AuthCredentialEncrypted) == 0 {
		return "", nil
	}
	if s.Store.Secrets == nil {
		return "", &apperr.Error{Kind: apperr.KindUnavailable, Message: "the instance has no secret key to open the agent's credential"}
	}
	plain, err := s.Store.Secrets.Open(*row.AuthCredentialEncrypted, store.CredentialAAD(row.ID))
	if err != nil {
		return "", apperr.Internal(fmt.Errorf("open agent credential: %w", err))
	}
	return string(plain), nil
}
