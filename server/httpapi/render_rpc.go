package httpapi

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
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
	return rpcMarshal.Marshal(m)
}

// MarshalAppend lets Connect reuse its buffers.
func (RPCJSONCodec) MarshalAppend(b []byte, v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rpc json: %T is not a proto message", v)
	}
	return rpcMarshal.MarshalAppend(b, m)
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
	return worded(m, rpcUnmarshal.Unmarshal(data, m))
}

// IsBinary implements connect's stable-codec hint.
func (RPCJSONCodec) IsBinary() bool { return false }
