package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/federation/guard"
)

// Issue 31: a binary protobuf body of the contract's procedures reads in
// the audit preview as its message's JSON, redacted like any JSON body, in
// each wire that carries one; what cannot be read keeps the text preview.
func TestPreviewDecodesProtobuf(t *testing.T) {
	const register = "/switchboard.v1.FederationHubService/RegisterInstance"
	req, err := proto.Marshal(&switchboardv1.RegisterInstanceRequest{Name: "Spoke A", BaseUrl: "https://spoke.example",
		ApiKey: "sbi_" + strings.Repeat("k", 40), UserCount: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := proto.Marshal(&switchboardv1.RegisterInstanceResponse{InstanceId: "inst_1", PlatformToken: "sbp_" + strings.Repeat("t", 40)})
	if err != nil {
		t.Fatal(err)
	}
	envelope := func(flags byte, msg []byte) []byte {
		b := make([]byte, 5, 5+len(msg))
		b[0] = flags
		binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
		return append(b, msg...)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(req)
	_ = zw.Close()
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	const wantReq = `{"name":"Spoke A","baseUrl":"https://spoke.example","apiKey":"[redacted]","userCount":3}`
	for _, tc := range []struct {
		name    string
		path    string
		hdr     http.Header
		body    []byte
		request bool
		want    string
	}{
		{"Connect unary request", register, hdr("Content-Type", "application/proto"), req, true, wantReq},
		{"Connect unary answer", register, hdr("Content-Type", "application/proto"), res, false,
			`{"instanceId":"inst_1","platformToken":"[redacted]"}`},
		{"under a base path", "/base" + register, hdr("Content-Type", "application/proto"), req, true, wantReq},
		{"gzip", register, hdr("Content-Type", "application/proto", "Content-Encoding", "gzip"), zipped.Bytes(), true, wantReq},
		{"gRPC frame", register, hdr("Content-Type", "application/grpc"), envelope(0, req), true, wantReq},
		{"compressed gRPC frame", register, hdr("Content-Type", "application/grpc+proto", "Grpc-Encoding", "gzip"),
			envelope(1, zipped.Bytes()), true, wantReq},
		// A capture cut inside the apiKey keeps the whole fields before it.
		{"cut short", register, hdr("Content-Type", "application/proto"), req[:len(req)-10], true,
			`{"name":"Spoke A","baseUrl":"https://spoke.example"}`},
	} {
		if got := preview(tc.path, tc.hdr, tc.body, tc.request, guard.Verdict{}); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// Not a procedure of the contract, or not protobuf: the text preview.
	for _, tc := range []struct {
		name string
		path string
		ct   string
	}{
		{"unknown service", "/other.v1.Service/Method", "application/proto"},
		{"unknown method", "/switchboard.v1.FederationHubService/Nope", "application/proto"},
		{"JSON", register, "application/json"},
	} {
		if got, text := preview(tc.path, hdr("Content-Type", tc.ct), req, true, guard.Verdict{}), guard.Preview(req, guard.Verdict{}); got != text {
			t.Errorf("%s: %q, want the text preview %q", tc.name, got, text)
		}
	}
}
