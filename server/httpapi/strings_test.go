package httpapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/render"
)

var trickyStrings = map[string]string{
	"empty":         "",
	"quotes":        `say "hi"`,
	"backslash":     `C:\path\to\file \\ \"`,
	"short escapes": "\b\f\n\r\t",
	"all controls":  "\x00\x01\x02\x03\x04\x05\x06\x07\x0b\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f",
	"del":           "a\x7fb",
	"html":          `<script>alert("x")</script> & <b>`,
	"line seps":     "a\u2028b\u2029c",
	"non-ascii":     "héllo wörld ∑ 中文 🎉 \u00a0",
	"replacement":   "\uFFFD is a valid rune",
	"noncharacter":  "\uFFFE\U0010FFFF",
	"slash":         "a/b</c>",
	"mixed":         "\"\\\n\u2028<é>\x00🎉",
	"long":          strings.Repeat("ab\"c\n", 200),
}

// TestRESTStringEscaping: render.RESTMarshaler writes strings as valid JSON that
// decodes to the same string, byte for byte as protojson does (after
// compacting protojson's randomised whitespace), U+2028/U+2029 included.
func TestRESTStringEscaping(t *testing.T) {
	for name, s := range trickyStrings {
		t.Run(name, func(t *testing.T) {
			msg := &switchboardv1.CheckUsernameResponse{Username: s, Reason: proto.String(s)}
			rest, err := render.RESTMarshaler{}.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(rest) {
				t.Fatalf("invalid JSON: %q", rest)
			}
			var back struct{ Username, Reason string }
			if err := json.Unmarshal(rest, &back); err != nil {
				t.Fatal(err)
			}
			if back.Username != s || back.Reason != s {
				t.Errorf("decoded %q / %q, want %q", back.Username, back.Reason, s)
			}
			pj, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, pj); err != nil {
				t.Fatal(err)
			}
			if got := string(rest); got != compact.String() {
				t.Errorf("differs from protojson\nrest:      %q\nprotojson: %q", rest, compact.String())
			}
			// And back through the REST decoder.
			var m switchboardv1.CheckUsernameResponse
			if err := (render.RESTMarshaler{}).Unmarshal(rest, &m); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(&m, msg) {
				t.Errorf("round trip: got %v", &m)
			}
		})
	}
}

// TestRESTStringEscapingMapKeys: the same for map keys and map values, through
// the bare-map path grpc-gateway uses for response_body and through the
// message path.
func TestRESTStringEscapingMapKeys(t *testing.T) {
	users := map[string]*switchboardv1.ResolvedUser{}
	for name, s := range trickyStrings {
		users[s] = &switchboardv1.ResolvedUser{Id: name, Name: s}
	}
	msg := &switchboardv1.ResolveUsersResponse{Users: users}
	whole, err := render.RESTMarshaler{}.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := render.RESTMarshaler{}.Marshal(msg.GetUsers())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"users":` + string(bare) + `}`; string(whole) != want {
		t.Errorf("bare map and message field render differently:\n%s\n%s", whole, want)
	}
	var back map[string]struct{ ID, Name string }
	if err := json.Unmarshal(bare, &back); err != nil {
		t.Fatalf("%v: %q", err, bare)
	}
	if len(back) != len(trickyStrings) {
		t.Errorf("got %d keys, want %d", len(back), len(trickyStrings))
	}
	for k, v := range back {
		if v.Name != k {
			t.Errorf("key %q holds name %q", k, v.Name)
		}
	}
	pj, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, pj)
	// protojson omits the absent avatar where REST writes null.
	if got := strings.ReplaceAll(string(whole), `"avatar":null,`, ""); got != compact.String() {
		t.Errorf("differs from protojson\nrest:      %s\nprotojson: %s", got, compact.String())
	}
}

// TestRESTInvalidUTF8IsAnError: a string field with invalid UTF-8 cannot be
// rendered as JSON; the marshaler must fail rather than write broken bytes.
func TestRESTInvalidUTF8IsAnError(t *testing.T) {
	bad := []string{"\xff", "ok\xc3", "\xed\xa0\x80" /* UTF-8 encoded surrogate */, "a\xc0\xafb"}
	for _, s := range bad {
		cases := map[string]any{
			"string field":      &switchboardv1.CheckUsernameResponse{Username: s},
			"optional field":    &switchboardv1.CheckUsernameResponse{Reason: proto.String(s)},
			"repeated field":    &switchboardv1.ListKeysResponse{Keys: []*switchboardv1.ApiKey{{Scopes: []string{"ok", s}}}},
			"nested field":      &switchboardv1.LoginResponse{User: &switchboardv1.User{Name: s}},
			"bare map value":    map[string]*switchboardv1.ResolvedUser{"ok": {Name: s}},
			"message map value": &switchboardv1.ResolveUsersResponse{Users: map[string]*switchboardv1.ResolvedUser{"ok": {Name: s}}},
		}
		for name, v := range cases {
			out, err := render.RESTMarshaler{}.Marshal(v)
			if err == nil {
				t.Errorf("%s %q: no error, wrote %q", name, s, out)
			}
		}
	}
}

// TestRESTInvalidUTF8MapKeyIsAnError: a map key is a string too. protojson
// refuses an invalid UTF-8 key; render.RESTMarshaler must not write it raw.
func TestRESTInvalidUTF8MapKeyIsAnError(t *testing.T) {
	users := map[string]*switchboardv1.ResolvedUser{"\xffbad": {Name: "x"}}
	if _, err := protojson.Marshal(&switchboardv1.ResolveUsersResponse{Users: users}); err == nil {
		t.Fatal("protojson accepted an invalid UTF-8 map key")
	}
	for name, v := range map[string]any{
		"message map key": &switchboardv1.ResolveUsersResponse{Users: users},
		"bare map key":    users,
	} {
		out, err := render.RESTMarshaler{}.Marshal(v)
		if err == nil {
			t.Errorf("%s: no error, wrote raw invalid UTF-8 (utf8.Valid=%v): %q", name, utf8.Valid(out), out)
		}
	}
}
