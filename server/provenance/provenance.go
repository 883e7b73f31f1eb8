// Package provenance says who wrote a text the assistant's prompt may read
// (RULINGS "Security details (2026-11-28)", issue 35): cards, queue items,
// checklist items, contacts, capability packs and documents record who
// created them and who last wrote their text, and the prompt shows
// everything not written by the operator, an inside tag or Switchboard
// itself as outside data. The writer of a change is the request's
// principal (a session is the operator, a key is a key) unless the caller
// says otherwise with With (the assistant's tags, which run as the
// operator's session); paths without a principal of their own name their
// writer where they write (a peer's relay, the store's deliveries, a synced
// pack).
package provenance

import (
	"context"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// The kinds of writer (vocabulary "provenance").
const (
	Operator         = string(vocab.ProvenanceOperator)
	Assistant        = string(vocab.ProvenanceAssistant)
	System           = string(vocab.ProvenanceSystem)
	AssistantOutside = string(vocab.ProvenanceAssistantOutside)
	Key              = string(vocab.ProvenanceKey)
	User             = string(vocab.ProvenanceUser)
	Peer             = string(vocab.ProvenancePeer)
	Store            = string(vocab.ProvenanceStore)
	Unknown          = string(vocab.ProvenanceUnknown)
)

// Kinds are the writer kinds in the contract's order.
var Kinds = vocab.Values("provenance")

// Mark is one writer: its kind and, for a key, another user, a peer or a
// store agent, which one (the key's, user's, connection's or agent's id).
type Mark struct {
	Kind string
	Ref  string
}

// Outside reports whether text by m reaches the prompt only as data: the
// operator, an inside tag and Switchboard's own words are inside, every
// other writer (and an unknown one) is outside.
func (m Mark) Outside() bool {
	switch m.Kind {
	case Operator, Assistant, System:
		return false
	}
	return true
}

// RefPtr is Ref for a nullable column: nil when empty.
func (m Mark) RefPtr() *string {
	if m.Ref == "" {
		return nil
	}
	return &m.Ref
}

// Read is the mark stored as kind and nullable ref.
func Read(kind string, ref *string) Mark {
	m := Mark{Kind: kind}
	if ref != nil {
		m.Ref = *ref
	}
	if m.Kind == "" {
		m.Kind = Unknown
	}
	return m
}

type ctxKey struct{}

// With makes m the writer of what is written with ctx, whatever the
// principal: the assistant's tags, run with the operator's session.
func With(ctx context.Context, m Mark) context.Context {
	return context.WithValue(ctx, ctxKey{}, m)
}

// Of is the writer of a change made with ctx: the mark With set, else the
// principal's credential (a session is the operator, a key its key), else
// unknown, so a path that forgot to say is outside.
func Of(ctx context.Context) Mark {
	if m, ok := ctx.Value(ctxKey{}).(Mark); ok {
		return m
	}
	p, err := auth.RequirePrincipal(ctx)
	switch {
	case err != nil:
	case p.Via == auth.ViaSession:
		return Mark{Kind: Operator}
	case p.Via == auth.ViaKey:
		return Mark{Kind: Key, Ref: p.KeyID}
	}
	return Mark{Kind: Unknown}
}

// Written is who holds a row's text after writer's edit of fields. An edit
// that changed no field's value leaves it with current. An outside writer
// makes the text theirs; an inside writer makes it inside only when the edit
// replaced all of it (words another wrote and the edit left in place are
// still theirs).
func Written(current, writer Mark, fields ...Field) Mark {
	for _, f := range fields {
		if f.Set && f.After != f.Before {
			if writer.Outside() || replaced(fields) || !current.Outside() {
				return writer
			}
			return current
		}
	}
	return current
}

// replaced reports whether an edit replaced all of a row's text: every
// field that held text before is given a new value (a field sent again
// unchanged is not replaced: the words are still the earlier writer's).
func replaced(fields []Field) bool {
	for _, f := range fields {
		if f.Before != "" && (!f.Set || f.After == f.Before) {
			return false
		}
	}
	return true
}

// Field is one text field of a row as an edit leaves it.
type Field struct {
	Before, After string
	Set           bool
}

// textMutation is an ent mutation of a record that holds provenance (the
// schema's ProvenanceMixin); K is that record's text_by enum type.
type textMutation[K ~string] interface {
	SetTextBy(K)
	SetTextByRef(string)
	ClearTextByRef()
}

// SetText records t as the writer of the record's text in mutation m.
func SetText[K ~string](m textMutation[K], t Mark) {
	m.SetTextBy(K(t.Kind))
	if t.Ref == "" {
		m.ClearTextByRef()
	} else {
		m.SetTextByRef(t.Ref)
	}
}

// createMutation is an ent mutation creating a record that holds
// provenance; C and T are its created_by and text_by enum types.
type createMutation[C, T ~string] interface {
	textMutation[T]
	SetCreatedBy(C)
	SetCreatedByRef(string)
}

// SetCreated records w as the creator of a new record and the writer of its
// text, in its create mutation m.
func SetCreated[C, T ~string](m createMutation[C, T], w Mark) {
	m.SetCreatedBy(C(w.Kind))
	if w.Ref != "" {
		m.SetCreatedByRef(w.Ref)
	}
	SetText[T](m, w)
}
