package promptgroups

// Answer is the body of `GET /api/v2/prompt-groups` (document 2, "Instance
// federation"), before the transport renders it. It carries no prompt text:
// the groups' prompts are the assistant's, and a synced capability's prompt
// stays hidden like an uninstalled pack's.
type Answer struct {
	Version              string       `json:"version"`
	TotalGroups          int          `json:"totalGroups"`
	Groups               []GroupInfo  `json:"groups"`
	Scoring              Scoring      `json:"scoring"`
	CapabilityModuleSpec ModuleSpec   `json:"capabilityModuleSpec"`
	DynamicModules       []ModuleInfo `json:"dynamicModules"`
}

// GroupInfo is a group's public half.
type GroupInfo struct {
	Index          int      `json:"index"`
	Name           string   `json:"name"`
	AlwaysLoaded   bool     `json:"alwaysLoaded"`
	SignalPatterns []string `json:"signalPatterns"`
	Description    string   `json:"description"`
}

// Scoring describes Select for a client that assembles its own prompt.
type Scoring struct {
	Description     string `json:"description"`
	CaseInsensitive bool   `json:"caseInsensitive"`
	LastTurns       int    `json:"lastTurns"`
	CharsPerToken   int    `json:"charsPerToken"`
	TokenEstimate   string `json:"tokenEstimate"`
}

// ModuleSpec is the shape of a dynamic module, field by field.
type ModuleSpec struct {
	Fields []FieldSpec `json:"fields"`
}

// FieldSpec is one field of ModuleSpec.
type FieldSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
}

// ModuleInfo is a dynamic module's public half: the spec without its prompt.
type ModuleInfo struct {
	Name           string   `json:"name"`
	PromptGroup    string   `json:"promptGroup"`
	SignalPatterns []string `json:"signalPatterns"`
	TokenEstimate  int      `json:"tokenEstimate"`
	AlwaysLoad     bool     `json:"alwaysLoad"`
}

// scoring says in words what Select does (keep the two together).
var scoring = Scoring{
	Description: "A group loads when it is always loaded or any of its signal patterns matches the message or one of " +
		"the last 3 turns. Always-loaded groups come first and are never dropped. The others are ranked by their " +
		"number of matches (then by matches in the message, then by index) and fill the remaining token budget " +
		"in that order; one that does not fit is passed over. Dynamic modules are scored the same way; one with " +
		"alwaysLoad is ranked ahead of the matched groups but still counts against the budget.",
	CaseInsensitive: true,
	LastTurns:       LastTurns,
	CharsPerToken:   CharsPerToken,
	TokenEstimate:   "ceil(characters / 4)",
}

var moduleSpec = ModuleSpec{Fields: []FieldSpec{
	{"name", "string", true, "the module's name, unique among the instance's capabilities"},
	{"promptGroup", "string", true, "the static group the module extends: one of the 17 group names"},
	{"signalPatterns", "string[]", false, "case-insensitive regular expressions (RE2 syntax), at most 20 of at most " +
		"200 characters; required unless alwaysLoad"},
	{"tokenEstimate", "integer", false, "the prompt's size in tokens; the larger of this and ceil(characters / 4) " +
		"of the prompt is counted"},
	{"alwaysLoad", "boolean", false, "load without a matching pattern, budget permitting"},
	{"prompt", "string", true, "the instructions the assistant gets when the module loads"},
}}

// BuildAnswer is the prompt-groups answer with the given dynamic modules
// (the approved synced capabilities, in the order the caller lists them).
func BuildAnswer(dynamic []Module) Answer {
	gs := groups()
	a := Answer{Version: Version, TotalGroups: len(gs), Groups: make([]GroupInfo, len(gs)), Scoring: scoring,
		CapabilityModuleSpec: moduleSpec, DynamicModules: make([]ModuleInfo, len(dynamic))}
	for i, g := range gs {
		a.Groups[i] = GroupInfo{Index: g.Index, Name: g.Name, AlwaysLoaded: g.AlwaysLoaded,
			SignalPatterns: g.SignalPatterns, Description: g.Description}
	}
	for i, m := range dynamic {
		pats := m.SignalPatterns
		if pats == nil {
			pats = []string{}
		}
		a.DynamicModules[i] = ModuleInfo{Name: m.Name, PromptGroup: m.PromptGroup, SignalPatterns: pats,
			TokenEstimate: moduleTokens(m), AlwaysLoad: m.AlwaysLoad}
	}
	return a
}
