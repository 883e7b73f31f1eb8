package input

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// RULINGS "Input at the boundary": text is valid UTF-8 without NUL, every
// field keeps its declared limit, and the refusal names the field.
func TestCheck(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	for _, c := range []struct {
		name string
		msg  proto.Message
		want string // "" passes
	}{
		{"a card within its limits", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
			Title: proto.String(long(500)), Labels: make([]string, 50), ProjectId: proto.String(long(64))}}, ""},
		{"NUL in a nested field", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: proto.String("a\x00")}},
			"card.title must be valid UTF-8 without NUL characters"},
		{"invalid UTF-8 in a list item", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
			Checklist: []*switchboardv1.ChecklistItemInput{{Text: "ok"}, {Text: "a\xff"}}}},
			"card.checklist[1].text must be valid UTF-8 without NUL characters"},
		{"NUL in a map value", &switchboardv1.CustomizeCapabilityRequest{Id: "c", Customizations: map[string]string{"k": "\x00"}},
			`customizations["k"] must be valid UTF-8 without NUL characters`},
		{"NUL in a map key", &switchboardv1.CustomizeCapabilityRequest{Id: "c", Customizations: map[string]string{"\x00": "v"}},
			"customizations key must be valid UTF-8 without NUL characters"},
		{"an id over 64", &switchboardv1.GetCardRequest{Id: long(65)}, "id is longer than 64 characters"},
		{"a title over 500", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: proto.String(long(501))}},
			"card.title is longer than 500 characters"},
		{"a description at 100,000", &switchboardv1.CreateQueueItemRequest{Description: proto.String(long(100000))}, ""},
		{"a description over 100,000", &switchboardv1.CreateQueueItemRequest{Description: proto.String(long(100001))},
			"description is longer than 100000 characters"},
		{"a URL over 2,048", &switchboardv1.UpdateSettingsRequest{ServiceKeys: []*switchboardv1.ServiceKeyInput{{Url: long(2049)}}},
			"serviceKeys[0].url is longer than 2048 characters"},
		{"51 labels", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Labels: make([]string, 51)}},
			"card.labels has more than 50 items"},
		{"a label over 500", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Labels: []string{long(501)}}},
			"card.labels[0] is longer than 500 characters"},
		{"501 checklist items", &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Checklist: make([]*switchboardv1.ChecklistItemInput, 501)}},
			"card.checklist has more than 500 items"},
		{"101 customizations", &switchboardv1.CustomizeCapabilityRequest{Id: "c", Customizations: manyKeys(101)},
			"customizations has more than 100 entries"},
		{"a contact name over 500", &switchboardv1.CreateContactRequest{Contact: &switchboardv1.ContactInput{Name: proto.String(strings.Repeat("x", 3000))}},
			"contact.name is longer than 500 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.msg)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e := apperr.From(err)
			if err == nil || e.Kind != apperr.KindInvalid || e.Message != c.want {
				t.Fatalf("got %v, want invalid %q", err, c.want)
			}
		})
	}
}

func manyKeys(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[strings.Repeat("k", i+1)] = "v"
	}
	return m
}

// Invalid UTF-8 in a JSON body is refused naming the key that holds it.
func TestJSONError(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"title":"ok"}`, ""},
		{"{\"title\":\"a\xffb\"}", "title must be valid UTF-8 without NUL characters"},
		{"{\"n\":1,\"card\":{\"labels\":[\"a\",2,\"\xfe\"]}}", "card.labels[2] must be valid UTF-8 without NUL characters"},
		{"{\"checklist\":[{\"text\":\"x\"},{\"text\":\"\xff\"}]}", "checklist[1].text must be valid UTF-8 without NUL characters"},
		{"{\"a\xff\":1}", "key must be valid UTF-8 without NUL characters"},
		{"{\"title\":\"\uFFFD\",\"x\":\"\xff\"}", "the body must be valid UTF-8 without NUL characters"},
		{"\xff", "the body must be valid UTF-8 without NUL characters"},
	} {
		err := JSONError([]byte(c.body))
		got := ""
		if err != nil {
			got = apperr.From(err).Message
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.body, got, c.want)
		}
	}
}

// protobuf-go's refusal of invalid UTF-8 in a binary body is reworded to name
// the field.
func TestBinaryError(t *testing.T) {
	data := []byte{0x0a, 0x02, 'a', 0xff} // field 1 (CheckUsernameRequest.username)
	err := proto.Unmarshal(data, &switchboardv1.CheckUsernameRequest{})
	if err == nil {
		t.Fatal("protobuf-go accepted invalid UTF-8")
	}
	if e := apperr.From(BinaryError((&switchboardv1.CheckUsernameRequest{}).ProtoReflect().Descriptor(), data, err)); e.Kind != apperr.KindInvalid || e.Message != "username must be valid UTF-8 without NUL characters" {
		t.Fatalf("got %v", e)
	}
	// Nested: CreateCardRequest.card (1) holding CardInput.title (1).
	nested := []byte{0x0a, 0x04, 0x0a, 0x02, 'a', 0xfe}
	err = proto.Unmarshal(nested, &switchboardv1.CreateCardRequest{})
	if e := apperr.From(BinaryError((&switchboardv1.CreateCardRequest{}).ProtoReflect().Descriptor(), nested, err)); e.Message != "card.title must be valid UTF-8 without NUL characters" {
		t.Fatalf("nested: got %v", e)
	}
}
