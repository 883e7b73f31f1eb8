package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"net/http"
	"path"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// The contract's messages, registered for protobufJSON to find by name.
	_ "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/federation/guard"
)

// protoCapture is how much of a binary protobuf body is kept for its
// preview: a message must be whole to be decoded, and its JSON is longer
// than its bytes, so more than captureLimit.
const protoCapture = 64 << 10

// preview is the audit preview of a body sent to or answered by procedure
// path p with header hdr: a binary protobuf message of the contract shown as
// its JSON (issue 31: the admin reads fields, not bytes), anything else as
// guard.Preview shows it. v is the guard's verdict of a request body (the
// zero Verdict for answers and our own requests); a decoded body is judged
// again as JSON for the preview's masking alone.
func preview(p string, hdr http.Header, body []byte, request bool, v guard.Verdict) string {
	if js, ok := protobufJSON(p, hdr, body, request); ok {
		return guard.Preview(js, guard.Inspect(js, "application/json"))
	}
	if strings.EqualFold(hdr.Get("Content-Encoding"), "gzip") {
		// The REST layer gzips its answers: the preview reads them inflated,
		// judged again so that its masking addresses the inflated text.
		body, _ = inflate(body)
		v = guard.Inspect(body, hdr.Get("Content-Type"))
	}
	return guard.Preview(body, v)
}

// captureFor is how much of a body of content type ct a preview keeps.
func captureFor(ct string) int64 {
	if isProtobuf(ct) {
		return protoCapture
	}
	return captureLimit
}

// isProtobuf: the binary codecs of Connect, gRPC and gRPC-Web.
func isProtobuf(contentType string) bool {
	ct, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	switch strings.TrimSpace(ct) {
	case "application/proto", "application/x-protobuf", "application/protobuf",
		"application/connect+proto", "application/grpc", "application/grpc+proto",
		"application/grpc-web", "application/grpc-web+proto":
		return true
	}
	return false
}

// protobufJSON decodes body, a binary protobuf body of the procedure at p
// (".../switchboard.v1.Service/Method"), as its input (request) or output
// message and answers it as JSON. A body cut short by the capture keeps its
// whole leading fields. ok is false for anything it cannot read.
func protobufJSON(p string, hdr http.Header, body []byte, request bool) ([]byte, bool) {
	ct := hdr.Get("Content-Type")
	if !isProtobuf(ct) || len(body) == 0 {
		return nil, false
	}
	md, ok := method(p)
	if !ok {
		return nil, false
	}
	desc := md.Output()
	if request {
		desc = md.Input()
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(desc.FullName())
	if err != nil {
		return nil, false
	}
	msg, ok := unwrap(ct, hdr, body)
	if !ok {
		return nil, false
	}
	m := mt.New().Interface()
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(wholeFields(msg), m); err != nil {
		return nil, false
	}
	js, err := protojson.MarshalOptions{}.Marshal(m)
	if err != nil {
		return nil, false
	}
	return js, true
}

// method finds the procedure whose path ends p: "/pkg.Service/Method".
func method(p string) (protoreflect.MethodDescriptor, bool) {
	service, name := path.Base(path.Dir(p)), path.Base(p)
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return nil, false
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, false
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	return md, md != nil
}

// unwrap is the message bytes of a body: a unary Connect body as it is
// (inflated when Content-Encoding says gzip), an enveloped one (streaming
// Connect, gRPC, gRPC-Web) its first frame's.
func unwrap(ct string, hdr http.Header, body []byte) ([]byte, bool) {
	ct = strings.ToLower(ct)
	if !strings.HasPrefix(ct, "application/connect+") && !strings.HasPrefix(ct, "application/grpc") {
		if strings.EqualFold(hdr.Get("Content-Encoding"), "gzip") {
			return inflate(body)
		}
		return body, true
	}
	if len(body) < 5 {
		return nil, false
	}
	flags, size := body[0], binary.BigEndian.Uint32(body[1:5])
	msg := body[5:]
	if uint64(len(msg)) > uint64(size) {
		msg = msg[:size]
	}
	if flags&1 == 0 {
		return msg, true
	}
	enc := hdr.Get("Connect-Content-Encoding")
	if enc == "" {
		enc = hdr.Get("Grpc-Encoding")
	}
	if !strings.EqualFold(enc, "gzip") {
		return nil, false
	}
	return inflate(msg)
}

// inflate reads as much of a gzip stream as it holds (a captured prefix
// ends early: what it gave is kept).
func inflate(b []byte) ([]byte, bool) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	out, _ := io.ReadAll(io.LimitReader(zr, guard.MaxBody))
	return out, len(out) > 0
}

// wholeFields is b up to the end of its last whole top-level field: a
// capture cut inside a field would fail the whole decoding.
func wholeFields(b []byte) []byte {
	end := 0
	for end < len(b) {
		_, _, n := protowire.ConsumeField(b[end:])
		if n < 0 {
			break
		}
		end += n
	}
	return b[:end]
}
