package contacts

import (
	"fmt"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contact"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// texts are a contact's words by column: every field a person writes.
func texts(c *ent.Contact) map[string]string {
	return map[string]string{
		contact.FieldName: c.Name, contact.FieldEmail: deref(c.Email), contact.FieldPhone: deref(c.Phone),
		contact.FieldCompany: deref(c.Company), contact.FieldRole: deref(c.Role),
		contact.FieldPreferredChannel: deref(c.PreferredChannel), contact.FieldNotes: deref(c.Notes),
		contact.FieldTags: strings.Join(c.Tags, "\n"), contact.FieldSource: deref(c.Source),
		contact.FieldEnrichedData: c.EnrichedData,
	}
}

// textAfter is who holds before's words once e, by writer w, applies.
func (e *edit) textAfter(before *ent.Contact, w provenance.Mark) provenance.Mark {
	var fields []provenance.Field
	for col, old := range texts(before) {
		f := provenance.Field{Before: old, After: old}
		if v, ok := e.set[col]; ok {
			f.Set, f.After = true, asText(v)
		}
		for _, c := range e.clear {
			if c == col {
				f.Set, f.After = true, ""
			}
		}
		fields = append(fields, f)
	}
	return provenance.Written(provenance.Read(string(before.TextBy), before.TextByRef), w, fields...)
}

func asText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case *string:
		return deref(v)
	case []string:
		return strings.Join(v, "\n")
	}
	return fmt.Sprint(v)
}

// setText records t as the writer of the contact's words in m.
func setText(m *ent.ContactMutation, t provenance.Mark) { provenance.SetText[contact.TextBy](m, t) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
