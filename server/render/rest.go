package render

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/input"
)

// RESTMarshaler renders the REST form: the same keys as the RPC form, but an
// absent optional value is null, and a repeated field marked
// rest_null_when_empty is null when empty. grpc-gateway's stock JSONPb cannot do
// this (EmitUnpopulated silently drops unset proto3 optional fields), so this
// walks the message with protoreflect. Well-known types are delegated to
// protojson, which owns their JSON mapping.
type RESTMarshaler struct{}

var _ runtime.Marshaler = RESTMarshaler{}

var restUnmarshal = protojson.UnmarshalOptions{}

// ContentType implements runtime.Marshaler.
func (RESTMarshaler) ContentType(any) string { return "application/json" }

// Marshal implements runtime.Marshaler. Besides messages it accepts what
// grpc-gateway hands over for a response_body field: a map or list of messages.
func (RESTMarshaler) Marshal(v any) ([]byte, error) {
	return AppendREST(make([]byte, 0, 512), v)
}

// AppendREST appends the REST rendering of v to b. Besides a message, v may be
// a map with string keys or a slice whose values are messages (what
// grpc-gateway hands over for a response_body field); anything else is refused
// rather than rendered by rules other than the proto3 JSON mapping.
func AppendREST(b []byte, v any) ([]byte, error) {
	if m, ok := v.(proto.Message); ok {
		return appendMessage(b, m.ProtoReflect())
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		keys := rv.MapKeys()
		slices.SortFunc(keys, func(a, c reflect.Value) int { return compareStrings(a.String(), c.String()) })
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendKey(b, k.String()); err != nil {
				return nil, err
			}
			if b, err = AppendREST(b, rv.MapIndex(k).Interface()); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case rv.Kind() == reflect.Slice:
		b = append(b, '[')
		for i := range rv.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendREST(b, rv.Index(i).Interface()); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("rest json: cannot render %T", v)
}

// appendKey writes an object key and its colon, refusing invalid UTF-8 as
// protojson does.
func appendKey(b []byte, key string) ([]byte, error) {
	if !utf8.ValidString(key) {
		return nil, fmt.Errorf("rest json: map key holds invalid UTF-8")
	}
	return append(appendString(b, key), ':'), nil
}

func compareStrings(a, c string) int {
	switch {
	case a < c:
		return -1
	case a > c:
		return 1
	}
	return 0
}

// Unmarshal implements runtime.Marshaler; unknown fields are refused. Besides
// a message it accepts what grpc-gateway hands over for a `body: "field"` rule:
// a pointer to the field's (possibly nil) message pointer.
func (RESTMarshaler) Unmarshal(data []byte, v any) error {
	if m, ok := v.(proto.Message); ok {
		return worded(m, data, restUnmarshal.Unmarshal(data, m))
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Pointer {
		if rv.Elem().IsNil() {
			rv.Elem().Set(reflect.New(rv.Elem().Type().Elem()))
		}
		if m, ok := rv.Elem().Interface().(proto.Message); ok {
			return worded(m, data, restUnmarshal.Unmarshal(data, m))
		}
	}
	return fmt.Errorf("rest json: cannot decode into %T", v)
}

// NewDecoder implements runtime.Marshaler.
func (RESTMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			// grpc-gateway treats io.EOF as "no body", which for body "*" means
			// an empty request message.
			return io.EOF
		}
		if err := input.JSONError(data); err != nil {
			return err
		}
		if err := (RESTMarshaler{}).Unmarshal(data, v); err != nil {
			return err
		}
		// The body's part of the request meets the contract's field rules
		// before any service sees it (docs/decisions.md, "Input at the boundary").
		return input.Check(bodyMessage(v))
	})
}

// bodyMessage is the message a body decoded into: v itself, or what v points
// to when the body is one field of the request (grpc-gateway passes &req.Card).
func bodyMessage(v any) proto.Message {
	if m, ok := v.(proto.Message); ok {
		return m
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		if m, ok := rv.Elem().Interface().(proto.Message); ok {
			return m
		}
	}
	return nil
}

// NewEncoder implements runtime.Marshaler.
func (RESTMarshaler) NewEncoder(w io.Writer) runtime.Encoder {
	return runtime.EncoderFunc(func(v any) error {
		b, err := RESTMarshaler{}.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

func appendMessage(b []byte, m protoreflect.Message) ([]byte, error) {
	md := m.Descriptor()
	if md.FullName() == timestampName {
		// Every record carries two: protojson's marshal and the compaction
		// below were a third of a page's rendering.
		return appendTimestamp(b, m)
	}
	if isWellKnown(md) {
		out, err := protojson.Marshal(m.Interface())
		if err != nil {
			return nil, err
		}
		// protojson randomises insignificant whitespace; compact it away so the
		// bytes are stable.
		var buf bytes.Buffer
		if err := json.Compact(&buf, out); err != nil {
			return nil, err
		}
		return append(b, buf.Bytes()...), nil
	}
	omitAbsent := restOmitAbsent(md)
	fields := md.Fields()
	b = append(b, '{')
	first := true
	for i := range fields.Len() {
		fd := fields.Get(i)
		if oo := fd.ContainingOneof(); oo != nil && !oo.IsSynthetic() && !m.Has(fd) {
			continue // an unset member of a real oneof is not part of the object
		}
		absent := fd.HasPresence() && !m.Has(fd)
		if omitAbsent && (absent || emptyCollection(m, fd)) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, fd.JSONName())
		b = append(b, ':')
		var err error
		switch {
		case absent:
			b = append(b, "null"...)
		case fd.IsList():
			b, err = appendList(b, fd, m.Get(fd).List())
		case fd.IsMap():
			b, err = appendMap(b, fd, m.Get(fd).Map())
		default:
			b, err = appendValue(b, fd, m.Get(fd))
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// emptyCollection reports a list or map field with no entries: in a message
// marked rest_omit_absent it was not applied, so it is left out.
func emptyCollection(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	return (fd.IsList() || fd.IsMap()) && !m.Has(fd)
}

func appendList(b []byte, fd protoreflect.FieldDescriptor, l protoreflect.List) ([]byte, error) {
	if l.Len() == 0 && restNullWhenEmpty(fd) {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range l.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, fd, l.Get(i)); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func appendMap(b []byte, fd protoreflect.FieldDescriptor, mp protoreflect.Map) ([]byte, error) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compareMapKeys(fd.MapKey().Kind()))
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendKey(b, k.String()); err != nil {
			return nil, err
		}
		if b, err = appendValue(b, fd.MapValue(), mp.Get(k)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// compareMapKeys orders keys as protojson does: numbers by value, the rest as text.
func compareMapKeys(kind protoreflect.Kind) func(a, c protoreflect.MapKey) int {
	switch kind {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return func(a, c protoreflect.MapKey) int { return cmp.Compare(a.Int(), c.Int()) }
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return func(a, c protoreflect.MapKey) int { return cmp.Compare(a.Uint(), c.Uint()) }
	}
	return func(a, c protoreflect.MapKey) int { return compareStrings(a.String(), c.String()) }
}

func appendValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// The proto3 JSON mapping writes 64-bit integers as strings.
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), nil
	case protoreflect.FloatKind:
		return appendFloat(b, v.Float(), 32), nil
	case protoreflect.DoubleKind:
		return appendFloat(b, v.Float(), 64), nil
	case protoreflect.StringKind:
		if !utf8.ValidString(v.String()) {
			return nil, fmt.Errorf("rest json: field %s holds invalid UTF-8", fd.FullName())
		}
		return appendString(b, v.String()), nil
	case protoreflect.BytesKind:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		return append(b, '"'), nil
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return append(b, "null"...), nil
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return appendString(b, string(ev.Name())), nil
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return appendMessage(b, v.Message())
	}
	return nil, fmt.Errorf("rest json: unsupported kind %v of %s", fd.Kind(), fd.FullName())
}

// appendFloat follows the proto3 JSON mapping (the ES6 number form, with the
// non-finite values as strings), as protojson does.
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as ES6 does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping exactly what protojson
// escapes: quotes, backslash and control characters (<, > and & stay as they are).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++ // multi-byte UTF-8 passes through whole, as protojson writes it
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
