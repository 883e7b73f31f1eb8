// Package promptgroups is the assistant's system prompt in 17 parts and the
// rule that picks which parts a message needs (RULINGS "Federation: instances
// and the platform", `GET /api/v2/prompt-groups`, and "The assistant"). The
// groups ship in the binary as groups.json; the hub serves their public half
// and the assistant assembles its prompt from the same file, so the two can
// never disagree. Nothing here touches storage: dynamic modules (approved
// synced capabilities) are passed in by the caller.
package promptgroups

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"unicode/utf8"
)

// Version is the version of the group set, answered as `version`; it changes
// when groups.json changes in a way a client caching the list should notice.
const Version = "1.0.0"

// CharsPerToken is the assistant's token estimate (RULINGS "The assistant":
// "estimate 4 characters per token"), counted in characters (runes), rounded
// up: EstimateTokens.
const CharsPerToken = 4

// LastTurns is how many of the conversation's latest turns are scored with
// the message.
const LastTurns = 3

//go:embed groups.json
var groupsJSON []byte

// Group is one static prompt group as groups.json holds it.
type Group struct {
	Index          int      `json:"index"`
	Name           string   `json:"name"`
	AlwaysLoaded   bool     `json:"alwaysLoaded"`
	SignalPatterns []string `json:"signalPatterns"`
	Description    string   `json:"description"`
	// Prompt is what the assistant is told when the group loads; identity
	// carries {{placeholders}} the assistant fills from the account.
	Prompt        string `json:"prompt"`
	TokenEstimate int    `json:"tokenEstimate"`

	res []*regexp.Regexp
}

// EstimateTokens is ceil(runes / CharsPerToken).
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + CharsPerToken - 1) / CharsPerToken
}

// compile reads a signal pattern case-insensitively. A pattern that matches
// the empty string would load its group for every message, so it is refused.
func compile(p string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		return nil, err
	}
	if re.MatchString("") {
		return nil, errors.New("matches the empty string")
	}
	return re, nil
}

// Load parses and checks a group file: indexes 0..n-1 in order, unique
// non-empty names, a description, a prompt, at least one pattern, every
// pattern compiling under (?i), and tokenEstimate equal to EstimateTokens of
// the prompt.
func Load(data []byte) ([]Group, error) {
	var f struct {
		Groups []Group `json:"groups"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("promptgroups: %w", err)
	}
	if len(f.Groups) == 0 {
		return nil, errors.New("promptgroups: no groups")
	}
	seen := map[string]bool{}
	for i := range f.Groups {
		g := &f.Groups[i]
		switch {
		case g.Index != i:
			return nil, fmt.Errorf("promptgroups: group %d (%q) has index %d", i, g.Name, g.Index)
		case g.Name == "" || seen[g.Name]:
			return nil, fmt.Errorf("promptgroups: group %d: empty or repeated name %q", i, g.Name)
		case g.Description == "" || g.Prompt == "":
			return nil, fmt.Errorf("promptgroups: group %q: description and prompt are required", g.Name)
		case len(g.SignalPatterns) == 0:
			return nil, fmt.Errorf("promptgroups: group %q: no signal patterns", g.Name)
		case g.TokenEstimate != EstimateTokens(g.Prompt):
			return nil, fmt.Errorf("promptgroups: group %q: tokenEstimate %d, the prompt's estimate is %d",
				g.Name, g.TokenEstimate, EstimateTokens(g.Prompt))
		}
		seen[g.Name] = true
		for _, p := range g.SignalPatterns {
			re, err := compile(p)
			if err != nil {
				return nil, fmt.Errorf("promptgroups: group %q: pattern %q: %w", g.Name, p, err)
			}
			g.res = append(g.res, re)
		}
	}
	return f.Groups, nil
}

// groups is the embedded file, parsed once; a broken file is a build defect
// (TestGroupsFile), so it panics rather than serving half a prompt.
var groups = sync.OnceValue(func() []Group {
	gs, err := Load(groupsJSON)
	if err != nil {
		panic(err)
	}
	return gs
})

// Groups is the 17 static groups in index order. The slice is the caller's;
// the groups' pattern lists are shared and must not be changed.
func Groups() []Group { return slices.Clone(groups()) }
