// Package store owns the agent store's listings (store.proto): registering,
// browsing, changing (with version, changelog and re-review of breaking
// changes) and removing listings; subscriptions; installations, which write the
// integration kit into the installer's memory; ratings; earnings and the fee
// structure. Agent credentials are sealed with the instance key
// (internal/secrets) before any transaction starts, and are never answered.
//
// Executions, payment holds and the review lifecycle build on this package:
// the lock is store_agents.current_execution_id (set only where it is null,
// by one conditional UPDATE), and changes to a listing's rating or to its
// owner-written fields serialize on the key lockKey(id).
package store

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"golang.org/x/crypto/bcrypt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/agentqualitysignal"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/memoryentry"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/storesubscription"
	"github.com/switchboard-hq/switchboard/ent/storeunlock"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
	secretbox "github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Service implements StoreService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Egress is the address rule endpointUrl and healthCheckUrl must pass.
	Egress egress.Policy
	// Secrets seals agent credentials; nil when the instance has no secret
	// key, and then listings that need a credential are refused (503).
	Secrets *secretbox.Box
	// Policy decides the status of new listings and breaking changes.
	Policy ReviewPolicy
	// BcryptCost hashes access passwords; bcrypt.DefaultCost when zero.
	BcryptCost int
	// Guesses limits the attempts at a listing's access password (unlocks).
	Guesses auth.Guesses
	// Hub is true with --role hub: the store is the global store, and a
	// browse's scope defaults to all.
	Hub bool
	// Global is the hub's store of a joined instance (global and all
	// scopes); nil answers those as an instance that has not joined.
	Global Global
}

// InstallsChanged is published once an account's installed agents changed
// (an install or an uninstall has committed): the MCP door refreshes that
// account's tool and prompt lists.
type InstallsChanged struct{ UserID string }

// installed announces that userID's installed agents changed.
func (s *Service) installed(ctx context.Context, userID string) {
	if err := s.DB.Publish(ctx, InstallsChanged{UserID: userID}); err != nil {
		slog.Default().Error("installs changed", "err", err)
	}
}

// maxChangelog is how many changes a listing keeps (the newest).
const maxChangelog = 50

func (s *Service) now() time.Time { return s.Now().UTC() }

// lockKey serializes changes to one listing (on PostgreSQL; SQLite's write
// transactions already queue).
func lockKey(agentID string) string { return "store_agent:" + agentID }

// CredentialAAD binds a sealed credential to its listing: a value copied to
// another row does not open.
func CredentialAAD(agentID string) []byte {
	return []byte("store_agent:" + agentID + ":auth_credential")
}

// CreateStoreAgent registers a listing owned by the caller; under the review
// policy it waits for an admin.
func (s *Service) CreateStoreAgent(ctx context.Context, req *switchboardv1.CreateStoreAgentRequest) (*switchboardv1.CreateStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := s.CreateListing(ctx, p.UserID, req.GetAgent(), s.Policy.InitialStatus(), nil)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateStoreAgentResponse{Agent: toAgent(row, viewer{userID: p.UserID})}, nil
}

// Checked is a listing input that passed every rule that needs no
// transaction (parsing, the address rule, sealing), for CreateListingChecked.
type Checked struct {
	id  string
	in  *patch
	sec secrets
}

// ID is the id the listing will have.
func (c *Checked) ID() string { return c.id }

// Check validates a new listing's input for userID's CreateListing, so a caller
// can refuse before any outbound work (developer.proto: health check and probe
// come after the input is known to be good).
func (s *Service) Check(ctx context.Context, in *switchboardv1.StoreAgentInput) (*Checked, error) {
	p, err := parseInput(in, true)
	if err != nil {
		return nil, err
	}
	return s.checked(ctx, p)
}

// checked finishes Check's work on a parsed input: the slug from the name
// when none was given, the address rule, the secrets, the merge.
func (s *Service) checked(ctx context.Context, p *patch) (*Checked, error) {
	if p.slug == nil {
		slug := slugFrom(*p.name)
		if err := checkSlug(slug); err != nil {
			return nil, apperr.Invalid("slug is required: the name gives no usable slug (%v)", err)
		}
		p.slug = &slug
	}
	if err := s.checkURLs(ctx, p); err != nil {
		return nil, err
	}
	id := ids.New()
	sec, err := s.prepare(id, p)
	if err != nil {
		return nil, err
	}
	if _, _, err := merge(newListing(), p, sec); err != nil {
		return nil, err
	}
	return &Checked{id: id, in: p, sec: sec}, nil
}

// SlugTaken reports whether a listing already has slug (a 409 on every write
// path): a caller checks it before outbound work; the unique index still
// guards the race.
func (s *Service) SlugTaken(ctx context.Context, c *Checked) (bool, error) {
	taken, err := s.DB.StoreAgent.Query().Where(storeagent.Slug(*c.in.slug)).Exist(ctx)
	if err != nil {
		return false, err
	}
	return taken, nil
}

// CreateListing registers a listing owned by userID with the given status;
// after, when set, runs in the same transaction with the new row (the
// developer registration writes its ship-gate run there).
func (s *Service) CreateListing(ctx context.Context, userID string, in *switchboardv1.StoreAgentInput, status string, after func(tx *db.Tx, row *ent.StoreAgent) error) (*ent.StoreAgent, error) {
	c, err := s.Check(ctx, in)
	if err != nil {
		return nil, err
	}
	return s.CreateChecked(ctx, userID, c, func(*db.Tx) (string, error) { return status, nil }, after)
}

// CreateChecked stores a listing Check accepted. status answers the initial
// status inside the transaction (auto-promotion reads the owner's listings
// there).
func (s *Service) CreateChecked(ctx context.Context, userID string, c *Checked, status func(tx *db.Tx) (string, error), after func(tx *db.Tx, row *ent.StoreAgent) error) (*ent.StoreAgent, error) {
	return s.createChecked(ctx, userID, c, status, nil, after)
}

// beyond is what a save writes besides the owner-written listing (an
// instance agent's ownership and kit): the names of the parts it changes
// in row (nil on a create), and their write into the save's mutation.
type beyond struct {
	changed func(row *ent.StoreAgent) []string
	write   func(m *ent.StoreAgentMutation)
}

func (s *Service) createChecked(ctx context.Context, userID string, c *Checked, status func(tx *db.Tx) (string, error), x *beyond, after func(tx *db.Tx, row *ent.StoreAgent) error) (*ent.StoreAgent, error) {
	next, _, err := merge(newListing(), c.in, c.sec)
	if err != nil {
		return nil, err
	}
	var row *ent.StoreAgent
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		st, err := status(tx)
		if err != nil {
			return err
		}
		now := s.now()
		create := tx.StoreAgent.Create().SetID(c.id).SetUserID(userID).SetCreatedAt(now).SetUpdatedAt(now).
			SetStatus(storeagent.Status(st)).SetChangelog([]schema.ChangelogEntry{})
		if err := write(create.Mutation(), next, false); err != nil {
			return err
		}
		if x != nil {
			x.write(create.Mutation())
		}
		row, err = create.Save(ctx)
		if err := saveError(err, next.slug); err != nil {
			return err
		}
		if after != nil {
			return after(tx, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return row, nil
}

// OwnerView renders a listing as its owner sees it.
func OwnerView(row *ent.StoreAgent) *switchboardv1.StoreAgent {
	return toAgent(row, viewer{userID: row.UserID})
}

// UpdateStoreAgent changes the owner's listing. A change bumps the version
// (or takes the one supplied), is added to the changelog, and when breaking
// sends the listing back to review under the review policy. An update that
// changes nothing writes nothing.
func (s *Service) UpdateStoreAgent(ctx context.Context, req *switchboardv1.UpdateStoreAgentRequest) (*switchboardv1.UpdateStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, apperr.Invalid("id is required")
	}
	out := &switchboardv1.UpdateStoreAgentResponse{}
	row, change, err := s.UpdateListing(ctx, p.UserID, req.GetId(), req.GetAgent(), func(row *ent.StoreAgent, breaking bool) string {
		// A self-registered agent goes back through the ship-gate on this
		// path too, whatever the policy (docs/decisions.md "Store, federation, MCP, A2A").
		if row.SelfConfigTokenHash != nil {
			return ShipGateAfterChange(string(row.Status), breaking)
		}
		return s.Policy.StatusAfterChange(string(row.Status), breaking)
	})
	if err != nil {
		return nil, err
	}
	if change != nil {
		out.Change = toChange(*change)
	}
	if out.Agent, err = s.render(ctx, s.DB.Client, p.UserID, row); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateListing changes userID's listing id (see UpdateStoreAgent);
// statusAfter decides the status after a change (the store's review policy,
// or the ship-gate for self-registered agents). The change is nil when
// nothing changed.
func (s *Service) UpdateListing(ctx context.Context, userID, id string, req *switchboardv1.StoreAgentInput, statusAfter func(row *ent.StoreAgent, breaking bool) string) (*ent.StoreAgent, *schema.ChangelogEntry, error) {
	in, err := parseInput(req, false)
	if err != nil {
		return nil, nil, err
	}
	return s.updateListing(ctx, userID, id, in, statusAfter, nil)
}

// updateListing is UpdateListing of a parsed input, with what x changes
// beside the listing in the same change (its names in the changelog entry).
func (s *Service) updateListing(ctx context.Context, userID, id string, in *patch, statusAfter func(row *ent.StoreAgent, breaking bool) string, x *beyond) (*ent.StoreAgent, *schema.ChangelogEntry, error) {
	if err := s.checkURLs(ctx, in); err != nil {
		return nil, nil, err
	}
	sec, err := s.prepare(id, in)
	if err != nil {
		return nil, nil, err
	}
	var (
		row    *ent.StoreAgent
		change *schema.ChangelogEntry
	)
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := s.DB.Serialize(ctx, tx, lockKey(id)); err != nil {
			return err
		}
		row, err = owned(ctx, tx.Client(), userID, id)
		if err != nil {
			return err
		}
		cur := fromEnt(row)
		next, changed, err := merge(cur, in, sec)
		if err != nil {
			return err
		}
		if in.version != nil {
			if compareVersions(*in.version, cur.version) <= 0 {
				return apperr.Invalid("version %s must be higher than the current %s", *in.version, cur.version)
			}
			changed = append(changed, "version")
		}
		if x != nil {
			changed = append(changed, x.changed(row)...)
		}
		if len(changed) == 0 {
			return nil
		}
		breaking := len(Breaking(changed)) > 0
		if in.version == nil {
			next.version = bumpVersion(cur.version, breaking)
		}
		now := s.now()
		entry := schema.ChangelogEntry{Version: next.version, Breaking: breaking, Fields: changed, At: now}
		if in.notes != nil {
			entry.Notes = *in.notes
		}
		changelog := append(slices.Clone(row.Changelog), entry)
		if len(changelog) > maxChangelog {
			changelog = changelog[len(changelog)-maxChangelog:]
		}
		update := tx.StoreAgent.UpdateOneID(row.ID).Where(storeagent.UserID(userID)).SetUpdatedAt(now).
			SetChangelog(changelog).SetStatus(storeagent.Status(statusAfter(row, breaking)))
		if err := write(update.Mutation(), next, true); err != nil {
			return err
		}
		if x != nil {
			x.write(update.Mutation())
		}
		row, err = update.Save(ctx)
		if err := saveError(err, next.slug); err != nil {
			return err
		}
		if kitChanged(changed) {
			if err := s.refreshMemory(ctx, tx, row); err != nil {
				return err
			}
		}
		change = &entry
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return row, change, nil
}

// DeleteStoreAgent removes the owner's listing, its subscriptions, its
// installations with their memory entries, and its executions. A listing
// with work in flight (a running or queued execution, or a payment held) is
// refused: that work would be lost.
func (s *Service) DeleteStoreAgent(ctx context.Context, req *switchboardv1.DeleteStoreAgentRequest) (*switchboardv1.DeleteStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.StoreAgent
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if req.GetId() != "" {
			if err := s.DB.Serialize(ctx, tx, lockKey(req.GetId())); err != nil {
				return err
			}
		}
		row, err := owned(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if err := inFlight(ctx, tx, row); err != nil {
			return err
		}
		if out, err = s.render(ctx, tx.Client(), p.UserID, row); err != nil {
			return err
		}
		if err := removeRelations(ctx, tx, row.ID); err != nil {
			return err
		}
		if _, err := tx.Execution.Delete().Where(execution.AgentID(row.ID)).Exec(ctx); err != nil {
			return err
		}
		err = tx.StoreAgent.DeleteOneID(row.ID).Where(storeagent.UserID(p.UserID)).Exec(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("store agent %q not found among your listings", row.ID)
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteStoreAgentResponse{Agent: out}, nil
}

// inFlight refuses to remove a listing with work in flight (a running or
// queued execution, or a payment held): that work would be lost.
func inFlight(ctx context.Context, tx *db.Tx, row *ent.StoreAgent) error {
	busy, err := tx.Execution.Query().Where(execution.AgentID(row.ID), execution.Or(
		execution.StatusIn(execution.StatusQueued, execution.StatusRunning),
		execution.PaymentHoldStatusEQ(execution.PaymentHoldStatusHeld))).Exist(ctx)
	if err != nil {
		return err
	}
	if busy || row.CurrentExecutionID != nil {
		return apperr.Conflict("agent %q has executions in flight (running, queued or holding a payment); "+
			"set its availability to unavailable and delete it once they finish", row.Slug)
	}
	return nil
}

// removeRelations deletes what hangs on a listing besides its executions:
// installs with their memory entries, subscriptions, unlocks and quality
// signals. The foreign keys cascade too; deleting here does not depend on
// the database enforcing them, and the memory entries have no foreign key.
func removeRelations(ctx context.Context, tx *db.Tx, agentID string) error {
	if _, err := tx.MemoryEntry.Delete().Where(memoryentry.Source(MemorySource), memoryentry.SourceID(agentID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.StoreInstall.Delete().Where(storeinstall.AgentID(agentID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.StoreSubscription.Delete().Where(storesubscription.AgentID(agentID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.StoreUnlock.Delete().Where(storeunlock.AgentID(agentID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.AgentQualitySignal.Delete().Where(agentqualitysignal.AgentID(agentID)).Exec(ctx); err != nil {
		return err
	}
	return nil
}

// RemoveSynced removes a synced listing for its instance (DELETE
// /api/v2/federation/agents/{remoteId}) in tx: refused with 409 while work is
// in flight; otherwise its installs, subscriptions, unlocks and signals go,
// and so does the row. Its finished executions (and the ledger entries of
// their payments) are never deleted but unlinked: each keeps the listing's
// name and owner (agent_name, agent_owner_id) and the database clears its
// agent_id (ON DELETE SET NULL; docs/decisions.md "Federation platform routes (issue 14)"). It
// answers how many executions were unlinked.
func RemoveSynced(ctx context.Context, d *db.DB, tx *db.Tx, row *ent.StoreAgent) (unlinked int, err error) {
	if err := d.Serialize(ctx, tx, lockKey(row.ID)); err != nil {
		return 0, err
	}
	if err := inFlight(ctx, tx, row); err != nil {
		return 0, err
	}
	if err := removeRelations(ctx, tx, row.ID); err != nil {
		return 0, err
	}
	if unlinked, err = tx.Execution.Update().Where(execution.AgentID(row.ID)).SetAgentName(row.Name).SetAgentOwnerID(row.UserID).Save(ctx); err != nil {
		return 0, err
	}
	return unlinked, tx.StoreAgent.DeleteOneID(row.ID).Exec(ctx)
}

// AgentOf answers the listing ex ran, "" once ex is unlinked (its listing
// removed; docs/decisions.md "Federation platform routes (issue 14)").
func AgentOf(ex *ent.Execution) string {
	if ex.AgentID == nil {
		return ""
	}
	return *ex.AgentID
}

// checkURLs applies the address rule to the supplied URLs (docs/decisions.md "Store,
// federation, MCP, A2A"): a clear 400 at save time. It resolves names, so it
// runs before any transaction.
func (s *Service) checkURLs(ctx context.Context, in *patch) error {
	for _, u := range []struct {
		wire string
		v    *string
	}{{"endpointUrl", in.endpointURL}, {"healthCheckUrl", in.healthCheckURL}} {
		if u.v == nil || *u.v == "" {
			continue
		}
		parsed, err := egress.ParseURL(*u.v)
		if err != nil {
			return apperr.Invalid("%s: %v", u.wire, err)
		}
		if err := s.Egress.CheckURL(ctx, parsed); err != nil {
			// The refusal names the flag that would admit the address.
			return apperr.Invalid("%s: %v", u.wire, err)
		}
	}
	return nil
}

// prepare hashes the access password and seals the credential for listing
// id, outside any transaction (bcrypt is slow on purpose).
func (s *Service) prepare(id string, in *patch) (secrets, error) {
	var out secrets
	if in.password != nil {
		if *in.password == "" {
			empty := ""
			out.passwordHash = &empty
		} else {
			cost := s.BcryptCost
			if cost == 0 {
				cost = bcrypt.DefaultCost
			}
			h, err := bcrypt.GenerateFromPassword([]byte(*in.password), cost)
			if err != nil {
				return out, err
			}
			hs := string(h)
			out.passwordHash = &hs
		}
	}
	if in.credential != nil {
		if s.Secrets == nil {
			return out, &apperr.Error{Kind: apperr.KindUnavailable,
				Message: "this instance has no secret key (SWITCHBOARD_SECRET_KEY), so it cannot store agent credentials; use authMethod none or ask the operator to configure one"}
		}
		sealed, err := s.Secrets.Seal([]byte(*in.credential), CredentialAAD(id))
		if err != nil {
			return out, err
		}
		out.credential = sealed
	}
	return out, nil
}

// write sets every owner-written column of a create or update to l. On an
// update, absent optional values are cleared.
func write(m *ent.StoreAgentMutation, l listing, update bool) error {
	m.SetName(l.name)
	m.SetSlug(l.slug)
	m.SetPricingModel(l.pricingModel)
	m.SetPricePerTask(l.price)
	m.SetCurrency(l.currency)
	m.SetCommands(l.commands)
	m.SetTaskTypes(l.taskTypes)
	m.SetSupportsA2a(l.supportsA2A)
	m.SetSupportsMcp(l.supportsMCP)
	m.SetVersion(l.version)
	m.SetInputFormat(storeagent.InputFormat(l.inputFormat))
	m.SetAuthMethod(storeagent.AuthMethod(l.authMethod))
	m.SetDeclaredWidgetTypes(l.widgetTypes)
	m.SetAvailability(storeagent.Availability(l.availability))
	m.SetExecutionTimeout(l.executionTimeout)
	for _, f := range []struct {
		column string
		v      *string
	}{
		{storeagent.FieldDescription, l.description}, {storeagent.FieldEndpointURL, l.endpointURL},
		{storeagent.FieldDeveloperName, l.developerName}, {storeagent.FieldCategory, l.category},
		{storeagent.FieldInstallGuide, l.installGuide}, {storeagent.FieldContextInstructions, l.contextInstructions},
		{storeagent.FieldAccessPasswordHash, l.passwordHash}, {storeagent.FieldOutputFormat, l.outputFormat},
		{storeagent.FieldHealthCheckURL, l.healthCheckURL}, {storeagent.FieldRequiredInputSchema, l.requiredInputSchema},
		{storeagent.FieldOutputSchema, l.outputSchema}, {storeagent.FieldUsageExamples, l.usageExamples},
		{storeagent.FieldContextPreparation, l.contextPreparation}, {storeagent.FieldExecutionNotes, l.executionNotes},
	} {
		var err error
		switch {
		case f.v != nil:
			err = m.SetField(f.column, *f.v)
		case update:
			err = m.ClearField(f.column)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case l.pricingConfig != nil:
		m.SetPricingConfig(l.pricingConfig)
	case update:
		m.ClearPricingConfig()
	}
	switch {
	case len(l.credential) > 0:
		m.SetAuthCredentialEncrypted(l.credential)
	case update:
		m.ClearAuthCredentialEncrypted()
	}
	return nil
}

// saveError maps a failed save: the one unique column an owner writes is the
// slug (docs/decisions.md "Store, federation, MCP, A2A": a conflicting slug
// answers 409 on every write path).
func saveError(err error, slug string) error {
	switch {
	case err == nil:
		return nil
	case sqlgraph.IsUniqueConstraintError(err):
		return apperr.Conflict("slug %q is already taken; choose another", slug)
	case ent.IsNotFound(err):
		return apperr.NotFound("store agent not found among your listings")
	}
	return err
}

// owned loads one of the caller's own listings; another account's listing,
// visible or not, is not found for changes (docs/decisions.md "Accounts, keys,
// sessions": another account's id answers 404, never 403).
func owned(ctx context.Context, c *ent.Client, userID, id string) (*ent.StoreAgent, error) {
	if id == "" {
		return nil, apperr.Invalid("id is required")
	}
	row, err := c.StoreAgent.Query().Where(storeagent.ID(id), storeagent.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("store agent %q not found among your listings", id)
	} else if err != nil {
		return nil, err
	}
	return row, nil
}

// VisibleTo is the listings userID may see: their own in any status,
// another account's while active, or one they installed or subscribed to
// (so that they can always undo that).
func VisibleTo(userID string) predicate.StoreAgent {
	return storeagent.Or(storeagent.UserID(userID), storeagent.StatusEQ(storeagent.StatusActive),
		storeagent.HasInstallsWith(storeinstall.UserID(userID)), storeagent.HasSubscriptionsWith(storesubscription.UserID(userID)))
}

// visible loads a listing the caller may see (VisibleTo) and the caller's
// relations to it.
func visible(ctx context.Context, c *ent.Client, userID, id string) (*ent.StoreAgent, viewer, error) {
	v := viewer{userID: userID}
	if id == "" {
		return nil, v, apperr.Invalid("id is required")
	}
	row, err := c.StoreAgent.Query().Where(storeagent.ID(id), VisibleTo(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, v, apperr.NotFound("store agent %q not found", id)
	} else if err != nil {
		return nil, v, err
	}
	if v, err = relations(ctx, c, userID, row.ID); err != nil {
		return nil, v, err
	}
	return row, v, nil
}

// relations answers whether userID installed, subscribed to and unlocked
// agentID.
func relations(ctx context.Context, c *ent.Client, userID, agentID string) (viewer, error) {
	v := viewer{userID: userID}
	var err error
	if v.installed, err = c.StoreInstall.Query().Where(storeinstall.UserID(userID), storeinstall.AgentID(agentID)).Exist(ctx); err != nil {
		return v, err
	}
	if v.subscribed, err = c.StoreSubscription.Query().Where(storesubscription.UserID(userID), storesubscription.AgentID(agentID)).Exist(ctx); err != nil {
		return v, err
	}
	if v.unlocked, err = Unlocked(ctx, c, userID, agentID); err != nil {
		return v, err
	}
	return v, nil
}

// render answers a listing for userID with their relations to it.
func (s *Service) render(ctx context.Context, c *ent.Client, userID string, row *ent.StoreAgent) (*switchboardv1.StoreAgent, error) {
	v, err := relations(ctx, c, userID, row.ID)
	if err != nil {
		return nil, err
	}
	return toAgent(row, v), nil
}

// refreshMemory rewrites the memory entries of every installation of a
// listing whose kit changed, so installers never keep stale guidance.
func (s *Service) refreshMemory(ctx context.Context, tx *db.Tx, row *ent.StoreAgent) error {
	installs, err := tx.StoreInstall.Query().Where(storeinstall.AgentID(row.ID)).All(ctx)
	if err != nil {
		return err
	}
	for _, in := range installs {
		if _, err := writeMemory(ctx, tx, in.UserID, row, s.now()); err != nil {
			return err
		}
	}
	return nil
}
