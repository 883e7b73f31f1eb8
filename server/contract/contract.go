// Package contract reads the published contract's own declarations (the access
// rule, REST status and HTTP bindings of every RPC) from the proto descriptors,
// so the authorizer, the gateway and the OpenAPI step share one table that
// cannot drift from the .proto files.
package contract

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Package is the proto package of the published contract.
const Package = "switchboard.v1"

// Binding is one REST route of a procedure.
type Binding struct {
	Method   string // HTTP method
	Template string // path template as written in the proto, e.g. /api/v2/keys/{id}
	// Body is the rule's body: "" (none), "*" (the whole request) or the
	// request field the body is decoded into.
	Body string
	// ResponseBody names the output field the REST answer is, when not the whole message.
	ResponseBody string
}

// Procedure is one RPC as the contract declares it.
type Procedure struct {
	// Name is the Connect procedure, "/switchboard.v1.SettingsService/GetSettings".
	Name       string
	Descriptor protoreflect.MethodDescriptor
	Rule       *switchboardv1.AccessRule
	Public     bool
	AcceptKey  bool
	AcceptSess bool
	// Scope is the area's key scope; Scopes is it and the rule's
	// also_scopes, any one of which admits a key.
	Scope      string
	Scopes     []string
	RateClass  string
	RESTStatus int
	// CreatedField is the response's bool field that makes a REST answer
	// 201 when true and 200 when false (rest_created_field); nil when the
	// status does not depend on the outcome.
	CreatedField protoreflect.FieldDescriptor
	Bindings     []Binding
	// Idempotency is how the procedure treats the Idempotency-Key header;
	// IdempotencyNote says why when it refuses it.
	Idempotency     Idempotency
	IdempotencyNote string
}

// KeyRule is the access rule of a door that is not an RPC of the contract
// (MCP, A2A): an API key with scope, in rate class (none when empty).
func KeyRule(name, scope, rateClass string) *Procedure {
	return &Procedure{Name: name, AcceptKey: true, Scope: scope, Scopes: []string{scope}, RateClass: rateClass}
}

// Table is every procedure of the contract, by name and by REST route.
type Table struct {
	ordered []*Procedure // files by path, then declaration order
	byName  map[string]*Procedure
	byRoute map[string]*Procedure
}

// Load builds the table from the registered descriptors. It fails when an RPC
// carries no access rule, so a forgotten rule is a start-up error, not an open door.
func Load() (*Table, error) { return LoadFrom(protoregistry.GlobalFiles) }

// LoadFrom builds the table from the switchboard.v1 files of a registry.
func LoadFrom(files *protoregistry.Files) (*Table, error) {
	t := &Table{byName: map[string]*Procedure{}, byRoute: map[string]*Procedure{}}
	for _, fd := range PackageFiles(files) {
		services := fd.Services()
		for i := range services.Len() {
			methods := services.Get(i).Methods()
			for j := range methods.Len() {
				if err := t.add(methods.Get(j)); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(t.byName) == 0 {
		return nil, fmt.Errorf("contract: no services registered for %s", Package)
	}
	return t, nil
}

// PackageFiles lists the contract's files in a registry, ordered by path.
func PackageFiles(files *protoregistry.Files) []protoreflect.FileDescriptor {
	var fds []protoreflect.FileDescriptor
	files.RangeFilesByPackage(Package, func(fd protoreflect.FileDescriptor) bool {
		fds = append(fds, fd)
		return true
	})
	slices.SortFunc(fds, func(a, b protoreflect.FileDescriptor) int { return strings.Compare(a.Path(), b.Path()) })
	return fds
}

// MustLoad is Load for program start-up and tests.
func MustLoad() *Table {
	t, err := Load()
	if err != nil {
		panic(err)
	}
	return t
}

func (t *Table) add(md protoreflect.MethodDescriptor) error {
	name := fmt.Sprintf("/%s/%s", md.Parent().FullName(), md.Name())
	opts := md.Options()
	rule, _ := proto.GetExtension(opts, switchboardv1.E_Access).(*switchboardv1.AccessRule)
	if rule == nil {
		return fmt.Errorf("contract: %s has no (switchboard.v1.access) rule", name)
	}
	p := &Procedure{
		Name:       name,
		Descriptor: md,
		Rule:       rule,
		Public:     rule.GetPublic(),
		Scope:      rule.GetScope(),
		Scopes:     scopes(rule),
		RateClass:  rule.GetRateClass(),
		RESTStatus: int(proto.GetExtension(opts, switchboardv1.E_RestStatus).(int32)),
	}
	for _, c := range rule.GetCredentials() {
		switch c {
		case switchboardv1.Credential_CREDENTIAL_KEY:
			p.AcceptKey = true
		case switchboardv1.Credential_CREDENTIAL_SESSION:
			p.AcceptSess = true
		case switchboardv1.Credential_CREDENTIAL_UNSPECIFIED:
			return fmt.Errorf("contract: %s names an unspecified credential", name)
		default:
			// The gate checks keys and sessions only; a rule naming another
			// credential is public, and the procedure checks it.
			if !p.Public {
				return fmt.Errorf("contract: %s names %v, which its procedure checks: the rule must be public", name, c)
			}
		}
	}
	if rule.GetCredentialsOptional() && (!p.Public || len(rule.GetCredentials()) == 0) {
		return fmt.Errorf("contract: %s: credentials_optional needs a public rule that names credentials", name)
	}
	if !p.Public && !p.AcceptKey && !p.AcceptSess {
		return fmt.Errorf("contract: %s accepts no credential and is not public", name)
	}
	if p.AcceptKey && p.Scope == "" {
		return fmt.Errorf("contract: %s accepts keys but names no scope", name)
	}
	if !p.AcceptKey && len(p.Scopes) > 0 {
		return fmt.Errorf("contract: %s names scopes but accepts no key", name)
	}
	if p.RESTStatus == 0 {
		p.RESTStatus = http.StatusOK
	}
	if p.RESTStatus < 200 || p.RESTStatus > 299 {
		return fmt.Errorf("contract: %s: rest_status %d is not a success status", name, p.RESTStatus)
	}
	if f := proto.GetExtension(opts, switchboardv1.E_RestCreatedField).(string); f != "" {
		fd := md.Output().Fields().ByName(protoreflect.Name(f))
		if fd == nil || fd.Kind() != protoreflect.BoolKind || fd.Cardinality() == protoreflect.Repeated {
			return fmt.Errorf("contract: %s: rest_created_field %q is not a bool field of %s", name, f, md.Output().FullName())
		}
		if p.RESTStatus != http.StatusOK {
			return fmt.Errorf("contract: %s: rest_created_field and rest_status exclude each other", name)
		}
		p.CreatedField = fd
	}
	if hr, ok := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule); ok && hr != nil {
		for _, r := range append([]*annotations.HttpRule{hr}, hr.GetAdditionalBindings()...) {
			b, err := binding(r)
			if err != nil {
				return fmt.Errorf("contract: %s: %w", name, err)
			}
			if b.ResponseBody != "" && md.Output().Fields().ByName(protoreflect.Name(b.ResponseBody)) == nil {
				return fmt.Errorf("contract: %s: response_body %q is not a field of %s", name, b.ResponseBody, md.Output().FullName())
			}
			p.Bindings = append(p.Bindings, b)
			t.byRoute[routeKey(b.Method, GatewayPattern(b.Template))] = p
		}
	}
	p.Idempotency, p.IdempotencyNote = idempotency(p)
	t.byName[name] = p
	t.ordered = append(t.ordered, p)
	return nil
}

// scopes lists the key scopes that admit a key: the rule's scope, then its
// also_scopes; none when it names no scope.
func scopes(rule *switchboardv1.AccessRule) []string {
	if rule.GetScope() == "" && len(rule.GetAlsoScopes()) == 0 {
		return nil
	}
	out := []string{rule.GetScope()}
	for _, s := range rule.GetAlsoScopes() {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func binding(r *annotations.HttpRule) (Binding, error) {
	b := Binding{Body: r.GetBody(), ResponseBody: r.GetResponseBody()}
	switch {
	case r.GetGet() != "":
		b.Method, b.Template = http.MethodGet, r.GetGet()
	case r.GetPost() != "":
		b.Method, b.Template = http.MethodPost, r.GetPost()
	case r.GetPut() != "":
		b.Method, b.Template = http.MethodPut, r.GetPut()
	case r.GetPatch() != "":
		b.Method, b.Template = http.MethodPatch, r.GetPatch()
	case r.GetDelete() != "":
		b.Method, b.Template = http.MethodDelete, r.GetDelete()
	default:
		return Binding{}, fmt.Errorf("unsupported HTTP rule %v", r)
	}
	return b, nil
}

var plainVariable = regexp.MustCompile(`\{([A-Za-z0-9_.]+)\}`)

// GatewayPattern writes a template the way grpc-gateway's runtime.Pattern prints
// itself, where a bare {id} is {id=*}.
func GatewayPattern(template string) string {
	return plainVariable.ReplaceAllString(template, "{$1=*}")
}

func routeKey(method, pattern string) string { return method + " " + pattern }

// ByName finds a procedure by its Connect name.
func (t *Table) ByName(name string) (*Procedure, bool) {
	p, ok := t.byName[name]
	return p, ok
}

// ByRoute finds the procedure behind a matched gateway route.
func (t *Table) ByRoute(method, pattern string) (*Procedure, bool) {
	p, ok := t.byRoute[routeKey(method, pattern)]
	return p, ok
}

// All lists every procedure in a stable order: files by path, then as declared.
func (t *Table) All() []*Procedure { return t.ordered }

// IsREST reports whether a path belongs to the REST surface rather than Connect.
func IsREST(path string) bool { return strings.HasPrefix(path, "/api/") }
