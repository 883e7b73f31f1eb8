package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/input"
)

// RPCJSONCodec is Connect's JSON codec for the RPC form: absent optional values
// are omitted, every other field (arrays included) is always written.
// Unknown fields in a request are refused, so a misspelt field is a clear 400
// rather than a silent no-op.
type RPCJSONCodec struct {
	// name is "json" or "json; charset=utf-8": Connect looks codecs up by the
	// content-type suffix, so the same codec is registered under both.
	name string
}

// RPCJSONCodecs returns the codec under each name Connect clients use for JSON.
func RPCJSONCodecs() []RPCJSONCodec {
	return []RPCJSONCodec{{name: "json"}, {name: "json; charset=utf-8"}}
}

var (
	rpcMarshal   = protojson.MarshalOptions{EmitDefaultValues: true}
	rpcUnmarshal = protojson.UnmarshalOptions{}
)

// Name implements connect.Codec.
func (c RPCJSONCodec) Name() string { return c.name }

// Marshal implements connect.Codec.
func (RPCJSONCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rpc json: %T is not a proto message", v)
	}
	return marshalRPC(nil, m)
}

// MarshalAppend lets Connect reuse its buffers.
func (RPCJSONCodec) MarshalAppend(b []byte, v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rpc json: %T is not a proto message", v)
	}
	return marshalRPC(b, m)
}

func marshalRPC(b []byte, m proto.Message) ([]byte, error) {
	out, err := rpcMarshal.MarshalAppend(b, m)
	if err != nil {
		return nil, err
	}
	drop := unappliedLists(m.ProtoReflect())
	if len(drop) == 0 {
		return out, nil
	}
	rest, err := dropKeys(out[len(b):], drop)
	if err != nil {
		return nil, err
	}
	return append(out[:len(b)], rest...), nil
}

// unappliedLists names the empty list and map fields of a message marked
// rest_omit_absent: such a message answers only what was applied, and protojson
// (which must emit [] everywhere else) cannot leave out one field alone.
func unappliedLists(m protoreflect.Message) map[string]bool {
	md := m.Descriptor()
	if !proto.GetExtension(md.Options(), switchboardv1.E_RestOmitAbsent).(bool) {
		return nil
	}
	var drop map[string]bool
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if (fd.IsList() || fd.IsMap()) && !m.Has(fd) {
			if drop == nil {
				drop = map[string]bool{}
			}
			drop[fd.JSONName()] = true
		}
	}
	return drop
}

// dropKeys rewrites a JSON object without the named top-level keys, keeping
// the order of the others.
func dropKeys(obj []byte, drop map[string]bool) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("rpc json: not an object: %w", err)
	}
	if tok != json.Delim('{') {
		return nil, errors.New("rpc json: not an object")
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if drop[key] {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), raw...)
	}
	return append(out, '}'), nil
}

// Unmarshal implements connect.Codec.
func (RPCJSONCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("rpc json: %T is not a proto message", v)
	}
	if len(data) == 0 {
		// Connect GET requests and empty bodies mean "no fields".
		return nil
	}
	if err := input.JSONError(data); err != nil {
		return err
	}
	return worded(m, data, rpcUnmarshal.Unmarshal(data, m))
}

// IsBinary implements connect's stable-codec hint.
func (RPCJSONCodec) IsBinary() bool { return false }
