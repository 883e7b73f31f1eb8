package render

import (
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/server/input"
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

// worded replaces a decode error of m (from the JSON body data) by the worded
// refusal, if any, else by the house wording of input.JSONBodyError.
func worded(m proto.Message, data []byte, err error) error {
	if err == nil {
		return nil
	}
	if v, ok := refusals.Load(m.ProtoReflect().Descriptor().FullName()); ok {
		// protojson says "invalid value for <kind> field <jsonName>: <token>".
		for field, text := range v.(map[string]string) {
			if strings.Contains(err.Error(), " field "+field+": ") {
				return refusal(text)
			}
		}
	}
	return input.JSONBodyError(m.ProtoReflect().Descriptor(), data, err)
}

type refusal string

func (r refusal) Error() string { return string(r) }
