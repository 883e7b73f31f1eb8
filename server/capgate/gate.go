// Package capgate is the capability gate of the queue (docs/decisions.md
// "Queue": the gate runs before any item is created): a task may be queued only when a handler
// exists among (1) the account's installed store agents with a matching task
// type, (2) its active capability packs for the domain, (3) the built-in
// agent capabilities (email, meetings, custom). Check is the pure rule; the
// Resolver reads an account's inventory from the database. The chat's
// dispatch_queue tag and the queue call it; the smart-tasks list is built
// from the same inventory.
package capgate

import (
	"slices"
	"strings"
)

// The kinds of handler, in the order the gate tries them.
const (
	KindStoreAgent = "store_agent"
	KindCapability = "capability"
	KindBuiltin    = "builtin"
)

// Handler is what would take a task.
type Handler struct {
	Kind string
	// The store agent's id, the capability pack's id, or builtin_<name>.
	ID   string
	Name string
}

// Agent is an installed, active store agent.
type Agent struct {
	ID, Name, Slug      string
	Description         *string
	Category            *string
	TaskTypes           []string
	UsageExamples       *string
	RequiredInputSchema *string
	ContextInstructions *string
	ExecutionNotes      *string
	InputFormat         string
}

// Capability is an actively installed capability pack; its domain is its
// integration type and its category.
type Capability struct {
	ID, Name        string
	Category        string
	IntegrationType string
}

// Inventory is every handler one account has.
type Inventory struct {
	Agents       []Agent
	Capabilities []Capability
}

// Builtin is a built-in agent capability.
type Builtin struct {
	Name, Title, Description string
	// Domains are the task types it takes (the name and its aliases).
	Domains       []string
	SamplePrompts []string
}

// ID is the built-in's id in the smart-tasks list (prefixed
// builtin_).
func (b Builtin) ID() string { return "builtin_" + b.Name }

// Builtins are the built-in agent capabilities.
var Builtins = []Builtin{
	{
		Name: "email", Title: "Email", Description: "Drafts, sends and follows up on email for you.",
		Domains:       []string{"email"},
		SamplePrompts: []string{"Draft a reply to the latest message from Ada", "Follow up with everyone who has not answered my proposal"},
	},
	{
		Name: "meetings", Title: "Meetings", Description: "Schedules meetings and prepares their briefings and notes.",
		Domains:       []string{"meetings", "meeting", "calendar"},
		SamplePrompts: []string{"Find a 30-minute slot with Grace next week", "Prepare a briefing for tomorrow's board meeting"},
	},
	{
		Name: "custom", Title: "Custom task", Description: "Anything else the assistant can do itself.",
		Domains:       []string{"custom"},
		SamplePrompts: []string{"Summarise this week's activity on the board"},
	},
}

// Check answers the handler for a task of taskType, trying store agents,
// then capability packs, then built-ins; names compare trimmed and without
// ASCII case. An empty task type has no handler.
func Check(inv Inventory, taskType string) (Handler, bool) {
	t := norm(taskType)
	if t == "" {
		return Handler{}, false
	}
	for _, a := range inv.Agents {
		if slices.ContainsFunc(a.TaskTypes, func(x string) bool { return norm(x) == t }) {
			return Handler{Kind: KindStoreAgent, ID: a.ID, Name: a.Name}, true
		}
	}
	for _, c := range inv.Capabilities {
		if (c.IntegrationType != "" && norm(c.IntegrationType) == t) || (c.Category != "" && norm(c.Category) == t) {
			return Handler{Kind: KindCapability, ID: c.ID, Name: c.Name}, true
		}
	}
	for _, b := range Builtins {
		if slices.Contains(b.Domains, t) {
			return Handler{Kind: KindBuiltin, ID: b.ID(), Name: b.Title}, true
		}
	}
	return Handler{}, false
}

func norm(s string) string {
	s = strings.TrimSpace(s)
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
