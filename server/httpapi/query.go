package httpapi

import (
	"net/url"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/input"
)

// StrictQuery is grpc-gateway's query parser, refusing parameters that name no
// field of the request: a misspelt filter (?limt=5) is a 400, as a misspelt
// body field is, not a silently ignored one.
type StrictQuery struct{ runtime.DefaultQueryParser }

var _ runtime.QueryParameterParser = StrictQuery{}

// Parse implements runtime.QueryParameterParser.
func (q StrictQuery) Parse(msg proto.Message, values url.Values, filter *utilities.DoubleArray) error {
	md := msg.ProtoReflect().Descriptor()
	for key := range values {
		if !fieldPathExists(md, key) {
			// Not a gRPC status: the gateway words what Parse returns with %v.
			return apperr.Invalid("unknown query parameter %q", key)
		}
	}
	if err := q.DefaultQueryParser.Parse(msg, values, filter); err != nil {
		return input.QueryError(md, err)
	}
	// The query fills the request (with the path parameters): the contract's
	// field rules apply to it whole (docs/decisions.md, "Input at the boundary").
	return input.Check(msg)
}

// fieldPathExists resolves a dotted path by JSON or proto field names.
func fieldPathExists(md protoreflect.MessageDescriptor, path string) bool {
	for i, name := range strings.Split(path, ".") {
		if md == nil {
			return false
		}
		fd := md.Fields().ByJSONName(name)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(name))
		}
		if fd == nil {
			return false
		}
		if i < strings.Count(path, ".") {
			md = fd.Message()
		}
	}
	return true
}
