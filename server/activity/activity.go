// Package activity writes and reads the activity feed (activity.proto). Every
// action is written by the code that performs it, inside that code's
// transaction.
package activity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// categories maps each action to its category: every action the
// services write, the card actions included (activity.proto).
var categories = map[string]string{}

func init() {
	for cat, actions := range map[string][]string{
		"queue":       {"queue_added", "queue_updated", "queue_status_changed", "queue_deleted", "queue_dispatched", "task_dispatched", "widget_response"},
		"board":       {"card_created", "card_updated", "card_moved", "card_deleted", "checklist_completed", "checklist_unchecked", "task_completed", "task_routed", "task_decomposed", "card_auto_completed", "capability_executed", "cortex_scan"},
		"crm":         {"contact_added", "contact_updated", "contact_deleted"},
		"calendar":    {"event_created", "event_updated", "event_deleted"},
		"goals":       {"goal_created", "goal_updated", "goal_deleted"},
		"comms":       {"comms_replied", "comms_created", "relay_sent", "relay_responded", "relay_broadcast"},
		"connections": {"connection_created", "connection_accepted", "connection_removed", "google_connected"},
		"drive":       {"document_created", "recording_created", "recording_processed"},
		"settings":    {"settings_updated", "onboarding_progress", "onboarding_completed", "setup_action"},
		"sync":        {"sync_completed"},
		"learnings":   {"learning_generated"},
		"teams": {"team_created", "team_member_added", "team_member_removed", "project_created", "project_member_added",
			"project_invite_sent", "project_invite_accepted", "project_invite_declined"},
		// The task economy (server/economy's Actions, which its test holds to this list).
		"economy": {"contract_offered", "contract_accepted", "contract_declined", "contract_withdrawn", "deliverable_submitted",
			"contract_closed", "contract_disputed", "dispute_resolved", "contract_update", "contract_question", "contract_answer",
			"scope_proposed", "scope_added", "scope_declined", "close_suggested", "review_submitted"},
	} {
		for _, a := range actions {
			categories[a] = cat
		}
	}
}

// Categories lists the known category names.
func Categories() []string { return vocab.Values("activity_category") }

// CategoryOf answers the category of an action.
func CategoryOf(action string) (string, bool) {
	c, ok := categories[action]
	return c, ok
}

// Entry is one thing that happened.
type Entry struct {
	UserID  string
	Action  string
	Actor   string
	Summary string
	// CardID ties the entry to a card; its activity also mirrors to linked
	// cards of other accounts.
	CardID string
	// CardIsNew says the card was made in this transaction: nothing can link
	// to it yet, so there is nothing to mirror to.
	CardIsNew bool
	Metadata  map[string]any
	// At is when it happened, from the writer's injected clock (required).
	At time.Time
}

// insertEntry is the row ent would write, as plain SQL: every create and move
// writes activity, and ent's builder cost twice the CPU of the statement
// (bench/entcost_test.go). "$n" placeholders bind by position on SQLite too.
const insertEntry = `INSERT INTO activity_entries (id, user_id, action, category, actor, summary, card_id, is_cross_user, metadata, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

// Recorded is published in the unit of work that writes an entry to its
// account's feed (not the copies mirrored to linked cards' owners): every
// action is recorded by the code that performs it, in its transaction, so
// this one event follows every change the operator's views show (the
// dashboard's live events, server/dashboard).
type Recorded struct {
	Entry    Entry
	Category string
}

// Write records e in tx and publishes Recorded. An action outside the table
// is a programming error.
func Write(ctx context.Context, tx *db.Tx, e Entry) error {
	cat, ok := categories[e.Action]
	if !ok {
		return fmt.Errorf("activity: unknown action %q", e.Action)
	}
	if e.At.IsZero() {
		return fmt.Errorf("activity: %s has no time (Entry.At is required)", e.Action)
	}
	var meta string
	if len(e.Metadata) > 0 {
		b, err := json.Marshal(e.Metadata)
		if err != nil {
			return fmt.Errorf("activity: metadata: %w", err)
		}
		meta = string(b)
	}
	var cardID any // NULL without a card
	if e.CardID != "" {
		cardID = e.CardID
	}
	if _, err := tx.ExecContext(ctx, insertEntry, ids.New(), e.UserID, e.Action, cat, e.Actor, e.Summary,
		cardID, false, meta, e.At.UTC()); err != nil {
		return fmt.Errorf("activity: write %s: %w", e.Action, err)
	}
	if err := tx.Publish(ctx, Recorded{Entry: e, Category: cat}); err != nil {
		return err
	}
	if e.CardID == "" || e.CardIsNew {
		return nil
	}
	return mirror(ctx, tx, e, cat, meta)
}

// mirror copies card activity to the linked cards other accounts own (the card
// this one came from, and cards made from it), marked isCrossUser, with the
// actor's name in front of the summary.
func mirror(ctx context.Context, tx *db.Tx, e Entry, cat, meta string) error {
	c, err := tx.Card.Query().Where(card.ID(e.CardID), card.UserID(e.UserID)).
		Select(card.FieldID, card.FieldOriginCardID).Only(ctx)
	if ent.IsNotFound(err) {
		return nil // the card is gone (a delete); nothing is linked any more
	} else if err != nil {
		return fmt.Errorf("activity: mirror: %w", err)
	}
	linked := card.OriginCardID(c.ID)
	if c.OriginCardID != nil {
		linked = card.Or(linked, card.ID(*c.OriginCardID))
	}
	others, err := tx.Card.Query().Where(linked, card.UserIDNEQ(e.UserID)).
		Select(card.FieldID, card.FieldUserID).All(ctx)
	if err != nil || len(others) == 0 {
		return err
	}
	name := e.Actor
	if u, err := tx.User.Query().Where(user.ID(e.UserID)).Only(ctx); err == nil {
		name = u.Name
	}
	summary := name + ": " + e.Summary
	for _, o := range others {
		if err := tx.ActivityEntry.Create().SetUserID(o.UserID).SetAction(e.Action).SetCategory(cat).
			SetActor(e.Actor).SetSummary(summary).SetMetadata(meta).SetCardID(o.ID).SetIsCrossUser(true).
			SetCreatedAt(e.At.UTC()).Exec(ctx); err != nil {
			return fmt.Errorf("activity: mirror to %s: %w", o.ID, err)
		}
	}
	return nil
}

// ParseCategories reads ?category= and ?categories=a,b; unknown names are refused.
func ParseCategories(one, many string) ([]string, error) {
	var out []string
	for _, c := range append([]string{one}, strings.Split(many, ",")...) {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !slices.Contains(Categories(), c) {
			return nil, fmt.Errorf("unknown category %q; categories are %s", c, strings.Join(Categories(), ", "))
		}
		out = append(out, c)
	}
	return out, nil
}
