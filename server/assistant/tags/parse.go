// Package tags reads the action tags of an assistant's reply: text of the
// form [[tag_name {json}]] anywhere in the prose (docs/decisions.md "The
// assistant (issue 16)"). Parsing is pure; running a tag is the executor's.
package tags

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of one reply: a reply is the model's text, and a runaway one must
// not make the executor run or hold an unbounded amount.
const (
	// MaxTags is the most tags one reply runs; later ones fail alone.
	MaxTags = 20
	// MaxBody is the longest tag body, in bytes.
	MaxBody = 64 << 10
	// maxName is the longest tag name.
	maxName = 64
)

// Tag is one action tag found in a reply.
type Tag struct {
	Name string
	// Body is the tag's JSON object ({} when the tag has none).
	Body json.RawMessage
	// Start and End are the tag's byte offsets in the reply, [[ to ]].
	Start, End int
	// Err is why the tag cannot run (malformed JSON, not an object, too
	// long, too many); the tag fails alone and the others still run.
	Err error
}

// ErrTooMany marks the tags past MaxTags.
var ErrTooMany = fmt.Errorf("more than %d action tags in one reply", MaxTags)

// Parse finds the action tags of reply in order. Text that opens with "[["
// but does not continue with a snake_case name (a wiki link, a list of
// lists, stray brackets) is prose, not a tag. A tag's body must be one JSON
// object followed by "]]"; brackets inside its strings are the JSON's own.
// A body that is not valid JSON makes a Tag with Err, which ends at the
// first "]]" after its name.
func Parse(reply string) []Tag {
	var out []Tag
	for i := 0; i < len(reply); {
		at := strings.Index(reply[i:], "[[")
		if at < 0 {
			break
		}
		start := i + at
		tag, next, ok := parseAt(reply, start)
		if !ok {
			i = start + 1 // "[[[" may open a tag one byte later
			continue
		}
		if len(out) >= MaxTags && tag.Err == nil {
			tag.Err, tag.Body = ErrTooMany, nil
		}
		out = append(out, tag)
		i = next
	}
	return out
}

// parseAt reads a tag opening at reply[start:]; ok is false when the text
// there is not a tag at all.
func parseAt(reply string, start int) (Tag, int, bool) {
	p := start + 2
	for p < len(reply) && (reply[p] == ' ' || reply[p] == '\t') {
		p++ // "[[ create_card {…} ]]" is the same tag
	}
	name := p
	for p < len(reply) && isNameByte(reply[p], p == name) {
		p++
	}
	if p == name || p-name > maxName {
		return Tag{}, 0, false
	}
	tag := Tag{Name: reply[name:p], Start: start}
	body := skipSpace(reply, p)
	switch {
	case strings.HasPrefix(reply[body:], "]]"):
		// A tag without a body takes none: {}.
		tag.Body, tag.End = json.RawMessage("{}"), body+2
		return tag, tag.End, true
	case body == p && (body >= len(reply) || reply[body] != '{'):
		// The name runs into something else ("[[note: …", "[[a-b]]"): prose.
		return Tag{}, 0, false
	case body >= len(reply) || reply[body] != '{':
		return failed(tag, reply, body, errors.New("the body must be a JSON object"))
	}
	dec := json.NewDecoder(strings.NewReader(reply[body:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return failed(tag, reply, body, fmt.Errorf("the body is not valid JSON: %w", err))
	}
	end := body + int(dec.InputOffset())
	if end-body > MaxBody {
		return failed(tag, reply, end, fmt.Errorf("the body is longer than %d bytes", MaxBody))
	}
	closing := skipSpace(reply, end)
	if !strings.HasPrefix(reply[closing:], "]]") {
		return failed(tag, reply, end, errors.New(`the body must be followed by "]]"`))
	}
	if !utf8.Valid(raw) || bytes.IndexByte(raw, 0) >= 0 {
		return failed(tag, reply, end, errors.New("the body must be valid UTF-8 without NUL"))
	}
	tag.Body, tag.End = raw, closing+2
	return tag, tag.End, true
}

// failed ends a malformed tag at the first "]]" from from (or the reply's
// end) and records why it cannot run.
func failed(tag Tag, reply string, from int, err error) (Tag, int, bool) {
	tag.Err = fmt.Errorf("%s: %w", tag.Name, err)
	if k := strings.Index(reply[from:], "]]"); k >= 0 {
		tag.End = from + k + 2
	} else {
		tag.End = len(reply)
	}
	return tag, tag.End, true
}

// isNameByte: names are snake_case, a lowercase letter first.
func isNameByte(b byte, first bool) bool {
	switch {
	case b >= 'a' && b <= 'z':
		return true
	case b == '_' || (b >= '0' && b <= '9'):
		return !first
	}
	return false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// Strip is reply without its tags, for showing the prose: each tag's text
// is removed and the blank lines it leaves are closed up.
func Strip(reply string, tags []Tag) string {
	if len(tags) == 0 {
		return strings.TrimSpace(reply)
	}
	var b strings.Builder
	last := 0
	for _, t := range tags {
		b.WriteString(reply[last:t.Start])
		last = t.End
	}
	b.WriteString(reply[last:])
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" && (len(out) == 0 || out[len(out)-1] == "" || i == len(lines)-1) {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
