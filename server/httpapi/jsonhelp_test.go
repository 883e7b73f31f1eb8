package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// allResponseMessages lists the output types of every RPC in switchboard.v1.
func allResponseMessages(t testing.TB) []string {
	t.Helper()
	_ = switchboardv1.File_switchboard_v1_options_proto // make sure the package is linked
	set := map[string]bool{}
	protoregistry.GlobalFiles.RangeFilesByPackage("switchboard.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			ms := fd.Services().Get(i).Methods()
			for j := range ms.Len() {
				set[string(ms.Get(j).Output().FullName())] = true
			}
		}
		return true
	})
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no services found in switchboard.v1")
	}
	return out
}

// jsonObject is a JSON object that remembers its key order.
type jsonObject []jsonMember

type jsonMember struct {
	Key   string
	Value any
}

// decodeOrdered decodes JSON into nil, bool, json.Number, string, []any and
// jsonObject, keeping key order so that comparisons see it.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeOrderedValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			obj := jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, jsonMember{kt.(string), v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", tok)
	default:
		return tok, nil
	}
}

func (o jsonObject) get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// dropRESTNulls turns a REST rendering of a message of type md into what the
// RPC rendering must be: a null for a field with presence is removed (RPC
// omits it) and a null for a rest_null_when_empty list becomes []. A null
// anywhere else is reported through bad.
func dropRESTNulls(md protoreflect.MessageDescriptor, v any, path string, bad func(string)) any {
	if v == nil || isWellKnown(md) {
		return v
	}
	obj, ok := v.(jsonObject)
	if !ok {
		bad(path + ": a message rendered as a non-object")
		return v
	}
	omitAbsent := proto.GetExtension(md.Options(), switchboardv1.E_RestOmitAbsent).(bool)
	out := jsonObject{}
	for _, m := range obj {
		p := path + "." + m.Key
		fd := md.Fields().ByJSONName(m.Key)
		if fd == nil {
			bad(p + ": key is not a field of " + string(md.FullName()))
			out = append(out, m)
			continue
		}
		if m.Value == nil {
			switch {
			case fd.IsList() && proto.GetExtension(fd.Options(), switchboardv1.E_RestNullWhenEmpty).(bool):
				out = append(out, jsonMember{m.Key, []any{}})
			case omitAbsent:
				bad(p + ": null in a rest_omit_absent message (must be omitted)")
			case fd.HasPresence():
				// RPC omits it.
			default:
				bad(p + ": null for a field without presence")
			}
			continue
		}
		out = append(out, jsonMember{m.Key, dropFieldNulls(fd, m.Value, p, bad)})
	}
	return out
}

func dropFieldNulls(fd protoreflect.FieldDescriptor, v any, path string, bad func(string)) any {
	switch {
	case fd.IsMap():
		if fd.MapValue().Message() == nil {
			return v
		}
		obj, ok := v.(jsonObject)
		if !ok {
			bad(path + ": a map rendered as a non-object")
			return v
		}
		out := jsonObject{}
		for _, m := range obj {
			out = append(out, jsonMember{m.Key, dropRESTNulls(fd.MapValue().Message(), m.Value, path+"["+m.Key+"]", bad)})
		}
		return out
	case fd.IsList():
		arr, ok := v.([]any)
		if !ok {
			bad(path + ": a list rendered as a non-array")
			return v
		}
		if fd.Message() == nil {
			return v
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = dropRESTNulls(fd.Message(), e, fmt.Sprintf("%s[%d]", path, i), bad)
		}
		return out
	case fd.Message() != nil:
		return dropRESTNulls(fd.Message(), v, path, bad)
	}
	return v
}

// hasNull reports whether a decoded JSON value holds a null anywhere.
func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case jsonObject:
		for _, m := range v {
			if hasNull(m.Value) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// jsonEqual compares two values from decodeOrdered, key order included.
func jsonEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

// isWellKnown is a message protojson renders by its own rules (as render's).
func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}
