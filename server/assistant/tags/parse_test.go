package tags

import (
	"encoding/json"
	"strings"
	"testing"
)

// RULINGS "The assistant" (action tags are [[tag_name {json}]] in the
// reply; unknown tags and invalid JSON fail that tag alone): well-formed,
// malformed, nested-bracket and prose-wrapped tags.
func TestParse(t *testing.T) {
	type want struct {
		name, body string // body "" with fails
		fails      string // a piece of the error, "" when none
	}
	cases := []struct {
		name  string
		reply string
		want  []want
	}{
		{"none", "Nothing to do here.", nil},
		{"one", `[[create_card {"title":"Plan"}]]`, []want{{name: "create_card", body: `{"title":"Plan"}`}}},
		{"prose around", "Sure, I'll add it.\n[[dispatch_queue {\"title\":\"Email Dana\",\"type\":\"email\"}]]\nDone soon.",
			[]want{{name: "dispatch_queue", body: `{"title":"Email Dana","type":"email"}`}}},
		{"no space before the body", `[[create_card{"title":"x"}]]`, []want{{name: "create_card", body: `{"title":"x"}`}}},
		{"spaces inside the brackets", "[[ create_card {\"title\":\"x\"} ]]", []want{{name: "create_card", body: `{"title":"x"}`}}},
		{"a newline after [[ is prose", "[[\ncreate_card {}]]", nil},
		{"newline before ]]", "[[create_card {\"title\":\"x\"}\n]]", []want{{name: "create_card", body: `{"title":"x"}`}}},
		{"no body", `[[show_google_connect]]`, []want{{name: "show_google_connect", body: `{}`}}},
		{"two in order", `[[a_tag {"n":1}]] then [[b_tag {"n":2}]]`, []want{{name: "a_tag", body: `{"n":1}`}, {name: "b_tag", body: `{"n":2}`}}},
		{"brackets inside strings", `[[create_card {"title":"see [[x]] and ]] here","d":"[["}]]`,
			[]want{{name: "create_card", body: `{"title":"see [[x]] and ]] here","d":"[["}`}}},
		{"nested objects and arrays", `[[decompose_task {"parentId":"q1","subtasks":[{"title":"a"},{"title":"b","dependsOn":["$0"]}]}]]`,
			[]want{{name: "decompose_task", body: `{"parentId":"q1","subtasks":[{"title":"a"},{"title":"b","dependsOn":["$0"]}]}`}}},
		{"triple bracket", `[[[create_card {"title":"x"}]]]`, []want{{name: "create_card", body: `{"title":"x"}`}}},
		{"wiki link", "See [[Meeting Notes]] for more.", nil},
		{"list of lists", "m = [[1, 2], [3, 4]]", nil},
		{"unclosed prose", "an [[aside", nil},
		{"name runs into punctuation", "[[note: remember]]", nil},
		{"invalid JSON fails alone", `[[create_card {"title": }]] and [[create_card {"title":"ok"}]]`,
			[]want{{name: "create_card", fails: "not valid JSON"}, {name: "create_card", body: `{"title":"ok"}`}}},
		{"array body", `[[create_card ["x"]]]`, []want{{name: "create_card", fails: "JSON object"}}},
		{"string body", `[[create_card "x"]]`, []want{{name: "create_card", fails: "JSON object"}}},
		{"junk after the body", `[[create_card {"title":"x"} trailing]]`, []want{{name: "create_card", fails: `followed by "]]"`}}},
		{"never closed", `[[create_card {"title":"x"}`, []want{{name: "create_card", fails: `followed by "]]"`}}},
		{"unterminated JSON", `[[create_card {"title":"x]]`, []want{{name: "create_card", fails: "not valid JSON"}}},
		{"NUL escaped in the body", `[[create_card {"title":"a\u0000b"}]]`, []want{{name: "create_card", body: `{"title":"a\u0000b"}`}}},
		{"unknown tags parse; the registry refuses them", `[[launch_rockets {}]]`, []want{{name: "launch_rockets", body: `{}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(c.reply)
			if len(got) != len(c.want) {
				t.Fatalf("Parse(%q) = %d tags %+v, want %d", c.reply, len(got), got, len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Name != w.name {
					t.Errorf("tag %d: name %q, want %q", i, g.Name, w.name)
				}
				if w.fails != "" {
					if g.Err == nil || !strings.Contains(g.Err.Error(), w.fails) {
						t.Errorf("tag %d: err %v, want one saying %q", i, g.Err, w.fails)
					}
					continue
				}
				if g.Err != nil || string(g.Body) != w.body {
					t.Errorf("tag %d: body %s err %v, want %s", i, g.Body, g.Err, w.body)
				}
				if !opens(c.reply[g.Start:], g.Name) || !strings.HasSuffix(c.reply[:g.End], "]]") {
					t.Errorf("tag %d: span %d..%d is %q", i, g.Start, g.End, c.reply[g.Start:g.End])
				}
			}
		})
	}
}

// RULINGS "The assistant" (document 1's limits are silent; docs/decisions.md
// "The assistant"): past MaxTags a reply's tags fail alone, and a body over
// MaxBody fails.
func TestParseLimits(t *testing.T) {
	reply := strings.Repeat(`[[create_card {"title":"x"}]] `, MaxTags+2)
	got := Parse(reply)
	if len(got) != MaxTags+2 {
		t.Fatalf("%d tags", len(got))
	}
	for i, g := range got {
		if (i < MaxTags) != (g.Err == nil) {
			t.Fatalf("tag %d: err %v", i, g.Err)
		}
	}
	long := `[[create_card {"title":"` + strings.Repeat("x", MaxBody) + `"}]]`
	if got := Parse(long); len(got) != 1 || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "longer than") {
		t.Fatalf("an over-long body: %+v", got)
	}
}

func TestStrip(t *testing.T) {
	reply := "I'll queue it.\n\n[[dispatch_queue {\"title\":\"x\"}]]\n\nAnd a card: [[create_card {\"title\":\"y\"}]] done."
	if got, want := Strip(reply, Parse(reply)), "I'll queue it.\n\nAnd a card:  done."; got != want {
		t.Fatalf("Strip = %q, want %q", got, want)
	}
	if got := Strip("  just prose  ", nil); got != "just prose" {
		t.Fatalf("Strip without tags = %q", got)
	}
}

// FuzzParse: on any reply, Parse neither panics nor loops; every tag's span
// lies inside the reply, in order, opens with "[[" and its name; a tag
// without Err has a JSON object body.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`[[create_card {"title":"x"}]]`, "[[[a {}]]]", `[[a {"b":"]]"}]]`, "[[a", "[[a {", `[[a {"x":1} ]] [[b]]`,
		"[[1]]", "[[a_b_c {\"n\":[1,[2,[3]]]}]]", "\xff[[a {}]]", `[[a {"t":"\u0000"}]]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		last := 0
		for _, g := range Parse(reply) {
			if g.Start < last || g.End <= g.Start || g.End > len(reply) {
				t.Fatalf("span %d..%d after %d in %q", g.Start, g.End, last, reply)
			}
			if !opens(reply[g.Start:], g.Name) {
				t.Fatalf("tag %q does not open its span %q", g.Name, reply[g.Start:g.End])
			}
			if g.Err == nil {
				var obj map[string]any
				if err := json.Unmarshal(g.Body, &obj); err != nil {
					t.Fatalf("body %q of a good tag: %v", g.Body, err)
				}
			}
			last = g.End
		}
		_ = Strip(reply, Parse(reply))
	})
}

// opens: s begins with "[[", maybe spaces or tabs, and name.
func opens(s, name string) bool {
	rest, ok := strings.CutPrefix(s, "[[")
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), name)
}
