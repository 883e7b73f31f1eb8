package provenance

import "testing"

// RULINGS "Security details (2026-11-28)": text is inside only when the
// operator wrote it in the dashboard or an inside tag made it; an
// operator's edit makes outside text inside only when it replaces the
// whole text.
func TestWritten(t *testing.T) {
	t.Parallel()
	op, asst := Mark{Kind: Operator}, Mark{Kind: Assistant}
	key, other := Mark{Kind: Key, Ref: "k1"}, Mark{Kind: Key, Ref: "k2"}
	outsideAsst := Mark{Kind: AssistantOutside}
	set := func(before, after string) Field { return Field{Before: before, After: after, Set: true} }
	kept := func(v string) Field { return Field{Before: v, After: v} }
	for _, c := range []struct {
		name            string
		current, writer Mark
		fields          []Field
		want            Mark
	}{
		{"a key edits the operator's text", op, key, []Field{set("a", "b"), kept("c")}, key},
		{"another key edits a key's text", key, other, []Field{set("a", "b")}, other},
		{"the operator rewrites one of two fields", key, op, []Field{set("a", "b"), kept("c")}, key},
		{"the operator rewrites every field", key, op, []Field{set("a", "b"), set("c", "d")}, op},
		{"the operator sends a field again unchanged", key, op, []Field{set("a", "b"), set("c", "c")}, key},
		{"the operator clears what the key wrote", key, op, []Field{set("a", ""), kept("")}, op},
		{"the operator fills an empty field only", key, op, []Field{kept("a"), set("", "b")}, key},
		{"an inside tag rewrites everything", key, asst, []Field{set("a", "b")}, asst},
		{"a tag after outside text edits the operator's text", op, outsideAsst, []Field{set("a", "b"), kept("c")}, outsideAsst},
		{"the operator edits the operator's text", op, op, []Field{set("a", "b"), kept("c")}, op},
		{"an edit that changes nothing keeps the writer", op, key, []Field{set("a", "a")}, op},
		{"unknown stays unknown after a partial edit", Mark{Kind: Unknown}, op, []Field{set("a", "b"), kept("c")}, Mark{Kind: Unknown}},
	} {
		if got := Written(c.current, c.writer, c.fields...); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestOutside(t *testing.T) {
	t.Parallel()
	for _, k := range Kinds {
		inside := k == Operator || k == Assistant || k == System
		if (Mark{Kind: k}).Outside() == inside {
			t.Errorf("%s: outside %v", k, !inside)
		}
	}
	if !(Mark{}).Outside() || Read("", nil).Kind != Unknown {
		t.Error("a writer nobody recorded is not outside")
	}
}
