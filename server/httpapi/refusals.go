package httpapi

import (
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
)

// refusals words the decoders' refusal of a field's value where the documents
// word it themselves (chat.proto: a chat send whose content is missing,
// non-string or whitespace-only is refused "with one message", so a number
// must read like an empty string): request message → JSON field → text.
var refusals sync.Map // protoreflect.FullName → map[string]string

// WordRefusal makes a value of the wrong type for field (its JSON name) of
// the request message msg refused with text, on both transports' JSON
// decoders. Call it at start-up (an init function).
func WordRefusal(msg proto.Message, jsonField, text string) {
	name := msg.ProtoReflect().Descriptor().FullName()
	m, _ := refusals.LoadOrStore(name, map[string]string{})
	m.(map[string]string)[jsonField] = text
}

// worded replaces a decode error of m by the worded refusal, if any.
func worded(m proto.Message, err error) error {
	if err == nil {
		return nil
	}
	v, ok := refusals.Load(m.ProtoReflect().Descriptor().FullName())
	if !ok {
		return err
	}
	// protojson says "invalid value for <kind> field <jsonName>: <token>".
	for field, text := range v.(map[string]string) {
		if strings.Contains(err.Error(), " field "+field+": ") {
			return refusal(text)
		}
	}
	return err
}

type refusal string

func (r refusal) Error() string { return string(r) }
