package mcp

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// probeMessage is a message with a field of each shape the output schemas
// write: a float with and without presence, a map, a list, an optional
// message (itself) and string, a 64-bit integer.
func probeMessage(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(), Label: label.Enum()}
	}
	optional := func(f *descriptorpb.FieldDescriptorProto, oneof int32) *descriptorpb.FieldDescriptorProto {
		f.Proto3Optional, f.OneofIndex = proto.Bool(true), proto.Int32(oneof)
		return f
	}
	const (
		opt = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		rep = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	)
	child := field("child", 5, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, opt)
	child.TypeName = proto.String(".probe.Probe")
	counts := field("counts", 3, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, rep)
	counts.TypeName = proto.String(".probe.Probe.CountsEntry")
	file := &descriptorpb.FileDescriptorProto{
		Name: proto.String("probe.proto"), Package: proto.String("probe"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Probe"),
			Field: []*descriptorpb.FieldDescriptorProto{
				optional(field("price", 1, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, opt), 0),
				field("score", 2, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, opt),
				counts,
				field("labels", 4, descriptorpb.FieldDescriptorProto_TYPE_STRING, rep),
				child,
				optional(field("note", 6, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt), 1),
				field("big", 7, descriptorpb.FieldDescriptorProto_TYPE_INT64, opt),
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("_price")}, {Name: proto.String("_note")}},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("CountsEntry"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("key", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt),
					field("value", 2, descriptorpb.FieldDescriptorProto_TYPE_INT32, opt),
				},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
		}},
	}
	fd, err := protodesc.NewFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Probe")
}

// Output schemas write alternatives (null, a float's string form) as anyOf
// branches, never as a list of types, which many MCP clients cannot read;
// each branch keeps its constraints (a map's values, a list's items, $ref).
func TestOutputSchemaShapes(t *testing.T) {
	t.Parallel()
	s := outputSchema(probeMessage(t))
	for field, want := range map[string]string{
		"price":  `{"anyOf":[{"type":"number"},{"type":"string"},{"type":"null"}]}`,
		"score":  `{"anyOf":[{"type":"number"},{"type":"string"}]}`,
		"counts": `{"anyOf":[{"type":"object","additionalProperties":{"type":"integer"}},{"type":"null"}]}`,
		"labels": `{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}`,
		"child":  `{"anyOf":[{"$ref":"#/$defs/probe.Probe"},{"type":"null"}]}`,
		"note":   `{"anyOf":[{"type":"string"},{"type":"null"}]}`,
		"big":    `{"type":"string","description":"a 64-bit integer, written as a string"}`,
	} {
		got, err := json.Marshal(s.Properties[field])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: %s\nwant %s", field, got, want)
		}
	}

	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value string
		ok    bool
	}{
		{`{"price":1.5,"score":"NaN","counts":{"a":1},"labels":["x"],"child":{"price":null,"labels":null},"note":null,"big":"9007199254740993"}`, true},
		{`{"price":null,"counts":null,"child":null}`, true},
		{`{"score":null}`, false},                 // no presence: never null
		{`{"price":true}`, false},                 // a number or its string form
		{`{"counts":{"a":"x"}}`, false},           // the map's values
		{`{"labels":[1]}`, false},                 // the list's items
		{`{"child":{"counts":{"a":"x"}}}`, false}, // through $ref
		{`{"big":9007199254740993}`, false},       // 64-bit integers are strings
	} {
		var v any
		if err := json.Unmarshal([]byte(c.value), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); (err == nil) != c.ok {
			t.Errorf("%s: valid=%v, want %v (%v)", c.value, err == nil, c.ok, err)
		}
	}
}
