package promptgroups_test

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/internal/promptgroups"
)

// rulingsOrder is RULINGS "Federation: instances and the platform",
// `GET /api/v2/prompt-groups`, word for word.
var rulingsOrder = []string{"core", "identity", "queue", "board", "contacts", "calendar", "email", "chat", "store",
	"capabilities", "network", "teams", "projects", "economy", "documents", "learnings", "onboarding"}

// The shipped file: the 17 groups in RULINGS order, indexes 0..16, core and
// identity alone always loaded, every pattern compiling under (?i), and each
// tokenEstimate equal to ceil(characters / 4) of its prompt (RULINGS "The
// assistant": 4 characters per token).
func TestGroupsFile(t *testing.T) {
	t.Parallel()
	gs := promptgroups.Groups()
	if len(gs) != 17 {
		t.Fatalf("%d groups, want 17", len(gs))
	}
	seen := map[int]bool{}
	for i, g := range gs {
		if g.Name != rulingsOrder[i] || g.Index != i || seen[g.Index] {
			t.Errorf("group %d: index %d name %q, want index %d name %q", i, g.Index, g.Name, i, rulingsOrder[i])
		}
		seen[g.Index] = true
		if want := g.Name == "core" || g.Name == "identity"; g.AlwaysLoaded != want {
			t.Errorf("%s: alwaysLoaded %v", g.Name, g.AlwaysLoaded)
		}
		if g.Description == "" || g.Prompt == "" || len(g.SignalPatterns) < 3 {
			t.Errorf("%s: description, prompt and at least 3 patterns are required", g.Name)
		}
		if want := int(math.Ceil(float64(utf8.RuneCountInString(g.Prompt)) / 4)); g.TokenEstimate != want {
			t.Errorf("%s: tokenEstimate %d, the rule gives %d", g.Name, g.TokenEstimate, want)
		}
		for _, p := range g.SignalPatterns {
			re, err := regexp.Compile("(?i)" + p)
			if err != nil {
				t.Errorf("%s: %q: %v", g.Name, p, err)
			} else if re.MatchString("") {
				t.Errorf("%s: %q matches the empty string", g.Name, p)
			}
		}
	}
	for _, ph := range []string{"{{assistantName}}", "{{operatorName}}", "{{mode}}", "{{autoApprove}}", "{{preferences}}"} {
		if !strings.Contains(gs[1].Prompt, ph) {
			t.Errorf("identity has no %s", ph)
		}
	}
	// The file on disk is the one embedded (Load checks the same rules).
	data, err := os.ReadFile("groups.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promptgroups.Load(data); err != nil {
		t.Fatal(err)
	}
}

// Load refuses a file the assistant could not use.
func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	group := func(index int, name, pattern, prompt string, tokens int) map[string]any {
		return map[string]any{"index": index, "name": name, "signalPatterns": []string{pattern},
			"description": "d", "prompt": prompt, "tokenEstimate": tokens}
	}
	ok := group(0, "a", `\ba\b`, "12345", 2)
	for name, gs := range map[string][]map[string]any{
		"index out of order": {ok, group(2, "b", `\bb\b`, "1234", 1)},
		"repeated name":      {ok, group(1, "a", `\bb\b`, "1234", 1)},
		"bad pattern":        {group(0, "a", `(`, "1234", 1)},
		"matches everything": {group(0, "a", `x*`, "1234", 1)},
		"wrong estimate":     {group(0, "a", `\ba\b`, "12345", 1)},
		"no prompt":          {group(0, "a", `\ba\b`, "", 0)},
		"no groups":          {},
	} {
		data, _ := json.Marshal(map[string]any{"groups": gs})
		if _, err := promptgroups.Load(data); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	data, _ := json.Marshal(map[string]any{"groups": []map[string]any{ok}})
	if _, err := promptgroups.Load(data); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

// Each group answers to a typical message about its area, and small talk
// wakes none but the always-loaded.
func TestGroupSignals(t *testing.T) {
	t.Parallel()
	for name, msg := range map[string]string{
		"core":         "What can you do for me?",
		"identity":     "Call me Sam, I prefer short answers",
		"queue":        "What is pending approval in my queue?",
		"board":        "Move the Acme deal to negotiation on the board",
		"contacts":     "What's the phone number of our client at Acme?",
		"calendar":     "Can you schedule a meeting with Ana next Tuesday at 3pm?",
		"email":        "Draft a reply to that email from the bank",
		"chat":         "Ping everyone in the shared chat about @ana's update",
		"store":        "Is there an agent in the marketplace that writes SQL?",
		"capabilities": "Install the SEO capability pack",
		"network":      "Send a relay to the other instance in our federation",
		"teams":        "Invite two colleagues to my team",
		"projects":     "What deliverables are left in the website project?",
		"economy":      "How much did I earn in fees this month, about $120?",
		"documents":    "Summarise the PDF report I uploaded",
		"learnings":    "Remember: always cc finance on invoices",
		"onboarding":   "I'm new here, how does this work? Give me a tour",
	} {
		sel := promptgroups.Select(msg, nil, 1_000_000, nil)
		if !slices.Contains(names(sel), name) {
			t.Errorf("%q loads %v, not %s", msg, names(sel), name)
		}
	}
	for _, msg := range []string{"", "Hello!", "Thanks, that's great.", "ok", "Good morning :)"} {
		if got := names(promptgroups.Select(msg, nil, 1_000_000, nil)); !slices.Equal(got, []string{"core", "identity"}) {
			t.Errorf("%q loads %v", msg, got)
		}
	}
}

func names(sel []promptgroups.Selected) []string {
	out := make([]string, len(sel))
	for i, s := range sel {
		out[i] = s.Name
	}
	return out
}

func tokens(name string) int {
	for _, g := range promptgroups.Groups() {
		if g.Name == name {
			return g.TokenEstimate
		}
	}
	panic(name)
}

func total(sel []promptgroups.Selected) int {
	n := 0
	for _, s := range sel {
		n += s.TokenEstimate
	}
	return n
}

// RULINGS "scoring": a group loads when always loaded or when a pattern
// matches the message or the last three turns; groups rank by their matches
// and fill the budget in that order (docs/decisions.md "Prompt groups and
// payment validation").
func TestSelect(t *testing.T) {
	t.Parallel()
	always := tokens("core") + tokens("identity")
	crm := promptgroups.Module{Name: "hubspot-sync", PromptGroup: "contacts", SignalPatterns: []string{`\bhubspot\b`},
		TokenEstimate: 20, Prompt: "Use HubSpot's contact fields when a contact is synced from HubSpot."}
	tone := promptgroups.Module{Name: "house-tone", PromptGroup: "identity", AlwaysLoad: true, TokenEstimate: 10,
		Prompt: "Write in the house tone."}
	for _, tc := range []struct {
		name    string
		message string
		turns   []string
		budget  int
		dynamic []promptgroups.Module
		want    []string
	}{
		{name: "queue message", message: "What is pending in my queue?", budget: 8000,
			want: []string{"core", "identity", "queue"}},
		{name: "nothing matches", message: "Hello, nice weather today.", budget: 8000,
			want: []string{"core", "identity"}},
		{name: "ranked by matches", message: "Approve the pending tasks in the queue, then look at the board",
			budget: 8000, want: []string{"core", "identity", "queue", "board"}},
		{name: "budget cuts the lowest ranked", message: "Approve the pending tasks in the queue, then look at the board",
			budget: always + tokens("queue") + tokens("board") - 1, want: []string{"core", "identity", "queue"}},
		{name: "too big is passed over, a smaller one fits", message: "Approve the pending tasks in the chat thread",
			budget: always + tokens("chat"), want: []string{"core", "identity", "chat"}},
		{name: "always loaded survive a budget below them", message: "What is pending in my queue?", budget: 0,
			want: []string{"core", "identity"}},
		{name: "ties: the message before the turns", message: "look at the board", turns: []string{"check the queue"},
			budget: 8000, want: []string{"core", "identity", "board", "queue"}},
		{name: "ties in the message: by index", message: "the board and the queue", budget: 8000,
			want: []string{"core", "identity", "queue", "board"}},
		{name: "third turn back counts", message: "and now?", turns: []string{"show the kanban board", "ok", "fine"},
			budget: 8000, want: []string{"core", "identity", "board"}},
		{name: "fourth turn back does not", message: "and now?",
			turns: []string{"show the kanban board", "ok", "fine", "sure"}, budget: 8000,
			want: []string{"core", "identity"}},
		{name: "module by pattern", message: "Sync my HubSpot list", budget: 8000,
			dynamic: []promptgroups.Module{crm}, want: []string{"core", "identity", "hubspot-sync"}},
		{name: "module without a match", message: "Hello", budget: 8000,
			dynamic: []promptgroups.Module{crm}, want: []string{"core", "identity"}},
		{name: "module alwaysLoad", message: "Hello", budget: 8000,
			dynamic: []promptgroups.Module{crm, tone}, want: []string{"core", "identity", "house-tone"}},
		{name: "module alwaysLoad ahead of matches", message: "What is pending in my queue?", budget: 8000,
			dynamic: []promptgroups.Module{tone}, want: []string{"core", "identity", "house-tone", "queue"}},
		{name: "module alwaysLoad within the budget", message: "Hello", budget: always,
			dynamic: []promptgroups.Module{tone}, want: []string{"core", "identity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := promptgroups.Select(tc.message, tc.turns, tc.budget, tc.dynamic)
			if got := names(sel); !slices.Equal(got, tc.want) {
				t.Errorf("loaded %v, want %v", got, tc.want)
			}
			if n := total(sel); n > max(tc.budget, always) {
				t.Errorf("%d tokens for a budget of %d", n, tc.budget)
			}
		})
	}
}

// A module counts the larger of its declared and its prompt's estimate, and
// Select skips the patterns ValidateModule refuses instead of failing.
func TestModuleTokensAndBadPatterns(t *testing.T) {
	t.Parallel()
	m := promptgroups.Module{Name: "m", PromptGroup: "queue", SignalPatterns: []string{`(`, `x*`, `\bwidget\b`},
		TokenEstimate: 1, Prompt: strings.Repeat("a", 40)}
	sel := promptgroups.Select("a widget", nil, 8000, []promptgroups.Module{m})
	last := sel[len(sel)-1]
	if last.Name != "m" || !last.Module || last.TokenEstimate != 10 || last.Matches != 1 || last.Index != -1 {
		t.Errorf("selected %+v", last)
	}
}

func TestValidateModule(t *testing.T) {
	t.Parallel()
	good := promptgroups.Module{Name: "m", PromptGroup: "queue", SignalPatterns: []string{`\bwidget\b`}, Prompt: "p"}
	if err := promptgroups.ValidateModule(good); err != nil {
		t.Fatal(err)
	}
	always := good
	always.SignalPatterns, always.AlwaysLoad = nil, true
	if err := promptgroups.ValidateModule(always); err != nil {
		t.Errorf("alwaysLoad without patterns: %v", err)
	}
	for field, change := range map[string]func(*promptgroups.Module){
		"name":           func(m *promptgroups.Module) { m.Name = "" },
		"prompt":         func(m *promptgroups.Module) { m.Prompt = "" },
		"tokenEstimate":  func(m *promptgroups.Module) { m.TokenEstimate = -1 },
		"promptGroup":    func(m *promptgroups.Module) { m.PromptGroup = "weather" },
		"signalPatterns": func(m *promptgroups.Module) { m.SignalPatterns = nil },
		"signalPatterns[0]": func(m *promptgroups.Module) {
			m.SignalPatterns = []string{strings.Repeat("a", promptgroups.MaxPatternLen+1)}
		},
		"signalPatterns[1]": func(m *promptgroups.Module) { m.SignalPatterns = []string{`a`, `(`} },
		"signalPatterns[2]": func(m *promptgroups.Module) { m.SignalPatterns = []string{`a`, `b`, `.*`} },
	} {
		m := good
		change(&m)
		err := promptgroups.ValidateModule(m)
		if err == nil || !strings.HasPrefix(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	many := good
	many.SignalPatterns = slices.Repeat([]string{`a`}, promptgroups.MaxModulePatterns+1)
	if err := promptgroups.ValidateModule(many); err == nil {
		t.Error("too many patterns accepted")
	}
}

// The prompt-groups answer: the 17 groups' public half, no prompt text, and
// dynamic modules in the capabilityModuleSpec shape without theirs.
func TestBuildAnswer(t *testing.T) {
	t.Parallel()
	a := promptgroups.BuildAnswer(nil)
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "totalGroups", "groups", "scoring", "capabilityModuleSpec", "dynamicModules"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	if a.Version != promptgroups.Version || a.TotalGroups != 17 || len(a.Groups) != 17 ||
		string(mustJSON(t, m["dynamicModules"])) != "[]" {
		t.Errorf("answer %s", data)
	}
	g0 := m["groups"].([]any)[0].(map[string]any)
	if len(g0) != 5 || g0["name"] != "core" || g0["alwaysLoaded"] != true {
		t.Errorf("group 0: %v", g0)
	}
	var fields []string
	for _, f := range a.CapabilityModuleSpec.Fields {
		fields = append(fields, f.Name)
	}
	if !slices.Equal(fields, []string{"name", "promptGroup", "signalPatterns", "tokenEstimate", "alwaysLoad", "prompt"}) {
		t.Errorf("capabilityModuleSpec fields %v", fields)
	}
	mod := promptgroups.Module{Name: "m", PromptGroup: "queue", TokenEstimate: 1, AlwaysLoad: true, Prompt: "secret text"}
	data = mustJSON(t, promptgroups.BuildAnswer([]promptgroups.Module{mod}).DynamicModules)
	if want := `[{"name":"m","promptGroup":"queue","signalPatterns":[],"tokenEstimate":3,"alwaysLoad":true}]`; string(data) != want {
		t.Errorf("dynamicModules %s, want %s", data, want)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Arbitrary text never panics Select; the always-loaded groups are always
// first; the total stays within max(budget, the always-loaded total); every
// other part was matched (or is an alwaysLoad module) and appears once.
func FuzzSelect(f *testing.F) {
	f.Add("What is pending in my queue?", "show the board", `\bwidget\b`, 500)
	f.Add("", "", "", 0)
	f.Add("\xff\x00 $12 @ana /dispatch_queue", "a widget", `(`, -5)
	f.Add(strings.Repeat("task ", 1000), "queue", `x*`, 8000)
	always := tokens("core") + tokens("identity")
	f.Fuzz(func(t *testing.T, message, turn, pattern string, budget int) {
		mods := []promptgroups.Module{
			{Name: "fuzzed", PromptGroup: "queue", SignalPatterns: []string{pattern}, Prompt: message},
			{Name: "always", PromptGroup: "core", AlwaysLoad: true, TokenEstimate: 50, Prompt: "p"},
		}
		sel := promptgroups.Select(message, []string{turn, turn, message}, budget, mods)
		if len(sel) < 2 || sel[0].Name != "core" || sel[1].Name != "identity" {
			t.Fatalf("loaded %v", names(sel))
		}
		if n := total(sel); n > max(budget, always) {
			t.Fatalf("%d tokens for a budget of %d", n, budget)
		}
		seen := map[string]bool{}
		for _, s := range sel {
			if seen[s.Name] {
				t.Fatalf("%s twice", s.Name)
			}
			seen[s.Name] = true
			if !s.AlwaysLoaded && s.Matches == 0 {
				t.Fatalf("%s loaded without a match", s.Name)
			}
		}
	})
}
