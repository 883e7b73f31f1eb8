package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// restRequests are the request messages that arrive as REST bodies.
// restRequests is every message a REST body or query is decoded into, read
// from the contract: the request of each binding, or the field its body names.
func restRequests() []proto.Message {
	seen := map[protoreflect.FullName]bool{}
	var out []proto.Message
	for _, p := range contract.MustLoad().All() {
		for _, b := range p.Bindings {
			md := p.Descriptor.Input()
			if b.Body != "" && b.Body != "*" {
				md = md.Fields().ByName(protoreflect.Name(b.Body)).Message()
			}
			if seen[md.FullName()] {
				continue
			}
			seen[md.FullName()] = true
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				panic(err)
			}
			out = append(out, mt.New().Interface())
		}
	}
	return out
}

func TestRESTRequestsCoverTheContract(t *testing.T) {
	names := map[string]bool{}
	for _, m := range restRequests() {
		names[string(m.ProtoReflect().Descriptor().Name())] = true
	}
	for _, want := range []string{"UpdateSettingsRequest", "CreateQueueItemRequest", "CardInput", "ContactInput", "UpdateChecklistItemRequest", "ListActivityRequest"} {
		if !names[want] {
			t.Errorf("fuzzed requests lack %s", want)
		}
	}
}

// FuzzRESTDecode: whatever a client sends, decoding never panics, and what
// decodes renders back (REST form) to bytes that decode to the same message.
// Seeds live in testdata/fuzz/FuzzRESTDecode.
func FuzzRESTDecode(f *testing.F) {
	f.Add([]byte(`{"queueAutoApprove":true,"mode":"cockpit"}`))
	f.Add([]byte(`{"serviceKeys":[{"service":"webhook_push","url":"https://h.example/x","secret":null}],"clearFields":["serviceKeys"]}`))
	f.Add([]byte(`{"label":"ci","scopes":["queue","mcp"],"expiresAt":"2026-01-01T00:00:00+02:00"}`))
	f.Add([]byte(`{"email":null,"username":"ada","password":"correct horse"}`))
	f.Add([]byte(`{"limit":"100","since":"2025-01-01","tag":"api"}`))
	f.Add([]byte(`{"username":"\ud83c\udf89\u2028","acceptedTerms":true}`))
	f.Add([]byte(`{"title":"Ship","priority":"urgent","metadata":"{\"cardId\":\"c1\"}","dependsOn":"x"}`))
	f.Add([]byte(`{"title":"Card","dueDate":"2026-12-01T09:00:00Z","labels":["a","b"],"checklist":[{"text":"t","completed":true,"order":2}],"contacts":[{"contactId":"c","canDelegate":true}]}`))
	f.Add([]byte(`{"name":"Ada","tags":["vip"],"lastInteractionAt":"2025-01-01T00:00:00Z","projectPrice":1e308}`))
	f.Add([]byte(`{"id":"q1","status":"in_progress","action":"approve","result":"done"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, proto0 := range restRequests() {
			m := proto0.ProtoReflect().New().Interface()
			err := render.RESTMarshaler{}.Unmarshal(data, m)

			// The streaming decoder grpc-gateway uses agrees with Unmarshal;
			// an empty body is io.EOF ("no body").
			m2 := proto0.ProtoReflect().New().Interface()
			derr := render.RESTMarshaler{}.NewDecoder(bytes.NewReader(data)).Decode(m2)
			if len(bytes.TrimSpace(data)) == 0 {
				if !errors.Is(derr, io.EOF) {
					t.Fatalf("%T: empty body: decoder gave %v, want io.EOF", m, derr)
				}
			} else if werr := checked(m, err); (werr == nil) != (derr == nil) || (werr == nil && !proto.Equal(m, m2)) {
				// The decoder is Unmarshal plus the boundary's check.
				t.Fatalf("%T: Unmarshal (%v) and NewDecoder (%v) disagree", m, werr, derr)
			}
			if err != nil {
				continue
			}

			out, err := render.RESTMarshaler{}.Marshal(m)
			if err != nil {
				t.Fatalf("%T: decoded %q but cannot render it: %v", m, data, err)
			}
			if !json.Valid(out) || !utf8.Valid(out) {
				t.Fatalf("%T: rendered invalid JSON %q", m, out)
			}
			back := proto0.ProtoReflect().New().Interface()
			if err := (render.RESTMarshaler{}).Unmarshal(out, back); err != nil {
				t.Fatalf("%T: own output %q does not decode: %v", m, out, err)
			}
			if !proto.Equal(m, back) {
				t.Fatalf("%T: round trip changed the message\nin:  %q\nout: %q", m, data, out)
			}
		}
	})
}

// checked is err, or the boundary's verdict on m when it decoded.
func checked(m proto.Message, err error) error {
	if err != nil {
		return err
	}
	return input.Check(m)
}

// FuzzRESTEncode: for any string/number contents, the REST form of a response
// is valid JSON equal to the RPC form once its nulls are dropped, or an error
// exactly when a string is not valid UTF-8.
func FuzzRESTEncode(f *testing.F) {
	f.Add("ada", "reserved \u2028", "key", int32(3), true)
	f.Add("", "", "", int32(0), false)
	f.Add("\x00\"\\<>&", "\U0001F389", "é", int32(-1), true)
	f.Add("\xff", "ok", "k", int32(1), false)
	f.Fuzz(func(t *testing.T, s1, s2, key string, n int32, set bool) {
		if !utf8.ValidString(key) {
			// Invalid UTF-8 map keys are rendered raw today; pinned by
			// TestRESTInvalidUTF8MapKeyIsAnError rather than here.
			key = "k"
		}
		var reason *string
		if set {
			reason = proto.String(s2)
		}
		msgs := []proto.Message{
			&switchboardv1.CheckUsernameResponse{Available: set, Username: s1, Reason: reason},
			&switchboardv1.GetSettingsResponse{Mode: s1, AssistantName: reason, OnboardingPhase: n},
			&switchboardv1.ListUpdatesResponse{Updates: []*switchboardv1.Update{{Id: s1, Tags: []string{s2}, Time: reason}}, Total: n},
			&switchboardv1.ResolveUsersResponse{Users: map[string]*switchboardv1.ResolvedUser{key: {Name: s1, Avatar: reason}}},
			&switchboardv1.UpdateSettingsResponse{Mode: reason},
			// Empty lists are dropped from the RPC bytes after marshalling: arbitrary text must survive that.
			&switchboardv1.UpdateSettingsResponse{QueueAutoApprove: proto.Bool(set), ServiceKeys: []*switchboardv1.ServiceKey{{Service: s1, Url: s2, SecretSet: set}}},
			&switchboardv1.UpdateSettingsResponse{Mode: reason, ClearFields: []string{s1, key}},
		}
		valid := utf8.ValidString(s1) && utf8.ValidString(s2)
		for _, m := range msgs {
			rest, err := render.RESTMarshaler{}.Marshal(m)
			rpc, rerr := render.RPCJSONCodecs()[0].Marshal(m)
			if (err == nil) != (rerr == nil) {
				t.Fatalf("%T: REST error %v, RPC error %v", m, err, rerr)
			}
			if err != nil {
				if valid {
					t.Fatalf("%T: valid input refused: %v", m, err)
				}
				continue
			}
			rv, err := decodeOrdered(rest)
			if err != nil || !utf8.Valid(rest) {
				t.Fatalf("%T: invalid JSON %q: %v", m, rest, err)
			}
			pv, err := decodeOrdered(rpc)
			if err != nil {
				t.Fatal(err)
			}
			got := dropRESTNulls(m.ProtoReflect().Descriptor(), rv, "$", func(p string) { t.Errorf("%T: %s", m, p) })
			if !jsonEqual(got, pv) {
				t.Fatalf("%T: REST minus nulls != RPC\nREST %s\nRPC  %s", m, rest, rpc)
			}
			back := m.ProtoReflect().New().Interface()
			if err := (render.RESTMarshaler{}).Unmarshal(rest, back); err != nil || !proto.Equal(back, m) {
				t.Fatalf("%T: round trip: %v", m, err)
			}
		}
	})
}

// FuzzDecodersAgree: the two transports read a body alike. For every request
// shape, the Connect JSON codec and the REST decoder either both refuse an
// input or both yield the same message. Seeds live in testdata/fuzz/FuzzDecodersAgree.
func FuzzDecodersAgree(f *testing.F) {
	f.Add([]byte(`{"title":"x","priority":"urgent"}`))
	f.Add([]byte(`{"queueAutoApprove":null}`))
	f.Add([]byte(`{"unknownField":1}`))
	f.Add([]byte(`{"labels":["a"],"dueDate":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(bytes.TrimSpace(data)) == 0 {
			return // Connect reads an empty body as "no fields"; REST as "no body"
		}
		for _, shape := range restRequests() {
			viaREST := shape.ProtoReflect().New().Interface()
			viaRPC := shape.ProtoReflect().New().Interface()
			restErr := render.RESTMarshaler{}.Unmarshal(data, viaREST)
			rpcErr := render.RPCJSONCodecs()[0].Unmarshal(data, viaRPC)
			if (restErr == nil) != (rpcErr == nil) {
				t.Fatalf("%T: REST says %v, Connect says %v, for %q", shape, restErr, rpcErr, data)
			}
			if restErr == nil && !proto.Equal(viaREST, viaRPC) {
				t.Fatalf("%T: the transports decode %q differently", shape, data)
			}
		}
	})
}
