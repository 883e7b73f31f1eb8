package kanban

import (
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// validateInput checks a CardInput before anything is read or written. On
// create the title is required; on update at least one field must be supplied.
func validateInput(in *switchboardv1.CardInput, create bool) error {
	if create && strings.TrimSpace(in.GetTitle()) == "" {
		return apperr.Invalid("title is required")
	}
	if !create && !supplied(in) {
		return apperr.Invalid("no card field supplied: send at least one field to change")
	}
	if in.Title != nil && strings.TrimSpace(in.GetTitle()) == "" {
		return apperr.Invalid("title must not be empty")
	}
	for _, e := range []struct {
		name    string
		value   *string
		allowed []string
	}{{"status", in.Status, Statuses}, {"priority", in.Priority, Priorities}, {"assignee", in.Assignee, Assignees}} {
		if e.value != nil {
			if err := checkEnum(e.name, *e.value, e.allowed); err != nil {
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
	if p := in.GetProjectPrice(); math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
		return apperr.Invalid("projectPrice must be a finite number, not negative")
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
// card mutation (create or update). An empty string clears an optional text
// field on update. The lists (labels, checklist, contacts) are the caller's.
func applyInput(m *ent.CardMutation, in *switchboardv1.CardInput) error {
	var err error
	in.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !fd.IsList() {
			err = applyField(m, string(fd.Name()), fd.Kind(), v)
		}
		return err == nil
	})
	if l := in.GetLabels(); len(l) > 0 {
		m.SetLabels(l)
	}
	return err
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
