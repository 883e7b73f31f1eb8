package contacts

import (
	"net/mail"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contact"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// textField is one optional text field of ContactInput.
type textField struct {
	wire   string // the JSON name, for messages and the activity metadata
	column string
	get    func(*switchboardv1.ContactInput) *string
	// verbatim text (notes, enrichedData) keeps its whitespace; one-line
	// fields are trimmed.
	verbatim bool
}

type input = switchboardv1.ContactInput

var textFields = []textField{
	{"email", contact.FieldEmail, func(in *input) *string { return in.Email }, false},
	{"phone", contact.FieldPhone, func(in *input) *string { return in.Phone }, false},
	{"company", contact.FieldCompany, func(in *input) *string { return in.Company }, false},
	{"role", contact.FieldRole, func(in *input) *string { return in.Role }, false},
	{"preferredChannel", contact.FieldPreferredChannel, func(in *input) *string { return in.PreferredChannel }, false},
	{"notes", contact.FieldNotes, func(in *input) *string { return in.Notes }, true},
	{"source", contact.FieldSource, func(in *input) *string { return in.Source }, false},
	{"enrichedData", contact.FieldEnrichedData, func(in *input) *string { return in.EnrichedData }, true},
	{"platformUserId", contact.FieldPlatformUserID, func(in *input) *string { return in.PlatformUserId }, false},
	{"platformUserStatus", contact.FieldPlatformUserStatus, func(in *input) *string { return in.PlatformUserStatus }, false},
	{"lastInteractionType", contact.FieldLastInteractionType, func(in *input) *string { return in.LastInteractionType }, false},
}

// edit is a validated ContactInput: what to set, what to clear, and which
// fields the caller supplied.
type edit struct {
	set      map[string]any // ent field → value
	clear    []string       // ent fields to clear
	supplied []string       // wire names, in field order
}

// parseInput validates in. On create the name is required; on update only
// supplied fields change, and at least one must be supplied. A supplied empty
// optional field clears it.
func parseInput(in *switchboardv1.ContactInput, create bool) (*edit, error) {
	if in == nil {
		in = &switchboardv1.ContactInput{}
	}
	e := &edit{set: map[string]any{}}
	switch {
	case in.Name != nil:
		name := strings.TrimSpace(in.GetName())
		if name == "" {
			return nil, apperr.Invalid("name must not be empty")
		}
		if err := noNUL("name", name); err != nil {
			return nil, err
		}
		e.set[contact.FieldName] = name
		e.supplied = append(e.supplied, "name")
	case create:
		return nil, apperr.Invalid("name is required")
	}
	for _, f := range textFields {
		v := f.get(in)
		if v == nil {
			continue
		}
		s := *v
		if !f.verbatim {
			s = strings.TrimSpace(s)
		}
		if err := noNUL(f.wire, s); err != nil {
			return nil, err
		}
		e.supplied = append(e.supplied, f.wire)
		if s == "" {
			e.clear = append(e.clear, f.column)
			continue
		}
		if f.column == contact.FieldEmail {
			if err := checkEmail(s); err != nil {
				return nil, err
			}
		}
		e.set[f.column] = s
	}
	if in.LastInteractionAt != nil {
		if err := in.GetLastInteractionAt().CheckValid(); err != nil {
			return nil, apperr.Invalid("lastInteractionAt is not a valid time")
		}
		e.set[contact.FieldLastInteractionAt] = in.GetLastInteractionAt().AsTime().UTC()
		e.supplied = append(e.supplied, "lastInteractionAt")
	}
	tags, err := normaliseTags(in.GetTags())
	if err != nil {
		return nil, err
	}
	// proto3 cannot tell an empty list from an absent one: an empty list
	// leaves the tags as they are.
	if len(tags) > 0 {
		e.set[contact.FieldTags] = tags
		e.supplied = append(e.supplied, "tags")
	} else if len(in.GetTags()) > 0 {
		// Only blanks were sent: say so rather than silently keep the old tags.
		return nil, apperr.Invalid("tags must not be blank")
	}
	if !create && len(e.supplied) == 0 {
		return nil, apperr.Invalid("no field to update: supply at least one contact field (an empty tags list does not clear tags)")
	}
	return e, nil
}

// apply writes the edit into a create or update mutation.
func (e *edit) apply(m *ent.ContactMutation) error {
	for _, col := range e.clear {
		if err := m.ClearField(col); err != nil {
			return err
		}
	}
	for col, v := range e.set {
		if err := m.SetField(col, v); err != nil {
			return err
		}
	}
	return nil
}

// normaliseTags trims each tag, drops empty ones and duplicates, and keeps
// the order given.
func normaliseTags(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(out, t) {
			continue
		}
		if err := noNUL("tags", t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// checkEmail accepts a plain address (no display name, no angle brackets).
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return apperr.Invalid("email %q is not a valid email address", s)
	}
	return nil
}

// noNUL refuses NUL characters: PostgreSQL cannot store them in text, and
// both databases must answer the same.
func noNUL(field, s string) error {
	if strings.ContainsRune(s, 0) {
		return apperr.Invalid("%s must not contain NUL characters", field)
	}
	return nil
}
