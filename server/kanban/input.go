package kanban

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// validateInput checks a CardInput before anything is read or written, and
// answers the fields its clearFields names. On create the title is required
// and nothing can be cleared; on update at least one field must be supplied or
// cleared.
func validateInput(in *switchboardv1.CardInput, create bool) (clears, error) {
	if create && strings.TrimSpace(in.GetTitle()) == "" {
		return nil, apperr.Invalid("title is required")
	}
	if !create && !supplied(in) {
		return nil, apperr.Invalid("no card field supplied: send a field to change, or name the fields to clear " +
			"in clearFields (an empty list counts as none)")
	}
	cl, err := parseClears(in, create)
	if err != nil {
		return nil, err
	}
	return cl, validateFields(in, create)
}

func validateFields(in *switchboardv1.CardInput, create bool) error {
	if in.Title != nil && strings.TrimSpace(in.GetTitle()) == "" {
		return apperr.Invalid("title must not be empty")
	}
	for _, e := range []struct {
		name    string
		value   *string
		allowed []string
	}{{"status", in.Status, Statuses}, {"priority", in.Priority, Priorities}, {"assignee", in.Assignee, Assignees}} {
		if e.value != nil {
			if err := apperr.OneOf(e.name, *e.value, e.allowed); err != nil {
				return err
			}
		}
	}
	if in.GetOrder() < 0 {
		return apperr.Invalid("order must not be negative")
	}
	if in.GetReminderOffsetMinutes() < 0 {
		return apperr.Invalid("reminderOffsetMinutes must not be negative")
	}
	if in.ProjectPrice != nil {
		if _, err := money.FromFloat(in.GetProjectPrice()); err != nil {
			return apperr.Invalid("projectPrice must be a finite number, not negative, with at most two decimals, at most %d", money.MaxUnits)
		}
	}
	for name, t := range map[string]*timestamppb.Timestamp{"dueDate": in.DueDate, "startDate": in.StartDate} {
		if t != nil && t.CheckValid() != nil {
			return apperr.Invalid("%s is not a valid time", name)
		}
	}
	for _, l := range in.GetLabels() {
		if strings.TrimSpace(l) == "" {
			return apperr.Invalid("labels must not contain an empty label")
		}
	}
	if err := validateChecklist(in.GetChecklist(), create); err != nil {
		return err
	}
	return validateContacts(in.GetContacts())
}

// clears are the CardInput fields (proto names, which are also the ent
// fields) that an update empties, by name.
type clears map[protoreflect.Name]protoreflect.FieldDescriptor

// notClearable are the CardInput fields clearFields may not name, and why.
var notClearable = map[protoreflect.Name]string{
	"title":       "it is required",
	"status":      "it always has a value",
	"priority":    "it always has a value",
	"assignee":    "it always has a value",
	"order":       "it always has a value",
	"is_archived": "it always has a value",
}

const clearFieldsName protoreflect.Name = "clear_fields"

// clearable maps the JSON name of each field clearFields may name to its
// descriptor: every CardInput field but clearFields and notClearable.
// clearableNames lists them in field order, for messages.
var clearable, clearableNames = func() (map[string]protoreflect.FieldDescriptor, string) {
	out := map[string]protoreflect.FieldDescriptor{}
	var names []string
	fds := (&switchboardv1.CardInput{}).ProtoReflect().Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.Name() == clearFieldsName || notClearable[fd.Name()] != "" {
			continue
		}
		out[fd.JSONName()] = fd
		names = append(names, fd.JSONName())
	}
	return out, strings.Join(names, ", ")
}()

// parseClears reads clearFields. A name must be a clearable field's JSON name,
// not supplied with a value in the same input; duplicates are harmless.
func parseClears(in *switchboardv1.CardInput, create bool) (clears, error) {
	names := in.GetClearFields()
	if len(names) == 0 {
		return nil, nil
	}
	if create {
		return nil, apperr.Invalid("clearFields is for updates only: a new card has nothing to clear")
	}
	m := in.ProtoReflect()
	out := clears{}
	for _, name := range names {
		fd := clearable[name]
		if fd == nil {
			fields := m.Descriptor().Fields()
			if other := fields.ByJSONName(name); other != nil && notClearable[other.Name()] != "" {
				return nil, apperr.Invalid("clearFields: %s cannot be cleared (%s); clearable fields: %s",
					name, notClearable[other.Name()], clearableNames)
			}
			return nil, apperr.Invalid("clearFields: unknown field %q; clearable fields: %s", name, clearableNames)
		}
		// A list is present only when it has elements.
		if m.Has(fd) {
			return nil, apperr.Invalid("clearFields: %s is both set and cleared", name)
		}
		out[fd.Name()] = fd
	}
	return out, nil
}

// supplied reports whether the input carries any field at all.
func supplied(in *switchboardv1.CardInput) bool {
	found := false
	in.ProtoReflect().Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
		found = true
		return false
	})
	return found
}

func validateChecklist(list []*switchboardv1.ChecklistItemInput, create bool) error {
	seen := map[string]bool{}
	for i, it := range list {
		if strings.TrimSpace(it.GetText()) == "" {
			return apperr.Invalid("checklist[%d].text is required", i)
		}
		if it.GetOrder() < 0 {
			return apperr.Invalid("checklist[%d].order must not be negative", i)
		}
		if it.Id == nil {
			continue
		}
		if create {
			return apperr.Invalid("checklist item %q is not on this card (a new card has none)", it.GetId())
		}
		if seen[it.GetId()] {
			return apperr.Invalid("checklist item %q is listed twice", it.GetId())
		}
		seen[it.GetId()] = true
	}
	return nil
}

func validateContacts(list []*switchboardv1.CardContactInput) error {
	seen := map[string]bool{}
	for i, c := range list {
		id := c.GetContactId()
		if id == "" {
			return apperr.Invalid("contacts[%d].contactId is required", i)
		}
		if seen[id] {
			return apperr.Invalid("contact %q is listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

func involvement(c *switchboardv1.CardContactInput) string {
	if v := strings.TrimSpace(c.GetInvolvement()); v != "" {
		return v
	}
	return DefaultInvolvement
}

// applyInput sets the supplied scalar fields of a validated CardInput on a
// card mutation (create or update), and the labels. An empty string clears an
// optional text field on update, and so does naming a field in clearFields
// (cl, update only). The checklist and contacts are the caller's.
func applyInput(m *ent.CardMutation, in *switchboardv1.CardInput, cl clears) error {
	var err error
	in.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsList() {
			err = applyField(m, string(fd.Name()), fd.Kind(), v)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if l := in.GetLabels(); len(l) > 0 {
		m.SetLabels(l)
	}
	for name, fd := range cl {
		switch {
		case name == card.FieldLabels:
			m.SetLabels([]string{})
		case fd.IsList(): // checklist, contacts: the caller's
		default:
			if err := m.ClearField(string(name)); err != nil {
				return fmt.Errorf("kanban: clear CardInput.%s: %w", name, err)
			}
		}
	}
	return nil
}

// applyField maps one CardInput field onto the ent field of the same name. A
// CardInput field without a mapping is a programming error, caught by
// TestApplyInputCoversEveryField.
func applyField(m *ent.CardMutation, name string, kind protoreflect.Kind, v protoreflect.Value) error {
	switch name {
	case card.FieldTitle:
		m.SetTitle(strings.TrimSpace(v.String()))
		return nil
	case card.FieldStatus:
		m.SetStatus(card.Status(v.String()))
		return nil
	case card.FieldPriority:
		m.SetPriority(card.Priority(v.String()))
		return nil
	case card.FieldAssignee:
		m.SetAssignee(card.Assignee(v.String()))
		return nil
	case card.FieldOrder:
		m.SetOrder(int(v.Int()))
		return nil
	case card.FieldProjectPrice:
		c, err := money.FromFloat(v.Float()) // validated before
		if err != nil {
			return fmt.Errorf("kanban: CardInput.%s: %w", name, err)
		}
		m.SetProjectPrice(c)
		return nil
	}
	var err error
	switch kind {
	case protoreflect.StringKind:
		switch {
		case v.String() != "":
			err = m.SetField(name, v.String())
		case m.Op().Is(ent.OpUpdateOne):
			err = m.ClearField(name)
		}
	case protoreflect.Int32Kind:
		err = m.SetField(name, int32(v.Int()))
	case protoreflect.DoubleKind:
		err = m.SetField(name, v.Float())
	case protoreflect.BoolKind:
		err = m.SetField(name, v.Bool())
	case protoreflect.MessageKind: // google.protobuf.Timestamp
		t, ok := v.Message().Interface().(*timestamppb.Timestamp)
		if !ok {
			return fmt.Errorf("kanban: CardInput.%s is not a timestamp", name)
		}
		err = m.SetField(name, t.AsTime())
	default:
		err = fmt.Errorf("unsupported kind %v", kind)
	}
	if err != nil {
		return fmt.Errorf("kanban: CardInput.%s: %w", name, err)
	}
	return nil
}
