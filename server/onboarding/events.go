package onboarding

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/apikey"
	"github.com/switchboard-hq/switchboard/ent/assistantmessage"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/onboarding/rules"
)

// The steps' real actions, as the subscription table (server/subscriptions.go)
// reports them from the other areas' domain events. Before setup-project
// there is no checklist and they change nothing: setup-project reads what
// was done (already).

// Done completes step for userID in the unit of work of the action that did
// it (how: ByAction, or BySettings for a settings save). Nothing happens
// without a checklist, or when the step is done.
func (s *Service) Done(ctx context.Context, tx *db.Tx, userID string, step vocab.OnboardingStep, how rules.How) error {
	r, err := row(ctx, tx.Client(), userID)
	if err != nil || r == nil || r.CompletedAt != nil || contains(r.Steps, string(step)) {
		return err
	}
	if err := lock(ctx, tx, userID); err != nil {
		return err
	}
	if r, err = row(ctx, tx.Client(), userID); err != nil { // another may have held the lock first
		return err
	}
	_, err = s.apply(ctx, tx, r, []string{string(step)}, how, actor)
	return err
}

// Installed hears an account's installs change, after the commit (the
// store's and the packs' InstallsChanged): an install of either completes
// the store step, in a unit of work of its own.
func (s *Service) Installed(ctx context.Context, userID string) {
	ctx = context.WithoutCancel(ctx)
	err := s.DB.InTx(ctx, func(tx *db.Tx) error {
		r, err := row(ctx, tx.Client(), userID)
		if err != nil || r == nil || r.CompletedAt != nil || contains(r.Steps, string(vocab.OnboardingStepStore)) {
			return err
		}
		if ok, err := installed(ctx, tx.Client(), userID); err != nil || !ok {
			return err
		}
		return s.Done(ctx, tx, userID, vocab.OnboardingStepStore, rules.ByAction)
	})
	if err != nil {
		s.Logger.ErrorContext(ctx, "onboarding: the store step", "user", userID, "err", err)
	}
}

// installed says whether the account has a store agent or an active
// capability pack installed (a pack it created is installed for it).
func installed(ctx context.Context, c *ent.Client, userID string) (bool, error) {
	ok, err := c.StoreInstall.Query().Where(storeinstall.UserID(userID)).Exist(ctx)
	if err != nil || ok {
		return ok, err
	}
	return c.CapabilityInstall.Query().Where(capabilityinstall.UserID(userID), capabilityinstall.Active(true)).Exist(ctx)
}

// already answers the steps whose action the account did before the
// checklist existed, read from what those actions left: a key (revoked
// ones too), auto-approve on, a contact, an install, an accepted
// connection or (for an admin, who joins) the instance's joined hub, a
// message to the assistant.
func already(ctx context.Context, c *ent.Client, p *auth.Principal) ([]string, error) {
	u := p.UserID
	checks := []struct {
		step vocab.OnboardingStep
		did  func() (bool, error)
	}{
		{vocab.OnboardingStepAPIKey, func() (bool, error) { return c.APIKey.Query().Where(apikey.UserID(u)).Exist(ctx) }},
		{vocab.OnboardingStepAutoApprove, func() (bool, error) {
			return c.Setting.Query().Where(setting.UserID(u), setting.QueueAutoApprove(true)).Exist(ctx)
		}},
		{vocab.OnboardingStepContact, func() (bool, error) { return c.Contact.Query().Where(contact.UserID(u)).Exist(ctx) }},
		{vocab.OnboardingStepStore, func() (bool, error) { return installed(ctx, c, u) }},
		{vocab.OnboardingStepNetwork, func() (bool, error) {
			ok, err := c.NetworkConnection.Query().Where(networkconnection.UserID(u),
				networkconnection.StatusEQ(networkconnection.StatusActive)).Exist(ctx)
			if err != nil || ok || p.Role != string(vocab.UserRoleAdmin) {
				return ok, err
			}
			return c.FederationMembership.Query().Where(federationmembership.JoinedAtNotNil()).Exist(ctx)
		}},
		{vocab.OnboardingStepAssistant, func() (bool, error) {
			return c.AssistantMessage.Query().Where(assistantmessage.UserID(u), assistantmessage.RoleEQ(assistantmessage.RoleUser)).Exist(ctx)
		}},
	}
	var done []string
	for _, ch := range checks {
		ok, err := ch.did()
		if err != nil {
			return nil, err
		}
		if ok {
			done = append(done, string(ch.step))
		}
	}
	return done, nil
}

func contains(list []string, v string) bool { return indexIn(list, v) >= 0 }
