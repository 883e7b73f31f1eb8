// Package contract reads the published contract's own declarations (the access
// rule, REST status and HTTP bindings of every RPC) from the proto descriptors,
// so the authorizer, the gateway and the OpenAPI step share one table that
// cannot drift from the .proto files.
package contract

import (
	"fmt"
	"net/http"
	"regexp"
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
}

// Procedure is one RPC as the contract declares it.
type Procedure struct {
	// Name is the Connect procedure, "/switchboard.v1.SettingsService/GetSettings".
	Name       string
	Descriptor protoreflect.MethodDescriptor
	Public     bool
	AcceptKey  bool
	AcceptSess bool
	Scope      string
	RateClass  string
	RESTStatus int
	Bindings   []Binding
}

// Table is every procedure of the contract, by name and by REST route.
type Table struct {
	byName  map[string]*Procedure
	byRoute map[string]*Procedure
}

// Load builds the table from the registered descriptors. It fails when an RPC
// carries no access rule, so a forgotten rule is a start-up error, not an open door.
func Load() (*Table, error) {
	t := &Table{byName: map[string]*Procedure{}, byRoute: map[string]*Procedure{}}
	var err error
	protoregistry.GlobalFiles.RangeFilesByPackage(Package, func(fd protoreflect.FileDescriptor) bool {
		services := fd.Services()
		for i := range services.Len() {
			methods := services.Get(i).Methods()
			for j := range methods.Len() {
				if err = t.add(methods.Get(j)); err != nil {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(t.byName) == 0 {
		return nil, fmt.Errorf("contract: no services registered for %s", Package)
	}
	return t, nil
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
		Public:     rule.GetPublic(),
		Scope:      rule.GetScope(),
		RateClass:  rule.GetRateClass(),
		RESTStatus: int(proto.GetExtension(opts, switchboardv1.E_RestStatus).(int32)),
	}
	for _, c := range rule.GetCredentials() {
		switch c {
		case switchboardv1.Credential_CREDENTIAL_KEY:
			p.AcceptKey = true
		case switchboardv1.Credential_CREDENTIAL_SESSION:
			p.AcceptSess = true
		}
	}
	if !p.Public && !p.AcceptKey && !p.AcceptSess {
		return fmt.Errorf("contract: %s accepts no credential and is not public", name)
	}
	if p.AcceptKey && p.Scope == "" {
		return fmt.Errorf("contract: %s accepts keys but names no scope", name)
	}
	if p.RESTStatus == 0 {
		p.RESTStatus = http.StatusOK
	}
	if hr, ok := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule); ok && hr != nil {
		for _, r := range append([]*annotations.HttpRule{hr}, hr.GetAdditionalBindings()...) {
			b, err := binding(r)
			if err != nil {
				return fmt.Errorf("contract: %s: %w", name, err)
			}
			p.Bindings = append(p.Bindings, b)
			t.byRoute[routeKey(b.Method, GatewayPattern(b.Template))] = p
		}
	}
	t.byName[name] = p
	return nil
}

func binding(r *annotations.HttpRule) (Binding, error) {
	switch {
	case r.GetGet() != "":
		return Binding{http.MethodGet, r.GetGet()}, nil
	case r.GetPost() != "":
		return Binding{http.MethodPost, r.GetPost()}, nil
	case r.GetPut() != "":
		return Binding{http.MethodPut, r.GetPut()}, nil
	case r.GetPatch() != "":
		return Binding{http.MethodPatch, r.GetPatch()}, nil
	case r.GetDelete() != "":
		return Binding{http.MethodDelete, r.GetDelete()}, nil
	}
	return Binding{}, fmt.Errorf("unsupported HTTP rule %v", r)
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

// All lists every procedure, for tests and documentation.
func (t *Table) All() []*Procedure {
	out := make([]*Procedure, 0, len(t.byName))
	for _, p := range t.byName {
		out = append(out, p)
	}
	return out
}

// IsREST reports whether a path belongs to the REST surface rather than Connect.
func IsREST(path string) bool { return strings.HasPrefix(path, "/api/") }
