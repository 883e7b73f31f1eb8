package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Mapping is where a generic hook reads each field: dot paths into the
// flattened body; "" means none learned.
type Mapping struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    string `json:"priority,omitempty"`
	Due         string `json:"due,omitempty"`
}

// The candidates of each field, first present wins (RULINGS "What each kind does").
var (
	TitleFields       = []string{"title", "subject", "name", "summary"}
	DescriptionFields = []string{"description", "body", "text", "message"}
	PriorityFields    = []string{"priority", "severity", "urgency"}
	DueFields         = []string{"due", "dueDate", "deadline"}
)

// Flatten turns a JSON object into dot paths to its scalar values, as
// text (nested objects flattened with dots; arrays kept as their JSON).
func Flatten(body map[string]any) map[string]string {
	out := map[string]string{}
	flatten("", body, out)
	return out
}

func flatten(prefix string, v map[string]any, out map[string]string) {
	for k, val := range v {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		switch x := val.(type) {
		case map[string]any:
			flatten(path, x, out)
		case string:
			out[path] = x
		case nil:
		case json.Number:
			out[path] = x.String()
		case float64:
			out[path] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			out[path] = strconv.FormatBool(x)
		default:
			b, _ := json.Marshal(x)
			out[path] = string(b)
		}
	}
}

// candidate is the first path among names present with a non-blank value,
// top-level names before nested ones ending in the same name (each group
// in a stable order).
func candidate(flat map[string]string, names []string) string {
	for _, n := range names {
		if strings.TrimSpace(flat[n]) != "" {
			return n
		}
	}
	paths := make([]string, 0, len(flat))
	for p := range flat {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, n := range names {
		for _, p := range paths {
			if strings.HasSuffix(p, "."+n) && strings.TrimSpace(flat[p]) != "" {
				return p
			}
		}
	}
	return ""
}

// Learn is the mapping a first delivery teaches: for each field the first
// candidate present.
func Learn(flat map[string]string) Mapping {
	return Mapping{Title: candidate(flat, TitleFields), Description: candidate(flat, DescriptionFields),
		Priority: candidate(flat, PriorityFields), Due: candidate(flat, DueFields)}
}

// Item is what a generic delivery becomes.
type Item struct {
	Title, Description, Priority, Due string
}

// maxTitle is the queue's title limit.
const maxTitle = 500

// Apply reads a delivery through m: the mapped path wins; a delivery
// lacking it falls back to the candidates; a title found nowhere is
// "Webhook <name>".
func Apply(m Mapping, flat map[string]string, hookName string) Item {
	pick := func(path string, names []string) string {
		if v := strings.TrimSpace(flat[path]); path != "" && v != "" {
			return v
		}
		if p := candidate(flat, names); p != "" {
			return strings.TrimSpace(flat[p])
		}
		return ""
	}
	it := Item{Title: pick(m.Title, TitleFields), Description: pick(m.Description, DescriptionFields),
		Due: pick(m.Due, DueFields)}
	it.Priority = Priority(pick(m.Priority, PriorityFields))
	if it.Title == "" {
		it.Title = "Webhook " + hookName
	}
	if r := []rune(it.Title); len(r) > maxTitle {
		it.Title = string(r[:maxTitle])
	}
	return it
}

// Priority maps a sender's priority word onto the queue's (RULINGS
// "Details": anything unknown, or none, is low).
func Priority(v string) string {
	w := strings.ToLower(strings.TrimSpace(v))
	switch {
	case slices.Contains([]string{"critical", "urgent", "p0", "sev1", "1"}, w):
		return "urgent"
	case slices.Contains([]string{"high", "p1", "sev2", "2"}, w):
		return "high"
	case slices.Contains([]string{"medium", "normal", "p2", "3"}, w):
		return "medium"
	}
	return "low"
}

// CheckPath refuses a mapping path that cannot name a field.
func CheckPath(field, p string) error {
	if p == "" {
		return nil
	}
	for _, seg := range strings.Split(p, ".") {
		if strings.TrimSpace(seg) == "" {
			return fmt.Errorf("mapping.%s %q has an empty segment", field, p)
		}
	}
	return nil
}
