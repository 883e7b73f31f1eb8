package prompt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/memoryentry"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/learnings"
	"github.com/switchboard-hq/switchboard/server/provenance"
	"github.com/switchboard-hq/switchboard/server/settings"
	"github.com/switchboard-hq/switchboard/server/store"
)

// How much Gather reads: candidates for the briefing, and turns.
const (
	// MaxTurns is how many of the latest turns Gather asks Turns for.
	MaxTurns = 20
	// candidateItems and candidateCards are read for rankItems to choose
	// from.
	candidateItems = 30
	candidateCards = 10
	// MaxLearnings is how many active learnings the identity carries.
	MaxLearnings = 10
)

// Sources reads Assemble's inputs for one account, each query limited to
// the caller's own rows.
type Sources struct {
	DB  *ent.Client
	Now func() time.Time
	// Budget is --llm-context-tokens.
	Budget int
	// Commands are the tags this instance runs (Executor.Commands).
	Commands func() []chat.Command
	// Turns answers the latest limit turns of the account's conversation
	// with the assistant, oldest first; nil means no conversation yet.
	Turns func(ctx context.Context, userID string, limit int) ([]Turn, error)
}

// Gather reads the inputs of p's prompt for message. The caller may add
// outside texts (a document the operator points at) to Input.Outside
// before Assemble.
func (s Sources) Gather(ctx context.Context, p *auth.Principal, message string) (Input, error) {
	in := Input{Message: message, Budget: s.Budget, Boundary: randomBoundary()}
	var err error
	if s.Turns != nil {
		if in.Turns, err = s.Turns(ctx, p.UserID, MaxTurns); err != nil {
			return Input{}, fmt.Errorf("prompt: turns: %w", err)
		}
	}
	if s.Commands != nil {
		for _, c := range s.Commands() {
			in.Tags = append(in.Tags, Tag{Name: c.Name, Description: c.Description})
		}
	}
	for _, step := range []func(context.Context, string, *Input) error{s.identity, s.packs, s.kits, s.briefing} {
		if err := step(ctx, p.UserID, &in); err != nil {
			return Input{}, err
		}
	}
	return in, nil
}

// Prompt is Gather then Assemble: the prompt a send for message would use.
func (s Sources) Prompt(ctx context.Context, p *auth.Principal, message string) (Prompt, error) {
	in, err := s.Gather(ctx, p, message)
	if err != nil {
		return Prompt{}, err
	}
	return Assemble(in), nil
}

// randomBoundary is a fresh boundary per prompt: outside text cannot know it.
func randomBoundary() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

func (s Sources) identity(ctx context.Context, userID string, in *Input) error {
	u, err := s.DB.User.Query().Where(user.ID(userID)).Only(ctx)
	if err != nil {
		return err
	}
	in.Identity = Identity{OperatorName: u.Name, Mode: settings.Mode}
	set, err := s.DB.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
	case err != nil:
		return err
	default:
		in.Identity.AssistantName, in.Identity.AutoApprove = set.AssistantName, set.QueueAutoApprove
	}
	// The active learnings are the operator's standing preferences: written
	// by the operator or derived from the operator's own signals and queue
	// (an item's source enters one only as a plain token, rules.SafeName),
	// so they are operator text, not a data block.
	active, err := learnings.Active(ctx, s.DB, userID)
	if err != nil {
		return err
	}
	in.Identity.Preferences = strings.Join(active[:min(len(active), MaxLearnings)], "; ")
	return nil
}

// packs are the active installs with a resolved prompt, of packs still
// active (a suspended synced pack stops loading).
func (s Sources) packs(ctx context.Context, userID string, in *Input) error {
	rows, err := s.DB.CapabilityInstall.Query().
		Where(capabilityinstall.UserID(userID), capabilityinstall.Active(true), capabilityinstall.ResolvedPromptNotNil(),
			capabilityinstall.HasCapabilityWith(capabilitypack.StatusEQ(capabilitypack.StatusActive))).
		WithCapability().Order(ent.Asc(capabilityinstall.FieldCreatedAt), ent.Asc(capabilityinstall.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		c := r.Edges.Capability
		p := Pack{ID: c.ID, Name: c.Name, Prompt: *r.ResolvedPrompt, SignalPatterns: c.SignalPatterns,
			TokenEstimate: c.TokenEstimate, AlwaysLoad: c.AlwaysLoad, Writer: packWriter(userID, c, r)}
		if c.PromptGroup != nil {
			p.PromptGroup = *c.PromptGroup
		}
		in.Packs = append(in.Packs, p)
	}
	return nil
}

// packWriter is who wrote an install's resolved prompt: its template is
// the pack author's (another user's when the caller did not make it), its
// values the install's; outside when either is.
func packWriter(userID string, c *ent.CapabilityPack, r *ent.CapabilityInstall) provenance.Mark {
	w := provenance.Read(string(c.TextBy), c.TextByRef)
	if !w.Outside() && c.UserID != userID {
		w = provenance.Mark{Kind: provenance.User, Ref: c.UserID}
	}
	if values := provenance.Read(string(r.TextBy), r.TextByRef); !w.Outside() && len(r.Customizations) > 0 && values.Outside() {
		w = values
	}
	return w
}

// kits are the installed store agents, newest install first, with the
// memory entries their installs wrote.
func (s Sources) kits(ctx context.Context, userID string, in *Input) error {
	installs, err := s.DB.StoreInstall.Query().Where(storeinstall.UserID(userID)).WithStoreAgent().
		Order(ent.Desc(storeinstall.FieldCreatedAt), ent.Asc(storeinstall.FieldID)).All(ctx)
	if err != nil || len(installs) == 0 {
		return err
	}
	ids := make([]string, len(installs))
	for i, r := range installs {
		ids[i] = r.AgentID
	}
	entries, err := s.DB.MemoryEntry.Query().
		Where(memoryentry.UserID(userID), memoryentry.Source(store.MemorySource), memoryentry.SourceIDIn(ids...)).
		Order(ent.Asc(memoryentry.FieldPosition), ent.Asc(memoryentry.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	byAgent := map[string][]KitEntry{}
	for _, e := range entries {
		byAgent[e.SourceID] = append(byAgent[e.SourceID], KitEntry{Kind: e.Kind, Title: e.Title, Content: e.Content})
	}
	for _, r := range installs {
		a := r.Edges.StoreAgent
		in.Kits = append(in.Kits, Kit{AgentID: a.ID, Name: a.Name, Slug: a.Slug, Entries: byAgent[a.ID]})
	}
	return nil
}

// briefing counts the queue by status and the open cards, and reads the
// candidate items: the open queue items and cards most recently changed.
func (s Sources) briefing(ctx context.Context, userID string, in *Input) error {
	br := Briefing{Now: s.Now()}
	var byStatus []struct {
		Status string `json:"status"`
		Count  int    `json:"count"`
	}
	err := s.DB.QueueItem.Query().Where(queueitem.UserID(userID)).
		GroupBy(queueitem.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &byStatus)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, c := range byStatus {
		counts[c.Status] = c.Count
	}
	for _, st := range vocab.Values("queue_status") {
		br.Counts = append(br.Counts, Count{Name: "queue " + st, N: counts[st]})
	}
	open := []predicate.Card{card.UserID(userID), card.IsArchived(false), card.StatusNEQ(card.StatusCompleted)}
	cards, err := s.DB.Card.Query().Where(open...).Count(ctx)
	if err != nil {
		return err
	}
	br.Counts = append(br.Counts, Count{Name: "open cards", N: cards}, Count{Name: "installed agents", N: len(in.Kits)},
		Count{Name: "installed packs", N: len(in.Packs)})
	items, err := s.DB.QueueItem.Query().
		Where(queueitem.UserID(userID), queueitem.StatusIn(queueitem.StatusPendingConfirmation, queueitem.StatusReady,
			queueitem.StatusInProgress, queueitem.StatusBlocked)).
		Order(ent.Desc(queueitem.FieldUpdatedAt), ent.Desc(queueitem.FieldID)).Limit(candidateItems).All(ctx)
	if err != nil {
		return err
	}
	for _, it := range items {
		br.Items = append(br.Items, queueItem(it))
	}
	rows, err := s.DB.Card.Query().Where(open...).
		Order(ent.Desc(card.FieldUpdatedAt), ent.Desc(card.FieldID)).Limit(candidateCards).All(ctx)
	if err != nil {
		return err
	}
	for _, c := range rows {
		br.Items = append(br.Items, cardItem(c))
	}
	in.Briefing = br
	return nil
}

// queueItem is an item as the briefing sees it: its words are the
// operator's only when the operator or an inside tag wrote them last
// (server/provenance); a relay's, an A2A task's, an agent key's, the
// store's, and an edit by any of them are outside.
func queueItem(it *ent.QueueItem) Item {
	out := Item{Kind: "queue_item", ID: it.ID, Title: it.Title, Status: string(it.Status), Priority: string(it.Priority),
		Writer: provenance.Read(string(it.TextBy), it.TextByRef)}
	if it.Description != nil {
		out.Text = *it.Description
	}
	if it.Source != nil {
		out.Source = *it.Source
	}
	out.Outside = out.Writer.Outside()
	if out.Source == "" {
		out.Source = out.Writer.Kind
	}
	return out
}

// cardItem is a card as the briefing sees it, outside unless the operator
// or an inside tag wrote its text last (a card the queue's bridge made for
// an item has the item's writer).
func cardItem(c *ent.Card) Item {
	out := Item{Kind: "card", ID: c.ID, Title: c.Title, Status: string(c.Status), Priority: string(c.Priority),
		Writer: provenance.Read(string(c.TextBy), c.TextByRef)}
	if c.Description != nil {
		out.Text = *c.Description
	}
	out.Outside, out.Source = out.Writer.Outside(), out.Writer.Kind
	if c.SourceRelayID != nil {
		out.Source = "relay:" + *c.SourceRelayID
	}
	return out
}
