package render

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/server/input"
)

// RPCProtoCodec is Connect's binary codec ("proto") with one difference: a
// string that is not valid UTF-8, which protobuf-go refuses, is refused naming
// the field as every other bad text is (docs/decisions.md, "Input at the
// boundary").
type RPCProtoCodec struct{}

// Name implements connect.Codec.
func (RPCProtoCodec) Name() string { return "proto" }

// Marshal implements connect.Codec.
func (RPCProtoCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("rpc proto: %T is not a proto message", v)
	}
	return proto.Marshal(m)
}

// Unmarshal implements connect.Codec.
func (RPCProtoCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("rpc proto: %T is not a proto message", v)
	}
	if err := proto.Unmarshal(data, m); err != nil {
		return input.BinaryError(m.ProtoReflect().Descriptor(), data, err)
	}
	return nil
}

// IsBinary implements connect's stable-codec hint.
func (RPCProtoCodec) IsBinary() bool { return true }
