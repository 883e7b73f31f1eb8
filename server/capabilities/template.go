package capabilities

import (
	"regexp"
	"slices"
)

// placeholder is a {{fieldName}} variable; spaces inside the braces are
// allowed ({{ name }}), as template authors write both.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// Variables answers the names a template uses, in order of first use.
func Variables(prompt string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(prompt, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Resolve fills a template in one pass: a variable takes its value from
// values, else (absent or empty) from the field's default. A variable with neither (or one that
// names no field) stays as written and is reported in missing, sorted. Values
// are inserted literally: a value containing {{x}} is not expanded again, so
// what a user types can never pull another field's value.
func Resolve(prompt string, fields map[string]string, values map[string]string) (resolved string, missing []string) {
	resolved = placeholder.ReplaceAllStringFunc(prompt, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if v := values[name]; v != "" {
			return v
		}
		if d, ok := fields[name]; ok && d != "" {
			return d
		}
		if !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return m
	})
	slices.Sort(missing)
	return resolved, missing
}
