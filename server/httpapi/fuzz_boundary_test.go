package httpapi

import (
	"errors"
	"net/url"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// rpcRequests is the request message of every procedure (what a Connect body
// decodes into).
func rpcRequests() []proto.Message {
	var out []proto.Message
	for _, p := range contract.MustLoad().All() {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(p.Descriptor.Input().FullName())
		if err != nil {
			panic(err)
		}
		out = append(out, mt.New().Interface())
	}
	return out
}

// allText reports whether every string in m is text, as input.Check requires.
func allText(m protoreflect.Message) bool {
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len() && ok; i++ {
				ok = valueText(fd, v.List().Get(i))
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				ok = input.Text(k.String()) && valueText(fd.MapValue(), mv)
				return ok
			})
		default:
			ok = valueText(fd, v)
		}
		return ok
	})
	return ok
}

func valueText(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return input.Text(v.String())
	case protoreflect.MessageKind:
		return allText(v.Message())
	}
	return true
}

// FuzzRPCBinaryDecode: whatever bytes a Connect or gRPC client sends, the
// binary codec plus the boundary's check never panics; what passes holds only
// text, and a refusal of invalid UTF-8 is the invalid kind naming a field
// (RULINGS "Input at the boundary"). Seeds live in testdata/fuzz/FuzzRPCBinaryDecode.
func FuzzRPCBinaryDecode(f *testing.F) {
	f.Add([]byte{0x0a, 0x03, 'a', 'd', 'a'})
	f.Add([]byte{0x0a, 0x02, 'a', 0xff})
	f.Add([]byte{0x0a, 0x02, 'a', 0x00})
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x03, 'x', 0x00, 'y'})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, shape := range rpcRequests() {
			m := shape.ProtoReflect().New().Interface()
			err := render.RPCProtoCodec{}.Unmarshal(data, m)
			if err == nil {
				err = input.Check(m)
				if err == nil && !allText(m.ProtoReflect()) {
					t.Fatalf("%T: %q passed with a string that is not text", m, data)
				}
			}
			var e *apperr.Error
			if errors.As(err, &e) && e.Kind != apperr.KindInvalid {
				t.Fatalf("%T: %q refused as %v", m, data, e)
			}
		}
	})
}

// FuzzQueryDecode: any query string read into any request whose REST route
// has no body never panics, and what the parser accepts holds only text
// within the contract's limits. Seeds live in testdata/fuzz/FuzzQueryDecode.
func FuzzQueryDecode(f *testing.F) {
	f.Add("username=ada")
	f.Add("username=%ff%fe")
	f.Add("search=a%00b&limit=5")
	f.Add("status=todo&priority=high&cursor=" + string(make([]byte, 70)))
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := url.ParseQuery(raw)
		if err != nil {
			return // net/http refuses it first
		}
		for _, p := range contract.MustLoad().All() {
			for _, b := range p.Bindings {
				if b.Body != "" {
					continue
				}
				mt, _ := protoregistry.GlobalTypes.FindMessageByName(p.Descriptor.Input().FullName())
				m := mt.New().Interface()
				err := StrictQuery{}.Parse(m, values, utilities.NewDoubleArray(nil))
				if err == nil && (!allText(m.ProtoReflect()) || input.Check(m) != nil) {
					t.Fatalf("%s: %q accepted into %v", p.Name, raw, m)
				}
			}
		}
	})
}
