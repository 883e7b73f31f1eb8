package contacts

import (
	"cmp"
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
// fields the caller supplied or cleared.
type edit struct {
	set      map[string]any // ent field → value
	clear    []string       // ent fields to clear
	supplied []string       // wire names: the supplied fields in field order, then the cleared ones
}

// clearableField is a field clearFields may name.
type clearableField struct{ wire, column string }

// clearable are the fields clearFields may name, in field order: every
// optional field and the tags. Tags are emptied; the others become NULL.
var clearable = func() []clearableField {
	var out []clearableField
	for _, f := range textFields {
		out = append(out, clearableField{f.wire, f.column})
	}
	out = append(out, clearableField{"lastInteractionAt", contact.FieldLastInteractionAt},
		clearableField{"tags", contact.FieldTags})
	fields := (&switchboardv1.ContactInput{}).ProtoReflect().Descriptor().Fields()
	slices.SortFunc(out, func(a, b clearableField) int {
		return cmp.Compare(fields.ByJSONName(a.wire).Number(), fields.ByJSONName(b.wire).Number())
	})
	return out
}()

func clearableNames() string {
	names := make([]string, len(clearable))
	for i, c := range clearable {
		names[i] = c.wire
	}
	return strings.Join(names, ", ")
}

// parseInput validates in. On create the name is required and nothing can be
// cleared; on update only supplied fields change, the fields named in
// clearFields are cleared, and at least one field must be supplied or
// cleared. A supplied empty optional field clears it too.
func parseInput(in *switchboardv1.ContactInput, create bool) (*edit, error) {
	if in == nil {
		in = &switchboardv1.ContactInput{}
	}
	if create && len(in.GetClearFields()) > 0 {
		return nil, apperr.Invalid("clearFields is for updates only: a new contact has nothing to clear")
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
		return nil, apperr.Invalid("tags must not be blank (to empty them, name tags in clearFields)")
	}
	if err := e.parseClears(in); err != nil {
		return nil, err
	}
	if !create && len(e.supplied) == 0 {
		return nil, apperr.Invalid("no field to update: supply a contact field, or name the fields to clear " +
			"in clearFields (an empty tags list counts as none)")
	}
	return e, nil
}

// parseClears adds the fields clearFields names to the edit. A name must be a
// clearable field's wire name and not supplied in the same input (e.supplied
// holds the supplied ones so far); duplicates are harmless.
func (e *edit) parseClears(in *switchboardv1.ContactInput) error {
	named := map[string]bool{}
	for _, name := range in.GetClearFields() {
		switch {
		case name == "name":
			return apperr.Invalid("clearFields: name cannot be cleared (it is required); clearable fields: %s", clearableNames())
		case !slices.ContainsFunc(clearable, func(c clearableField) bool { return c.wire == name }):
			return apperr.Invalid("clearFields: unknown field %q; clearable fields: %s", name, clearableNames())
		case slices.Contains(e.supplied, name) || (name == "tags" && len(in.GetTags()) > 0):
			return apperr.Invalid("clearFields: %s is both set and cleared", name)
		}
		named[name] = true
	}
	for _, c := range clearable {
		if !named[c.wire] {
			continue
		}
		if c.column == contact.FieldTags {
			e.set[c.column] = []string{}
		} else {
			e.clear = append(e.clear, c.column)
		}
		e.supplied = append(e.supplied, c.wire)
	}
	return nil
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
