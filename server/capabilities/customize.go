package capabilities

import (
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// checkCustomizations refuses values for fields the pack does not have and
// values that do not suit their field; empty values are dropped (the field
// takes its default).
func checkCustomizations(fields []schema.EditableField, in map[string]string) (map[string]string, error) {
	out := map[string]string{}
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	slices.Sort(names) // the first refusal is the same on every call
	for _, name := range names {
		i := slices.IndexFunc(fields, func(f schema.EditableField) bool { return f.Name == name })
		if i < 0 {
			return nil, apperr.Invalid("customizations: %q is not an editable field of this capability (fields: %s)",
				name, joinQuoted(fieldNames(fields)))
		}
		if err := CheckValue(fields[i], in[name]); err != nil {
			return nil, apperr.Invalid("customizations.%s: %v", name, err)
		}
		if in[name] != "" {
			out[name] = in[name]
		}
	}
	return out, nil
}

// defaults maps each field to its default.
func defaults(fields []schema.EditableField) map[string]string {
	out := make(map[string]string, len(fields))
	for _, f := range fields {
		out[f.Name] = f.Default
	}
	return out
}

// resolvedOf is the stored resolved prompt: nil while a variable has no
// value.
func resolvedOf(prompt string, fields []schema.EditableField, values map[string]string) *string {
	r, missing := Resolve(prompt, defaults(fields), values)
	if len(missing) > 0 {
		return nil
	}
	return &r
}

func fieldNames(fields []schema.EditableField) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

func joinQuoted(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func quote(s string) string { return strconv.Quote(s) }
