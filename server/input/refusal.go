package input

import (
	"fmt"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// refusal words a violation in the house style: the field's JSON path, then
// what is wrong with it.
func refusal(md protoreflect.MessageDescriptor, v *protovalidate.Violation) error {
	path := jsonPath(md, v.Proto.GetField())
	if v.Proto.GetForKey() {
		path += " key"
	}
	limit := v.RuleValue
	switch v.Proto.GetRuleId() {
	case "string.max_len":
		return apperr.Invalid("%s is longer than %d characters", path, limit.Uint())
	case "repeated.max_items":
		return apperr.Invalid("%s has more than %d items", path, limit.Uint())
	case "map.max_pairs":
		return apperr.Invalid("%s has more than %d entries", path, limit.Uint())
	}
	return apperr.Invalid("%s %s", path, v.Proto.GetMessage())
}

// jsonPath names the field as a client wrote it: JSON names, [i] for list
// items and ["key"] for map values.
func jsonPath(md protoreflect.MessageDescriptor, fp *validate.FieldPath) string {
	var b strings.Builder
	for _, el := range fp.GetElements() {
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = md.Fields().ByNumber(protoreflect.FieldNumber(el.GetFieldNumber()))
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if fd == nil {
			b.WriteString(el.GetFieldName())
			md = nil
			continue
		}
		b.WriteString(fd.JSONName())
		b.WriteString(subscript(el))
		md = next(fd)
	}
	return b.String()
}

func subscript(el *validate.FieldPathElement) string {
	switch {
	case el.HasIndex():
		return fmt.Sprintf("[%d]", el.GetIndex())
	case el.HasStringKey():
		return fmt.Sprintf("[%q]", el.GetStringKey())
	}
	return ""
}

func next(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.IsMap() {
		return fd.MapValue().Message()
	}
	return fd.Message()
}
