package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-hq/switchboard/server/render"
)

type equivCase struct {
	name string
	msg  proto.Message
	// restBody is what render.RESTMarshaler renders; restField names the field it is
	// when that is not msg itself (grpc-gateway response_body).
	restBody  any
	restField string
}

func equivCases(t testing.TB) []equivCase {
	var cases []equivCase
	for _, f := range responseFixtures() {
		cases = append(cases, equivCase{f.name(), f.msg, f.restBody, f.restField})
		if f.restField != "" {
			// The whole message through the REST marshaler too.
			cases = append(cases, equivCase{f.name() + "/whole", f.msg, f.msg, ""})
		}
	}
	names := make([]string, 0, len(kindsValues))
	for n := range kindsValues {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := kindsMessage(t, kindsValues[n])
		cases = append(cases, equivCase{"Kinds." + n, m, m, ""})
	}
	return cases
}

// sortMapObjects sorts the members of every JSON object that renders a proto
// map field (JSON objects are unordered; the two renderers order integer map
// keys differently, see TestRESTMapKeyOrder).
func sortMapObjects(md protoreflect.MessageDescriptor, v any) any {
	obj, ok := v.(jsonObject)
	if !ok || isWellKnown(md) {
		return v
	}
	out := make(jsonObject, len(obj))
	for i, m := range obj {
		out[i] = m
		fd := md.Fields().ByJSONName(m.Key)
		if fd == nil || m.Value == nil {
			continue
		}
		switch {
		case fd.IsMap():
			mo, ok := m.Value.(jsonObject)
			if !ok {
				continue
			}
			sorted := make(jsonObject, len(mo))
			for j, e := range mo {
				sorted[j] = e
				if vm := fd.MapValue().Message(); vm != nil {
					sorted[j].Value = sortMapObjects(vm, e.Value)
				}
			}
			sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Key < sorted[b].Key })
			out[i].Value = sorted
		case fd.IsList() && fd.Message() != nil:
			if arr, ok := m.Value.([]any); ok {
				na := make([]any, len(arr))
				for j, e := range arr {
					na[j] = sortMapObjects(fd.Message(), e)
				}
				out[i].Value = na
			}
		case fd.Message() != nil:
			out[i].Value = sortMapObjects(fd.Message(), m.Value)
		}
	}
	return out
}

// TestRESTEquivalentToRPC: the REST form minus its nulls is the RPC form (same
// keys in the same order, same values), and it decodes back to the original
// message.
func TestRESTEquivalentToRPC(t *testing.T) {
	for _, c := range equivCases(t) {
		t.Run(c.name, func(t *testing.T) {
			md := c.msg.ProtoReflect().Descriptor()
			rpcBytes, err := render.RPCJSONCodecs()[0].Marshal(c.msg)
			if err != nil {
				t.Fatalf("rpc: %v", err)
			}
			restBytes, err := render.RESTMarshaler{}.Marshal(c.restBody)
			if err != nil {
				t.Fatalf("rest: %v", err)
			}
			rpc, err := decodeOrdered(rpcBytes)
			if err != nil {
				t.Fatalf("rpc output is not JSON: %v\n%s", err, rpcBytes)
			}
			rest, err := decodeOrdered(restBytes)
			if err != nil {
				t.Fatalf("rest output is not JSON: %v\n%s", err, restBytes)
			}
			if hasNull(rpc) {
				t.Errorf("the RPC form holds a null: %s", rpcBytes)
			}

			// Compare like with like: the RPC message, or its response_body field.
			if c.restField != "" {
				v, ok := rpc.(jsonObject).get(c.restField)
				if !ok {
					t.Fatalf("rpc form lacks %q: %s", c.restField, rpcBytes)
				}
				rpc = v
				// Wrap the bare REST value so both sides are the message.
				rpc = jsonObject{{c.restField, rpc}}
				rest = jsonObject{{c.restField, rest}}
				restBytes = fmt.Appendf(nil, `{%q:%s}`, c.restField, restBytes)
			}

			var problems []string
			got := dropRESTNulls(md, rest, "$", func(p string) { problems = append(problems, p) })
			for _, p := range problems {
				t.Errorf("REST form: %s\n%s", p, restBytes)
			}
			got, want := sortMapObjects(md, got), sortMapObjects(md, rpc)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("REST minus nulls != RPC\nREST: %s\nRPC:  %s\ndiff (-rpc +rest):\n%s",
					restBytes, rpcBytes, cmp.Diff(want, got))
			}

			// The REST bytes decode (nulls as unset) to the original message.
			back := c.msg.ProtoReflect().New().Interface()
			if err := (render.RESTMarshaler{}).Unmarshal(restBytes, back); err != nil {
				t.Fatalf("render.RESTMarshaler.Unmarshal of its own output: %v\n%s", err, restBytes)
			}
			if !proto.Equal(back, c.msg) {
				t.Errorf("REST round trip changed the message:\n%s", cmp.Diff(c.msg, back, protocmp.Transform()))
			}
			// And the RPC bytes too, through the RPC codec.
			back2 := c.msg.ProtoReflect().New().Interface()
			if err := render.RPCJSONCodecs()[0].Unmarshal(rpcBytes, back2); err != nil {
				t.Fatalf("RPC unmarshal: %v", err)
			}
			if !proto.Equal(back2, c.msg) {
				t.Errorf("RPC round trip changed the message")
			}
		})
	}
}

// TestRESTNullDecodesAsUnset: protojson (what render.RESTMarshaler.Unmarshal uses)
// takes null for an optional scalar, an optional/singular message, a
// Timestamp and a list as "not set".
func TestRESTNullDecodesAsUnset(t *testing.T) {
	md := kindsDescriptor(t)
	body := `{"od":null,"oi64":null,"os":null,"oby":null,"oe":null,"ots":null,"ts":null,` +
		`"inner":null,"labels":null,"ri64":null,"msi":null,"applied":null,"cStr":null,"d":null,"s":null}`
	m := dynamicpb.NewMessage(md)
	if err := (render.RESTMarshaler{}).Unmarshal([]byte(body), m); err != nil {
		t.Fatalf("null refused: %v", err)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		t.Errorf("%s is set after decoding null", fd.Name())
		return true
	})

	for _, f := range responseFixtures() {
		if f.restField != "" {
			continue
		}
		t.Run(f.name(), func(t *testing.T) {
			// Every key of the sparse REST forms may be null and still decode.
			b, err := render.RESTMarshaler{}.Marshal(f.msg)
			if err != nil {
				t.Fatal(err)
			}
			back := f.msg.ProtoReflect().New().Interface()
			if err := (render.RESTMarshaler{}).Unmarshal(b, back); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
		})
	}
}

// TestRESTOmitAbsent: UpdateSettingsResponse answers only the applied fields
// on both transports (RULINGS "Exceptions from the documents").
func TestRESTOmitAbsent(t *testing.T) {
	for _, f := range responseFixtures() {
		if f.message != "UpdateSettingsResponse" {
			continue
		}
		rest, err := render.RESTMarshaler{}.Marshal(f.msg)
		if err != nil {
			t.Fatal(err)
		}
		rpc, err := render.RPCJSONCodecs()[0].Marshal(f.msg)
		if err != nil {
			t.Fatal(err)
		}
		rv, _ := decodeOrdered(rest)
		pv, _ := decodeOrdered(rpc)
		if hasNull(rv) || !reflect.DeepEqual(rv, pv) {
			t.Errorf("%s: REST %s, RPC %s: want the same, without nulls", f.name(), rest, rpc)
		}
	}
	// Sanity check on a message that is not marked: an absent optional is null.
	b, err := render.RESTMarshaler{}.Marshal(kindsMessage(t, `applied {}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := decodeOrdered(b)
	if od, _ := v.(jsonObject).get("od"); od != nil {
		t.Errorf("od: want null, got %v", od)
	}
	ap, _ := v.(jsonObject).get("applied")
	if want := (jsonObject{{"count", json.Number("0")}}); !reflect.DeepEqual(ap, want) {
		t.Errorf("applied: got %#v, want only count", ap)
	}
}

// TestRESTMapKeyOrder documents how each renderer orders map keys. String keys
// (the only kind the contract uses) sort the same way in both.
func TestRESTMapKeyOrder(t *testing.T) {
	m := kindsMessage(t, `msi { key: "b" } msi { key: "B" } msi { key: "a" } msi { key: "é" } msi { key: "10" } msi { key: "9" }`)
	rest, err := render.RESTMarshaler{}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	rpc, err := render.RPCJSONCodecs()[0].Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	rv, _ := decodeOrdered(rest)
	pv, _ := decodeOrdered(rpc)
	rm, _ := rv.(jsonObject).get("msi")
	pm, _ := pv.(jsonObject).get("msi")
	if !reflect.DeepEqual(rm, pm) {
		t.Errorf("string map key order differs:\nREST %v\nRPC  %v", rm, pm)
	}
}
