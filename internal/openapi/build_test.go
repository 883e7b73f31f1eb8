package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// gnosticYAML is the document protoc-gen-openapi generated from proto/.
var gnosticYAML = filepath.Join("..", "..", "gen", "openapi", "openapi.yaml")

var built = sync.OnceValues(func() ([]byte, error) {
	src, err := os.ReadFile(gnosticYAML)
	if err != nil {
		return nil, err
	}
	return Build(src)
})

// document answers the built document decoded into plain maps and slices.
func document(t *testing.T) map[string]any {
	t.Helper()
	out, err := built()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return doc
}

// at walks keys down a decoded document; it answers nil when a key is missing.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// operation finds the operation of a method by its full name's short form,
// such as "KeyService_ListKeys", answering its path too.
func operation(t *testing.T, doc map[string]any, id string) (string, map[string]any) {
	t.Helper()
	for path, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok && o["operationId"] == id {
				return path, o
			}
		}
	}
	t.Fatalf("no operation %s", id)
	return "", nil
}

// resolve follows a $ref into the document, once.
func resolve(doc map[string]any, v any) any {
	ref, ok := at(v, "$ref").(string)
	if !ok {
		return v
	}
	return at(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
}

func TestBuildIsDeterministic(t *testing.T) {
	src, err := os.ReadFile(gnosticYAML)
	if err != nil {
		t.Fatal(err)
	}
	first, err := Build(src)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := Build(src)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("two builds of the same input differ")
		}
	}
}

// TestEveryBindingIsListed walks the descriptors on its own, so that a binding
// the builder or gnostic drops is caught.
func TestEveryBindingIsListed(t *testing.T) {
	doc := document(t)
	param := regexp.MustCompile(`{([^}]*)}`)
	var n int
	protoregistry.GlobalFiles.RangeFilesByPackage("switchboard.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			methods := fd.Services().Get(i).Methods()
			for j := 0; j < methods.Len(); j++ {
				md := methods.Get(j)
				rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
				if rule == nil || rule.GetPattern() == nil {
					continue
				}
				for _, r := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
					method, tmpl := httpPattern(t, r)
					path := param.ReplaceAllStringFunc(tmpl, func(m string) string {
						f := md.Input().Fields().ByName(protoreflect.Name(m[1 : len(m)-1]))
						if f == nil {
							t.Fatalf("%s: path %s names no field", md.FullName(), tmpl)
						}
						return "{" + f.JSONName() + "}"
					})
					n++
					if at(doc, "paths", path, method) == nil {
						t.Errorf("%s: %s %s is not in the document", md.FullName(), strings.ToUpper(method), path)
					}
				}
			}
		}
		return true
	})
	if n == 0 {
		t.Fatal("found no HTTP bindings at all")
	}
}

func httpPattern(t *testing.T, r *annotations.HttpRule) (string, string) {
	t.Helper()
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "get", p.Get
	case *annotations.HttpRule_Put:
		return "put", p.Put
	case *annotations.HttpRule_Post:
		return "post", p.Post
	case *annotations.HttpRule_Delete:
		return "delete", p.Delete
	case *annotations.HttpRule_Patch:
		return "patch", p.Patch
	}
	t.Fatalf("unexpected HTTP pattern %T", r.GetPattern())
	return "", ""
}

func TestOperationIDsAreUnique(t *testing.T) {
	doc := document(t)
	seen := map[string]string{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			id, _ := at(op, "operationId").(string)
			if id == "" {
				t.Errorf("%s %s has no operationId", method, path)
				continue
			}
			if other, dup := seen[id]; dup {
				t.Errorf("operationId %s used by %s and %s %s", id, other, method, path)
			}
			seen[id] = method + " " + path
		}
	}
}

func TestNullable(t *testing.T) {
	doc := document(t)
	tests := []struct {
		schema, prop string
		want         bool
	}{
		{"GetSettingsResponse", "assistantName", true}, // optional string
		{"GetSettingsResponse", "mode", false},
		{"GetSettingsResponse", "onboardingPhase", false},
		{"UpdateSettingsResponse", "queueAutoApprove", false}, // rest_omit_absent: omitted, not null
		{"UpdateSettingsResponse", "mode", false},
		{"UpdateSettingsRequest", "queueAutoApprove", true}, // request messages follow the same rule
		{"ApiKey", "lastUsedAt", true},                      // optional Timestamp
		{"ApiKey", "expiresAt", true},
		{"ApiKey", "createdAt", false}, // a plain message field is always set
		{"ApiKey", "scopes", false},    // arrays are [] unless rest_null_when_empty
		{"User", "avatar", true},
		{"CheckUsernameResponse", "reason", true},
		{"CreateKeyResponse", "key", false},
	}
	for _, tt := range tests {
		t.Run(tt.schema+"."+tt.prop, func(t *testing.T) {
			p := at(doc, "components", "schemas", tt.schema, "properties", tt.prop)
			if p == nil {
				t.Fatal("no such property")
			}
			if got := at(p, "nullable") == true; got != tt.want {
				t.Errorf("nullable = %v, want %v (%v)", got, tt.want, p)
			}
		})
	}
	// An optional Timestamp is an inline string, so nullable sits beside its type.
	if got := at(doc, "components", "schemas", "ApiKey", "properties", "lastUsedAt", "type"); got != "string" {
		t.Errorf("ApiKey.lastUsedAt type = %v, want string", got)
	}
	// A non-optional message field stays a bare $ref.
	if got := at(doc, "components", "schemas", "CreateKeyResponse", "properties", "key", "$ref"); got != "#/components/schemas/ApiKey" {
		t.Errorf("CreateKeyResponse.key = %v, want a bare $ref", got)
	}
}

// Query parameters marked (switchboard.v1.required) are required; others not.
func TestRequiredQueryParameters(t *testing.T) {
	doc := document(t)
	for _, tt := range []struct {
		path, param string
		want        bool
	}{
		{"/api/username/check", "username", true},
		{"/api/users/resolve", "usernames", true},
		{"/api/v2/updates", "limit", false},
		{"/api/v2/updates", "tag", false},
	} {
		params, _ := at(doc, "paths", tt.path, "get", "parameters").([]any)
		found := false
		for _, p := range params {
			m := p.(map[string]any)
			if m["name"] == tt.param {
				found = true
				if got := m["required"] == true; got != tt.want {
					t.Errorf("%s ?%s required = %v, want %v", tt.path, tt.param, got, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s has no parameter %s", tt.path, tt.param)
		}
	}
}

func TestRequired(t *testing.T) {
	doc := document(t)
	tests := []struct {
		schema string
		want   []string // nil: no required list
	}{
		{"GetSettingsResponse", []string{"mode", "queueAutoApprove", "assistantName", "goalsEnabled", "onboardingComplete", "onboardingPhase", "serviceKeys", "profileVisibility", "bio", "timezone", "hiddenBoardColumns"}},
		{"ApiKey", []string{"id", "label", "scopes", "prefix", "createdAt", "lastUsedAt", "expiresAt", "active"}},
		{"ResolvedUser", []string{"id", "name", "username", "avatar", "type"}}, // reached through a map value
		{"User", []string{"id", "username", "email", "name", "role", "avatar", "createdAt"}},
		{"UpdateSettingsResponse", nil},         // rest_omit_absent: optionals and lists only when applied
		{"CreateKeyRequest", []string{"label"}}, // request: only what (switchboard.v1.required) marks
		{"UpdateSettingsRequest", nil},
		{"LoginRequest", []string{"password"}},
		{"SetupRequest", []string{"username", "email", "password", "name", "acceptedTerms"}},
		// The developer portal (issue 31): the account as RULINGS gives it,
		// and the requests' marked fields only.
		{"DeveloperAccount", []string{"id", "username", "name", "contactEmail", "createdAt"}},
		{"DeleteDeveloperAccountRequest", []string{"confirm"}},
		{"UpdateDeveloperAccountRequest", nil},
		{"AddDeveloperTeamMemberRequest", []string{"email"}},
		{"CreateWidgetTemplateRequest", []string{"name", "widget"}},
		{"WidgetTemplate", []string{"id", "name", "widget", "createdAt", "updatedAt"}},
		{"GetDeveloperBillingResponse", []string{"earningsCents", "feesCents", "payoutsCents", "currency", "ledger", "pagination", "currencies"}},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			s := at(doc, "components", "schemas", tt.schema)
			if s == nil {
				t.Fatal("no such schema")
			}
			var got []string
			if r, ok := at(s, "required").([]any); ok {
				for _, v := range r {
					got = append(got, v.(string))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("required = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSuccessStatus(t *testing.T) {
	doc := document(t)
	tests := []struct{ op, want string }{
		{"KeyService_CreateKey", "201"},
		{"AccountService_Setup", "201"},
		{"AccountService_Signup", "201"},
		{"KeyService_ListKeys", "200"},
		{"SettingsService_UpdateSettings2", "200"},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			_, op := operation(t, doc, tt.op)
			var got []string
			for status := range at(op, "responses").(map[string]any) {
				if strings.HasPrefix(status, "2") {
					got = append(got, status)
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("success statuses = %v, want [%s]", got, tt.want)
			}
			if at(op, "responses", tt.want, "content", "application/json", "schema") == nil {
				t.Errorf("success %s has no JSON schema", tt.want)
			}
		})
	}
}

func TestResponseBodyIsTheField(t *testing.T) {
	doc := document(t)
	_, op := operation(t, doc, "AccountService_ResolveUsers")
	schema := at(op, "responses", "200", "content", "application/json", "schema")
	if got := at(schema, "type"); got != "object" {
		t.Errorf("type = %v, want object", got)
	}
	if got := at(schema, "additionalProperties", "$ref"); got != "#/components/schemas/ResolvedUser" {
		t.Errorf("additionalProperties = %v, want a ResolvedUser $ref", got)
	}
	if at(schema, "properties") != nil || at(schema, "$ref") != nil {
		t.Errorf("schema still describes the wrapping message: %v", schema)
	}
	if at(doc, "components", "schemas", "ResolveUsersResponse") != nil {
		t.Error("the unused wrapper schema ResolveUsersResponse is still listed")
	}
}

func TestSecurity(t *testing.T) {
	doc := document(t)
	tests := []struct {
		op   string
		want []string // one scheme per alternative; empty: public
	}{
		{"UpdateService_ListUpdates", []string{}},
		{"KeyService_ListKeys", []string{"sessionCookie"}},
		{"AccountService_Logout", []string{"sessionCookie"}},
		{"SettingsService_GetSettings", []string{"bearerAuth", "sessionCookie"}},
		{"SettingsService_UpdateSettings2", []string{"bearerAuth", "sessionCookie"}},
		{"AccountService_Login", []string{}},
		{"Meta_GetDocs", []string{}},
		{"Meta_Healthz", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			_, op := operation(t, doc, tt.op)
			sec, ok := op["security"].([]any)
			if !ok {
				t.Fatalf("security = %v, want a list", op["security"])
			}
			got := []string{}
			for _, alt := range sec {
				m := alt.(map[string]any)
				if len(m) != 1 {
					t.Errorf("alternative %v should name one scheme", m)
				}
				for k := range m {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("security = %v, want %v", got, tt.want)
			}
		})
	}
	for _, name := range []string{"bearerAuth", "sessionCookie"} {
		if at(doc, "components", "securitySchemes", name) == nil {
			t.Errorf("security scheme %s is not defined", name)
		}
	}
	if got := at(doc, "components", "securitySchemes", "sessionCookie", "name"); got != "sb_session" {
		t.Errorf("cookie name = %v, want sb_session", got)
	}
}

func TestErrorResponses(t *testing.T) {
	doc := document(t)
	tests := []struct {
		op   string
		want []string
	}{
		// public, no path parameter
		{"UpdateService_ListUpdates", []string{"200", "400", "429", "500", "default"}},
		{"AccountService_CheckUsername", []string{"200", "400", "429", "500", "default"}},
		// credentials needed
		{"KeyService_ListKeys", []string{"200", "400", "401", "403", "404", "429", "500", "default"}},
		{"KeyService_CreateKey", []string{"201", "400", "401", "403", "404", "429", "500", "default"}},
		{"KeyService_DeleteKey", []string{"200", "400", "401", "403", "404", "429", "500", "default"}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			_, op := operation(t, doc, tt.op)
			var got []string
			for status, resp := range at(op, "responses").(map[string]any) {
				got = append(got, status)
				if status[0] == '2' {
					continue
				}
				r := resolve(doc, resp)
				if ref := at(r, "content", "application/json", "schema", "$ref"); ref != "#/components/schemas/Error" {
					t.Errorf("%s body = %v, want the Error schema", status, ref)
				}
				_, retry := at(r, "headers", "Retry-After").(map[string]any)
				if retry != (status == "429") {
					t.Errorf("%s: Retry-After declared = %v", status, retry)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("responses = %v, want %v", got, tt.want)
			}
		})
	}
	errSchema := at(doc, "components", "schemas", "Error")
	if got := at(errSchema, "required"); !slices.Equal(toStrings(got), []string{"success", "error"}) {
		t.Errorf("Error.required = %v", got)
	}
	// The extras are those of the ErrorInfo Connect detail.
	fields := (&switchboardv1.ErrorInfo{}).ProtoReflect().Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		if at(errSchema, "properties", fields.Get(i).JSONName()) == nil {
			t.Errorf("Error lacks %s", fields.Get(i).JSONName())
		}
	}
}

func toStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func TestRateLimitHeaders(t *testing.T) {
	doc := document(t)
	headers := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
	var checked int
	for path, item := range doc["paths"].(map[string]any) {
		limited := strings.HasPrefix(path, "/api/v2/")
		for method, op := range item.(map[string]any) {
			for status, resp := range at(op, "responses").(map[string]any) {
				h, _ := at(resolve(doc, resp), "headers").(map[string]any)
				for _, name := range headers {
					if _, ok := h[name]; ok != limited {
						t.Errorf("%s %s %s: header %s declared = %v, want %v", method, path, status, name, ok, limited)
					}
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no responses checked")
	}
}

func TestExtraPaths(t *testing.T) {
	doc := document(t)
	if got := at(doc, "paths", "/healthz", "get", "responses", "200", "content", "text/plain", "schema", "type"); got != "string" {
		t.Errorf("/healthz 200 text/plain schema type = %v", got)
	}
	if got := at(doc, "paths", "/api/v2/docs", "get", "responses", "200", "content", "application/json", "schema", "type"); got != "object" {
		t.Errorf("/api/v2/docs 200 schema type = %v", got)
	}
	if servers, _ := doc["servers"].([]any); len(servers) == 0 {
		t.Error("no servers")
	}
	if d, _ := at(doc, "info", "description").(string); d == "" {
		t.Error("no info.description")
	}
}

// A nullable reference admits null and the referenced object, in a form
// redocly's rules and Prism's validator both accept.
func TestNullableWrapsReferences(t *testing.T) {
	schemas := obj("Thing", obj("type", "object"), "Loose", obj("description", "no type"))
	tests := []struct {
		name string
		in   *object
		want string
	}{
		{"scalar", obj("type", "string", "description", "d"),
			`{"type":"string","description":"d","nullable":true}`},
		{"array", obj("type", "array", "items", obj("type", "string")),
			`{"type":"array","items":{"type":"string"},"nullable":true}`},
		{"reference", obj("$ref", "#/components/schemas/Thing"),
			`{"anyOf":[{"$ref":"#/components/schemas/Thing"},{"type":"object","nullable":true,"enum":[null]}]}`},
		{"reference with description", obj("$ref", "#/components/schemas/Thing", "description", "d"),
			`{"description":"d","anyOf":[{"$ref":"#/components/schemas/Thing"},{"type":"object","nullable":true,"enum":[null]}]}`},
		// gnostic's form of a reference with a comment.
		{"wrapped reference", obj("allOf", []any{obj("$ref", "#/components/schemas/Thing")}, "description", "d"),
			`{"description":"d","anyOf":[{"$ref":"#/components/schemas/Thing"},{"type":"object","nullable":true,"enum":[null]}]}`},
		{"reference to an untyped schema", obj("$ref", "#/components/schemas/Loose"),
			`{"anyOf":[{"$ref":"#/components/schemas/Loose"},{"type":"object","nullable":true,"enum":[null]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := compactJSON(t, tt.in)
			if got := compactJSON(t, nullable(tt.in, schemas)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if after := compactJSON(t, tt.in); after != before {
				t.Errorf("input changed from %s to %s", before, after)
			}
		})
	}
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := marshalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestBuildRefusesBadInput(t *testing.T) {
	src, err := os.ReadFile(gnosticYAML)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, input, wantErr string
	}{
		{"not yaml", "openapi: [", "parse yaml"},
		{"swagger 2", "swagger: '2.0'\npaths: {}\n", "OpenAPI 3.0"},
		{"operation missing", strings.Replace(string(src), "    /api/v2/keys/{id}:\n", "    /api/v2/gone/{id}:\n", 1), "not in the gnostic document"},
		{"property missing", strings.Replace(string(src), "                lastUsedAt:\n", "                lastSeenAt:\n", 1), "no property lastUsedAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.input == string(src) {
				t.Fatal("the test input was not changed")
			}
			_, err := Build([]byte(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestHumanize(t *testing.T) {
	tests := map[string]string{
		"ListKeys":       "List keys",
		"Login":          "Login",
		"CheckUsername":  "Check username",
		"GetMCPServer":   "Get MCP server",
		"SendA2AMessage": "Send A2A message",
	}
	for in, want := range tests {
		if got := humanize(in); got != want {
			t.Errorf("humanize(%q) = %q, want %q", in, got, want)
		}
	}
}
