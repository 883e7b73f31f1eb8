package capabilities

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Document 2, "Capability packs (session)": PATCH resolves the prompt
// template ({{fieldName}} variables) with the user's values; defaults fill
// the rest; a variable with neither stays and is reported.
func TestResolve(t *testing.T) {
	t.Parallel()
	fields := map[string]string{"name": "", "tone": "warm", "n": "3"}
	cases := []struct {
		name, prompt string
		values       map[string]string
		want         string
		missing      []string
	}{
		{"no variables", "Plain text", nil, "Plain text", nil},
		{"value", "Hi {{name}}", map[string]string{"name": "Ada"}, "Hi Ada", nil},
		{"spaces in braces", "Hi {{ name }}!", map[string]string{"name": "Ada"}, "Hi Ada!", nil},
		{"default", "A {{tone}} note", nil, "A warm note", nil},
		{"value beats default", "A {{tone}} note", map[string]string{"tone": "dry"}, "A dry note", nil},
		{"empty value takes the default", "A {{tone}} note", map[string]string{"tone": ""}, "A warm note", nil},
		{"repeated", "{{name}} and {{name}}", map[string]string{"name": "Bo"}, "Bo and Bo", nil},
		{"missing", "Hi {{name}} x{{n}}", nil, "Hi {{name}} x3", []string{"name"}},
		{"unknown variable stays", "{{other}} {{tone}}", nil, "{{other}} warm", []string{"other"}},
		{"value not expanded again", "{{name}}", map[string]string{"name": "{{tone}}"}, "{{tone}}", nil},
		{"dollar is literal", "{{name}}", map[string]string{"name": "$1 ${tone}"}, "$1 ${tone}", nil},
		{"not a variable", "{{ 1x }} {name} {{na me}}", nil, "{{ 1x }} {name} {{na me}}", nil},
		{"triple braces", "{{{name}}}", map[string]string{"name": "Ada"}, "{Ada}", nil},
		{"unicode", "Grüße {{name}} ✉️", map[string]string{"name": "Zoë"}, "Grüße Zoë ✉️", nil},
		{"missing sorted once", "{{b}}{{a}}{{b}}", nil, "{{b}}{{a}}{{b}}", []string{"a", "b"}},
	}
	for _, tc := range cases {
		got, missing := Resolve(tc.prompt, fields, tc.values)
		if got != tc.want || !reflect.DeepEqual(missing, tc.missing) {
			t.Errorf("%s: Resolve(%q) = %q %v, want %q %v", tc.name, tc.prompt, got, missing, tc.want, tc.missing)
		}
	}
	if v := Variables("{{b}} {{ a }} {{b}} {{1}}"); !reflect.DeepEqual(v, []string{"b", "a"}) {
		t.Fatalf("Variables = %v", v)
	}
}

// FuzzResolve checks the resolver's promises on any input: it never panics;
// a template without "{{" is unchanged; a value is inserted literally (one
// pass); when nothing is missing, no variable of a field is left, provided
// no value or default brings braces of its own. The seed corpus is kept in
// testdata/fuzz/FuzzResolve.
func FuzzResolve(f *testing.F) {
	f.Add("Hi {{name}}, {{ tone }} regards", "Ada", "warm")
	f.Add("{{name}}{{name}}{{tone}}", "{{tone}}", "")
	f.Add("no variables at all", "x", "y")
	f.Add("{{{name}}} {{na me}} {{", "$1", "\x00")
	f.Fuzz(func(t *testing.T, prompt, name, tone string) {
		fields := map[string]string{"name": "", "tone": tone}
		got, missing := Resolve(prompt, fields, map[string]string{"name": name})
		if !strings.Contains(prompt, "{{") && got != prompt {
			t.Fatalf("a template without variables changed: %q → %q", prompt, got)
		}
		if utf8.ValidString(prompt) && utf8.ValidString(name) && utf8.ValidString(tone) && !utf8.ValidString(got) {
			t.Fatalf("valid input gave invalid UTF-8: %q", got)
		}
		for _, m := range missing {
			if !strings.Contains(prompt, m) {
				t.Fatalf("missing %q is not in the prompt %q", m, prompt)
			}
		}
		clean := !strings.Contains(name, "{") && !strings.Contains(tone, "{") && !strings.Contains(name, "}") && !strings.Contains(tone, "}")
		if len(missing) == 0 && clean && placeholder.MatchString(got) {
			t.Fatalf("a variable is left after a complete resolution: %q → %q", prompt, got)
		}
		if name != "" && clean && strings.Count(got, name) < countVar(prompt, "name") {
			t.Fatalf("value %q not inserted for every {{name}}: %q → %q", name, prompt, got)
		}
	})
}

func countVar(prompt, name string) int {
	n := 0
	for _, m := range placeholder.FindAllStringSubmatch(prompt, -1) {
		if m[1] == name {
			n++
		}
	}
	return n
}

// Document 2, "Capability pack": editableFields is a JSON string holding
// an array of {name, label, type, default}.
func TestParseFields(t *testing.T) {
	t.Parallel()
	got, err := ParseFields(`[{"name":"n","default":3,"type":"number"},{"name":"b","type":"boolean","default":true,"label":" Flag "},{"name":"x","default":null}]`)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Default != "3" || got[0].Label != "n" || got[1].Default != "true" || got[1].Label != "Flag" || got[2].Type != "text" || got[2].Default != "" {
		t.Fatalf("fields = %+v", got)
	}
	for _, bad := range []string{`[1]`, `[null]`, `[{"name":"a","default":{}}]`, `[{"name":"a"}] []`, `[{"name":"b","type":"boolean","default":"yes"}]`} {
		if _, err := ParseFields(bad); err == nil {
			t.Errorf("ParseFields(%s) accepted", bad)
		}
	}
	if got, err := ParseFields("  "); err != nil || len(got) != 0 {
		t.Fatalf("blank: %v %v", got, err)
	}
}
