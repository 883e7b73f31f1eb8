package httpapi

import (
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"

	_ "github.com/switchboard-hq/switchboard/gen/switchboard/v1" // registers the rendering options
)

// kindsFile is a test-only message with every scalar kind, proto3 optional,
// lists, maps, a real oneof, an enum, nested messages, Timestamp (the only
// well-known type our contract uses) and the rest_null_when_empty option, so
// that the REST walker is exercised on shapes the contract does not use yet.
const kindsFile = `
name: "switchboard/test/kinds.proto"
package: "switchboard.test"
dependency: "google/protobuf/timestamp.proto"
dependency: "switchboard/v1/options.proto"
syntax: "proto3"
enum_type {
  name: "Color"
  value { name: "COLOR_UNSPECIFIED" number: 0 }
  value { name: "COLOR_RED" number: 1 }
  value { name: "COLOR_GREEN" number: 2 }
}
message_type {
  name: "Inner"
  field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "name" }
  field { name: "n" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "n" proto3_optional: true oneof_index: 0 }
  field { name: "tags" number: 3 label: LABEL_REPEATED type: TYPE_STRING json_name: "tags"
          options { [switchboard.v1.rest_null_when_empty]: true } }
  oneof_decl { name: "_n" }
}
message_type {
  name: "Applied"
  options { [switchboard.v1.rest_omit_absent]: true }
  field { name: "flag" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL json_name: "flag" proto3_optional: true oneof_index: 0 }
  field { name: "label" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "label" proto3_optional: true oneof_index: 1 }
  field { name: "count" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "count" }
  oneof_decl { name: "_flag" }
  oneof_decl { name: "_label" }
}
message_type {
  name: "Kinds"
  field { name: "d" number: 1 label: LABEL_OPTIONAL type: TYPE_DOUBLE json_name: "d" }
  field { name: "f" number: 2 label: LABEL_OPTIONAL type: TYPE_FLOAT json_name: "f" }
  field { name: "i32" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "i32" }
  field { name: "i64" number: 4 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "i64" }
  field { name: "u32" number: 5 label: LABEL_OPTIONAL type: TYPE_UINT32 json_name: "u32" }
  field { name: "u64" number: 6 label: LABEL_OPTIONAL type: TYPE_UINT64 json_name: "u64" }
  field { name: "s32" number: 7 label: LABEL_OPTIONAL type: TYPE_SINT32 json_name: "s32" }
  field { name: "s64" number: 8 label: LABEL_OPTIONAL type: TYPE_SINT64 json_name: "s64" }
  field { name: "fx32" number: 9 label: LABEL_OPTIONAL type: TYPE_FIXED32 json_name: "fx32" }
  field { name: "fx64" number: 10 label: LABEL_OPTIONAL type: TYPE_FIXED64 json_name: "fx64" }
  field { name: "sf32" number: 11 label: LABEL_OPTIONAL type: TYPE_SFIXED32 json_name: "sf32" }
  field { name: "sf64" number: 12 label: LABEL_OPTIONAL type: TYPE_SFIXED64 json_name: "sf64" }
  field { name: "b" number: 13 label: LABEL_OPTIONAL type: TYPE_BOOL json_name: "b" }
  field { name: "s" number: 14 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "s" }
  field { name: "by" number: 15 label: LABEL_OPTIONAL type: TYPE_BYTES json_name: "by" }
  field { name: "e" number: 16 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".switchboard.test.Color" json_name: "e" }
  field { name: "od" number: 17 label: LABEL_OPTIONAL type: TYPE_DOUBLE json_name: "od" proto3_optional: true oneof_index: 1 }
  field { name: "oi64" number: 18 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "oi64" proto3_optional: true oneof_index: 2 }
  field { name: "os" number: 19 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "os" proto3_optional: true oneof_index: 3 }
  field { name: "oby" number: 20 label: LABEL_OPTIONAL type: TYPE_BYTES json_name: "oby" proto3_optional: true oneof_index: 4 }
  field { name: "oe" number: 21 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".switchboard.test.Color" json_name: "oe" proto3_optional: true oneof_index: 5 }
  field { name: "inner" number: 22 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".switchboard.test.Inner" json_name: "inner" }
  field { name: "ts" number: 23 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" json_name: "ts" }
  field { name: "ots" number: 24 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" json_name: "ots" proto3_optional: true oneof_index: 6 }
  field { name: "ri64" number: 25 label: LABEL_REPEATED type: TYPE_INT64 json_name: "ri64" }
  field { name: "rd" number: 26 label: LABEL_REPEATED type: TYPE_DOUBLE json_name: "rd" }
  field { name: "rinner" number: 27 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".switchboard.test.Inner" json_name: "rinner" }
  field { name: "labels" number: 28 label: LABEL_REPEATED type: TYPE_STRING json_name: "labels"
          options { [switchboard.v1.rest_null_when_empty]: true } }
  field { name: "re" number: 29 label: LABEL_REPEATED type: TYPE_ENUM type_name: ".switchboard.test.Color" json_name: "re" }
  field { name: "msi" number: 30 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".switchboard.test.Kinds.MsiEntry" json_name: "msi" }
  field { name: "mis" number: 31 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".switchboard.test.Kinds.MisEntry" json_name: "mis" }
  field { name: "mbi" number: 32 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".switchboard.test.Kinds.MbiEntry" json_name: "mbi" }
  field { name: "mue" number: 33 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".switchboard.test.Kinds.MueEntry" json_name: "mue" }
  field { name: "c_str" number: 34 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "cStr" oneof_index: 0 }
  field { name: "c_inner" number: 35 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".switchboard.test.Inner" json_name: "cInner" oneof_index: 0 }
  field { name: "c_int" number: 36 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "cInt" oneof_index: 0 }
  field { name: "snake_case_name" number: 37 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "snakeCaseName" }
  field { name: "applied" number: 38 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".switchboard.test.Applied" json_name: "applied" }
  nested_type {
    name: "MsiEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "value" }
  }
  nested_type {
    name: "MisEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "value" }
  }
  nested_type {
    name: "MbiEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".switchboard.test.Inner" json_name: "value" }
  }
  nested_type {
    name: "MueEntry" options { map_entry: true }
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 json_name: "key" }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".switchboard.test.Color" json_name: "value" }
  }
  oneof_decl { name: "choice" }
  oneof_decl { name: "_od" }
  oneof_decl { name: "_oi64" }
  oneof_decl { name: "_os" }
  oneof_decl { name: "_oby" }
  oneof_decl { name: "_oe" }
  oneof_decl { name: "_ots" }
}
`

var kindsOnce = sync.OnceValues(func() (protoreflect.MessageDescriptor, error) {
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := prototext.Unmarshal([]byte(kindsFile), fdp); err != nil {
		return nil, err
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		return nil, err
	}
	return fd.Messages().ByName("Kinds"), nil
})

func kindsDescriptor(t testing.TB) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := kindsOnce()
	if err != nil {
		t.Fatalf("building the Kinds descriptor: %v", err)
	}
	return md
}

// kindsValues are Kinds messages in text format: every kind set, nothing set,
// extremes, and presence-but-default values.
var kindsValues = map[string]string{
	"empty": ``,
	"all": `
d: 1.5 f: -0.25 i32: -7 i64: -9007199254740993 u32: 4000000000 u64: 18446744073709551615
s32: -32 s64: -64 fx32: 32 fx64: 64 sf32: -320 sf64: -640 b: true
s: "hé \"quoted\" <b>&</b>\n\t\u2028" by: "\x00\xff\xfe binary" e: COLOR_GREEN
od: 2.75 oi64: 1234567890123 os: "opt" oby: "\x01" oe: COLOR_RED
inner { name: "in" n: 5 tags: "a" tags: "b" }
ts { seconds: 1735787045 nanos: 589000000 }
ots { seconds: 0 }
ri64: 1 ri64: -2 rd: 0.1 rd: 1e300
rinner { name: "r0" } rinner { n: 0 tags: "t" }
labels: "x" re: COLOR_RED re: COLOR_UNSPECIFIED
msi { key: "b" value: 2 } msi { key: "a" value: -1 } msi { key: "" value: 0 }
mis { key: 2 value: "two" } mis { key: 10 value: "ten" } mis { key: -1 value: "minus one" }
mbi { key: true value { name: "t" } } mbi { key: false value { } }
mue { key: 18446744073709551615 value: COLOR_GREEN } mue { key: 3 value: COLOR_RED }
c_inner { }
snake_case_name: "snake"
applied { flag: false count: 0 }
`,
	// Optional fields present with their zero values: REST must write the
	// zero value, not null.
	"present_defaults": `
od: 0 oi64: 0 os: "" oby: "" oe: COLOR_UNSPECIFIED ots { } inner { n: 0 } c_str: ""
applied { label: "" }
`,
	"extremes": `
d: inf f: -inf i32: -2147483648 i64: -9223372036854775808 u32: 4294967295 u64: 0
s32: 2147483647 s64: 9223372036854775807 fx32: 4294967295 fx64: 18446744073709551615
sf32: -2147483648 sf64: -9223372036854775808
od: -0 rd: 1e21 rd: 1e-7 rd: 5e-324 rd: 1.7976931348623157e308 rd: 123456789012345680000 rd: 0.000001
c_int: 0
`,
	"nan":           `d: nan f: nan od: nan rd: nan e: 7 oe: 99 re: 42`,
	"float32":       `f: 3.4028235e38 rd: 1e-6 rd: 9.999999e20`,
	"float32_small": `f: 1e-7`,
	"float32_round": `f: 0.1`,
	"timestamps":    `ts { seconds: -62135596800 } ots { seconds: 253402300799 nanos: 999999999 }`,
}

func kindsMessage(t testing.TB, text string) proto.Message {
	t.Helper()
	m := dynamicpb.NewMessage(kindsDescriptor(t))
	if err := prototext.Unmarshal([]byte(text), m); err != nil {
		t.Fatalf("kinds value: %v", err)
	}
	return m
}
