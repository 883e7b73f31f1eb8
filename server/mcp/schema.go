package mcp

import (
	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// outputSchema is the JSON Schema of a message as the REST mirror renders it
// (server/render.RESTMarshaler), which is what a tool's structuredContent
// holds: every field present, absent optional values null, 64-bit integers as
// strings. Nested messages are $defs, so recursive types terminate.
func outputSchema(md protoreflect.MessageDescriptor) *jsonschema.Schema {
	defs := map[string]*jsonschema.Schema{}
	root := messageSchema(md, defs)
	root.Defs = defs
	return root
}

func messageSchema(md protoreflect.MessageDescriptor, defs map[string]*jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		s.Properties[fd.JSONName()] = fieldSchema(fd, defs)
	}
	return s
}

// fieldSchema is one field's value. No schema here uses a list of types
// ("type": ["string", "null"]): many MCP clients read only a single type,
// so alternatives are anyOf branches, each keeping its own constraints.
func fieldSchema(fd protoreflect.FieldDescriptor, defs map[string]*jsonschema.Schema) *jsonschema.Schema {
	switch {
	case fd.IsMap():
		return nullable(&jsonschema.Schema{Type: "object", AdditionalProperties: valueSchema(fd.MapValue(), defs)})
	case fd.IsList():
		return nullable(&jsonschema.Schema{Type: "array", Items: valueSchema(fd, defs)})
	}
	v := valueSchema(fd, defs)
	if fd.HasPresence() {
		return nullable(v)
	}
	return v
}

// nullable lets a value be null too.
func nullable(v *jsonschema.Schema) *jsonschema.Schema {
	null := &jsonschema.Schema{Type: "null"}
	switch {
	case v.Type == "" && v.Ref == "" && len(v.AnyOf) == 0:
		return v // any value, null among them (google.protobuf.Value)
	case v.Type == "" && v.Ref == "" && v.Description == "":
		v.AnyOf = append(v.AnyOf, null) // one more branch (a float's)
		return v
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{v, null}}
}

// valueSchema is one value of a field (an element of a list, a map's value).
func valueSchema(fd protoreflect.FieldDescriptor, defs map[string]*jsonschema.Schema) *jsonschema.Schema {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return &jsonschema.Schema{Type: "boolean"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return &jsonschema.Schema{Type: "integer"}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return &jsonschema.Schema{Type: "string", Description: "a 64-bit integer, written as a string"}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		// NaN and the infinities are written as strings.
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "number"}, {Type: "string"}}}
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind:
		return &jsonschema.Schema{Type: "string"}
	}
	return messageRef(fd.Message(), defs)
}

// messageRef is a message value: a well-known type as protojson writes it,
// else a $ref to the message's $defs entry.
func messageRef(md protoreflect.MessageDescriptor, defs map[string]*jsonschema.Schema) *jsonschema.Schema {
	switch md.FullName() {
	case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask":
		return &jsonschema.Schema{Type: "string"}
	case "google.protobuf.Struct":
		return &jsonschema.Schema{Type: "object"}
	case "google.protobuf.ListValue":
		return &jsonschema.Schema{Type: "array"}
	case "google.protobuf.Value", "google.protobuf.Any":
		return &jsonschema.Schema{}
	}
	name := string(md.FullName())
	if _, ok := defs[name]; !ok {
		defs[name] = nil // mark before descending: a message may contain itself
		defs[name] = messageSchema(md, defs)
	}
	return &jsonschema.Schema{Ref: "#/$defs/" + name}
}

// arg is the input schema of one tool argument taken from a request field of
// the contract: its type, its vocabulary as an enum, and its declared limits,
// so a tool accepts what the RPC behind it accepts.
func arg(msg proto.Message, field, description string) *jsonschema.Schema {
	fd := msg.ProtoReflect().Descriptor().Fields().ByJSONName(field)
	if fd == nil {
		panic("mcp: " + string(msg.ProtoReflect().Descriptor().FullName()) + " has no field " + field)
	}
	s := &jsonschema.Schema{Description: description}
	switch fd.Kind() {
	case protoreflect.StringKind:
		s.Type = "string"
		if set := vocab.Of(fd); set != nil {
			for _, v := range set.Values {
				s.Enum = append(s.Enum, v)
			}
		}
		if c, ok := fieldRules(fd); ok && c.GetString().HasMaxLen() {
			n := int(c.GetString().GetMaxLen())
			s.MaxLength = &n
		}
	case protoreflect.Int32Kind:
		s.Type = "integer"
	case protoreflect.BoolKind:
		s.Type = "boolean"
	default:
		panic("mcp: argument " + field + " has a kind tools do not take")
	}
	return s
}

func fieldRules(fd protoreflect.FieldDescriptor) (*validate.FieldRules, bool) {
	r, ok := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	return r, ok && r != nil
}

// object is a tool's input schema: the named arguments, the required ones,
// and nothing else (an unknown argument is refused, as an unknown JSON field
// is by the API).
func object(required []string, props map[string]*jsonschema.Schema) *jsonschema.Schema {
	if props == nil {
		props = map[string]*jsonschema.Schema{}
	}
	return &jsonschema.Schema{
		Type: "object", Properties: props, Required: required,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}
