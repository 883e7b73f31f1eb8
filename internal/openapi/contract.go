package openapi

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// contractPackage is the protobuf package whose services and messages the
// document describes; taken from the generated options file so a rename of the
// package cannot leave this step behind.
var contractPackage = switchboardv1.File_switchboard_v1_options_proto.Package()

// contract is what the descriptors say about the REST surface.
type contract struct {
	rpcs     []rpc
	messages []protoreflect.MessageDescriptor // every message of the package, nested ones too
}

// rpc is one method with at least one HTTP binding.
type rpc struct {
	desc     protoreflect.MethodDescriptor
	access   *switchboardv1.AccessRule
	status   int // HTTP status of a success, 200 unless rest_status says otherwise
	bindings []binding
}

// binding is one HTTP rule of a method: the primary one or an additional one.
type binding struct {
	method       string // lower case, as OpenAPI keys operations: get, post, …
	path         string // in OpenAPI form, parameters named by their JSON names
	responseBody string // the response_body field, empty for the whole message
	index        int    // 0 for the primary rule, then 1, 2, … for additional_bindings
}

// operationID names the operation like gnostic does, adding the binding's
// position for additional bindings (as grpc-gateway's openapiv2 does) so that
// ids stay unique.
func (r rpc) operationID(b binding) string {
	id := string(r.desc.Parent().Name()) + "_" + string(r.desc.Name())
	if b.index > 0 {
		id += strconv.Itoa(b.index + 1)
	}
	return id
}

// loadContract reads the package's files from the registry.
func loadContract(files *protoregistry.Files) (*contract, error) {
	var fds []protoreflect.FileDescriptor
	files.RangeFilesByPackage(contractPackage, func(fd protoreflect.FileDescriptor) bool {
		fds = append(fds, fd)
		return true
	})
	if len(fds) == 0 {
		return nil, fmt.Errorf("no files of package %s registered", contractPackage)
	}
	slices.SortFunc(fds, func(a, b protoreflect.FileDescriptor) int { return cmp.Compare(a.Path(), b.Path()) })

	c := &contract{}
	for _, fd := range fds {
		c.messages = appendMessages(c.messages, fd.Messages())
		for i := 0; i < fd.Services().Len(); i++ {
			methods := fd.Services().Get(i).Methods()
			for j := 0; j < methods.Len(); j++ {
				r, ok, err := readRPC(methods.Get(j))
				if err != nil {
					return nil, err
				}
				if ok {
					c.rpcs = append(c.rpcs, r)
				}
			}
		}
	}
	return c, nil
}

func appendMessages(out []protoreflect.MessageDescriptor, ms protoreflect.MessageDescriptors) []protoreflect.MessageDescriptor {
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if m.IsMapEntry() {
			continue
		}
		out = append(out, m)
		out = appendMessages(out, m.Messages())
	}
	return out
}

// readRPC answers the method's REST facts; ok is false for a method without an
// HTTP rule (Connect only).
func readRPC(md protoreflect.MethodDescriptor) (rpc, bool, error) {
	opts := md.Options()
	rule, _ := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
	if rule == nil || rule.GetPattern() == nil {
		return rpc{}, false, nil
	}
	r := rpc{desc: md, status: 200}
	if !proto.HasExtension(opts, switchboardv1.E_Access) {
		return rpc{}, false, fmt.Errorf("%s: no access rule (a procedure without one is refused)", md.FullName())
	}
	r.access = proto.GetExtension(opts, switchboardv1.E_Access).(*switchboardv1.AccessRule)
	if !r.access.GetPublic() && len(r.access.GetCredentials()) == 0 {
		return rpc{}, false, fmt.Errorf("%s: access rule is neither public nor accepts a credential", md.FullName())
	}
	if s := proto.GetExtension(opts, switchboardv1.E_RestStatus).(int32); s != 0 {
		if s < 200 || s > 299 {
			return rpc{}, false, fmt.Errorf("%s: rest_status %d is not a success status", md.FullName(), s)
		}
		r.status = int(s)
	}
	rules := append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...)
	for i, hr := range rules {
		b, err := readBinding(md, hr)
		if err != nil {
			return rpc{}, false, err
		}
		b.index = i
		r.bindings = append(r.bindings, b)
	}
	return r, true, nil
}

func readBinding(md protoreflect.MethodDescriptor, hr *annotations.HttpRule) (binding, error) {
	var method, path string
	switch p := hr.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		method, path = "get", p.Get
	case *annotations.HttpRule_Put:
		method, path = "put", p.Put
	case *annotations.HttpRule_Post:
		method, path = "post", p.Post
	case *annotations.HttpRule_Delete:
		method, path = "delete", p.Delete
	case *annotations.HttpRule_Patch:
		method, path = "patch", p.Patch
	default:
		return binding{}, fmt.Errorf("%s: HTTP rule %T is not supported by gnostic", md.FullName(), p)
	}
	oaPath, err := openAPIPath(md.Input(), path)
	if err != nil {
		return binding{}, fmt.Errorf("%s: %w", md.FullName(), err)
	}
	b := binding{method: method, path: oaPath, responseBody: hr.GetResponseBody()}
	if b.responseBody != "" && md.Output().Fields().ByName(protoreflect.Name(b.responseBody)) == nil {
		return binding{}, fmt.Errorf("%s: response_body %q is not a field of %s", md.FullName(), b.responseBody, md.Output().FullName())
	}
	return b, nil
}

var pathParam = regexp.MustCompile(`{([^}]*)}`)

// openAPIPath turns an HTTP rule template into the path gnostic writes: each
// {field} becomes {jsonName} of that request field.
func openAPIPath(input protoreflect.MessageDescriptor, template string) (string, error) {
	var err error
	out := pathParam.ReplaceAllStringFunc(template, func(m string) string {
		name := m[1 : len(m)-1]
		if strings.ContainsAny(name, "=.") {
			err = fmt.Errorf("path %s: only simple {field} parameters are supported, not %s", template, m)
			return m
		}
		if f := input.Fields().ByName(protoreflect.Name(name)); f != nil {
			return "{" + f.JSONName() + "}"
		}
		if f := input.Fields().ByJSONName(name); f != nil {
			return "{" + f.JSONName() + "}"
		}
		err = fmt.Errorf("path %s: %s is not a field of %s", template, name, input.FullName())
		return m
	})
	return out, err
}

// schemaName is the components.schemas key gnostic (naming=json) gives a
// message: its name, prefixed by its parent's for a nested message.
func schemaName(m protoreflect.MessageDescriptor) string {
	name := string(m.Name())
	if p, ok := m.Parent().(protoreflect.MessageDescriptor); ok {
		name = string(p.Name()) + "_" + name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// isOptional reports a proto3 `optional` field: its absence is rendered.
func isOptional(f protoreflect.FieldDescriptor) bool { return f.HasOptionalKeyword() }

// inRealOneof reports a member of a written oneof; protojson leaves unset
// members out even when it emits unpopulated fields.
func inRealOneof(f protoreflect.FieldDescriptor) bool {
	o := f.ContainingOneof()
	return o != nil && !o.IsSynthetic()
}

func omitsAbsent(m protoreflect.MessageDescriptor) bool {
	return proto.GetExtension(m.Options(), switchboardv1.E_RestOmitAbsent).(bool)
}

func nullWhenEmpty(f protoreflect.FieldDescriptor) bool {
	return proto.GetExtension(f.Options(), switchboardv1.E_RestNullWhenEmpty).(bool)
}

// responseMessages answers the package's messages a REST response can carry:
// the outputs of methods with HTTP rules and, transitively, the messages of
// their message and map-value fields.
func (c *contract) responseMessages() map[protoreflect.FullName]bool {
	seen := map[protoreflect.FullName]bool{}
	var visit func(m protoreflect.MessageDescriptor)
	visit = func(m protoreflect.MessageDescriptor) {
		if m == nil || seen[m.FullName()] || m.ParentFile().Package() != contractPackage {
			return
		}
		seen[m.FullName()] = true
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			if f.IsMap() {
				f = f.MapValue()
			}
			visit(f.Message())
		}
	}
	for _, r := range c.rpcs {
		visit(r.desc.Output())
	}
	return seen
}
