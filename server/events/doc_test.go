package events_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/events"
)

// The contract's comment on ChatEvent.type names every type every stream
// sends, the SSE-only error event included: it is what a client reads to
// know what to expect (the descriptors carry no comments, so the .proto is
// read); the dashboard's kinds are the rest of the field's vocabulary.
func TestChatEventTypesAreDocumented(t *testing.T) {
	src, err := os.ReadFile("../../proto/switchboard/v1/chat.proto")
	if err != nil {
		t.Fatal(err)
	}
	// The comment lines right above ChatEvent's type field.
	m := regexp.MustCompile(`(?s)message ChatEvent \{\n((?:\s*//[^\n]*\n)+)\s*string type = 1 \[\(vocabulary\) = "stream_event"\];`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no comment above ChatEvent.type in chat.proto")
	}
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[a-z_]+`).FindAllString(strings.ReplaceAll(string(m[1]), "//", ""), -1) {
		words[w] = true
	}
	for _, typ := range []string{events.TypeConnected, events.TypeHeartbeat, events.TypeNewMessage, events.TypeWake, events.TypeQueueUpdated, events.TypeError} {
		if !words[typ] {
			t.Errorf("ChatEvent.type's comment does not name %q:\n%s", typ, m[1])
		}
	}
}
