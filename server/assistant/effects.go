package assistant

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Effect is something a tag may do that the operator must see before it
// happens when the reply's prompt held outside text (RULINGS "Security
// details (2026-11-28)": risky tags are defined by effect, not by name).
type Effect uint8

// The effects that make a tag risky.
const (
	// Deletes removes something the operator has.
	Deletes Effect = 1 << iota
	// Rejects turns a request down (and removes its item).
	Rejects
	// Spends money: a paid store agent, a provider's images, a payment.
	Spends
	// Reaches another operator or another instance (a relay, a job, a peer
	// told of an approval, a store agent's endpoint).
	Reaches
	// Grants changes who may act: approving an item that came from outside
	// lets its requester's work go ahead; membership, roles, visibility.
	Grants
)

var effectNames = []string{"deletes", "rejects", "spends", "reaches", "grants"}

// String names the effects, comma-separated; "none" for none.
func (e Effect) String() string {
	var out []string
	for i, n := range effectNames {
		if e&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// effects are one tag's: Always whatever the call, plus what Of finds in
// this call's body and the data it names (nil: nothing more).
type effects struct {
	Always Effect
	Of     func(e *Executor, ctx context.Context, p *auth.Principal, body json.RawMessage) (Effect, error)
}

// tagEffects lists every documented tag (chat.Commands) and every tag the
// executor runs with its effects; TestEveryTagDeclaresItsEffects fails for
// a tag without an entry, so a new tag says what it does before it runs.
// Tags not built yet are declared by what their documents say they do.
var tagEffects = map[string]effects{
	"dispatch_queue":           {Of: (*Executor).dispatchEffects},
	"queue_capability_action":  {Of: (*Executor).capabilityActionEffects},
	"suggest_marketplace":      {},
	"confirm_queue_item":       {Of: (*Executor).confirmEffects},
	"remove_queue_item":        {Always: Deletes},
	"edit_queue_item":          {},
	"decompose_task":           {},
	"create_card":              {},
	"link_cards":               {},
	"create_project":           {Of: (*Executor).createProjectEffects},
	"invite_to_project":        {Always: Reaches | Grants},
	"assign_team_to_project":   {Always: Grants},
	"show_google_connect":      {},
	"show_settings_widget":     {},
	"complete_checklist":       {},
	"create_checklist":         {},
	"generate_image":           {Always: Spends | Reaches},
	"declare_capability":       {Always: Reaches},
	"find_providers":           {},
	"hire_provider":            {Always: Spends | Reaches | Grants},
	"submit_deliverable":       {Always: Reaches},
	"close_project":            {Always: Spends | Reaches},
	"submit_project_review":    {Always: Reaches},
	"list_my_capabilities":     {},
	"remove_capability":        {Always: Deletes},
	"project_update":           {Always: Reaches},
	"request_info":             {Always: Reaches},
	"add_project_scope":        {Always: Spends | Reaches},
	"suggest_close_project":    {Always: Reaches},
	"dispute_project":          {Always: Spends | Reaches},
	"manage_review_visibility": {Always: Reaches | Grants},
	"relay_send":               {Always: Reaches},
	"job_post":                 {Always: Reaches},
}

// effectsOf is what this call of tag name would do. A tag without an entry
// is taken as doing everything: it is held, never run unseen.
func (e *Executor) effectsOf(ctx context.Context, p *auth.Principal, name string, body json.RawMessage) (Effect, error) {
	fx, ok := tagEffects[name]
	if !ok {
		return Deletes | Rejects | Spends | Reaches | Grants, nil
	}
	got := fx.Always
	if fx.Of != nil {
		more, err := fx.Of(e, ctx, p, body)
		if err != nil {
			return 0, err
		}
		got |= more
	}
	return got, nil
}

// dispatchEffects: a task for a store agent that is not free spends money
// once it runs. A free agent's task only waits in the queue (it runs when
// someone starts it), so it is not held.
func (e *Executor) dispatchEffects(ctx context.Context, p *auth.Principal, body json.RawMessage) (Effect, error) {
	a, err := decode[dispatchBody]("dispatch_queue", body)
	if err != nil {
		return 0, err
	}
	h, err := e.handlerFor(ctx, p, a)
	if err != nil || h.Kind != capgate.KindStoreAgent {
		return 0, nil // a refused dispatch runs nothing: it fails when run
	}
	res, err := e.Store.GetStoreAgent(ctx, &switchboardv1.GetStoreAgentRequest{Id: h.ID})
	if err != nil || res.GetAgent().GetPricingModel() != "free" {
		return Spends | Reaches, nil // an unknown price is asked about
	}
	return 0, nil
}

func (e *Executor) capabilityActionEffects(ctx context.Context, p *auth.Principal, body json.RawMessage) (Effect, error) {
	a, err := decode[capabilityAction]("queue_capability_action", body)
	if err != nil {
		return 0, err
	}
	return e.dispatchEffects(ctx, p, dispatchJSON(a))
}

// confirmEffects: a reject removes the item; an approval of an item whose
// words or whose creator are outside lets that requester's work go ahead
// (and, for a relay, tells its sender).
func (e *Executor) confirmEffects(ctx context.Context, p *auth.Principal, body json.RawMessage) (Effect, error) {
	a, err := decode[confirmBody]("confirm_queue_item", body)
	if err != nil {
		return 0, err
	}
	if a.action() != "approve" {
		return Rejects | Deletes, nil
	}
	it, err := e.DB.QueueItem.Query().Where(queueitem.ID(a.ID), queueitem.UserID(p.UserID)).Only(ctx)
	if ent.IsNotFound(err) {
		return 0, nil // it fails when run: not found
	} else if err != nil {
		return 0, err
	}
	if provenance.Read(string(it.CreatedBy), it.CreatedByRef).Outside() || provenance.Read(string(it.TextBy), it.TextByRef).Outside() {
		return Grants | Reaches, nil
	}
	return 0, nil
}

// confirmBody is confirm_queue_item's body.
type confirmBody struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

// action is the body's action, approve when none is given.
func (b confirmBody) action() string {
	if b.Action == "" {
		return "approve"
	}
	return b.Action
}
