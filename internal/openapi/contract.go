package openapi

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	srvcontract "github.com/switchboard-hq/switchboard/server/contract"
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
	desc   protoreflect.MethodDescriptor
	access *switchboardv1.AccessRule
	status int // HTTP status of a success, 200 unless rest_status says otherwise
	// created is the answer's field that makes a success 201 (rest_created_field).
	created  protoreflect.FieldDescriptor
	bindings []binding
	// keyed: the procedure takes the Idempotency-Key header.
	keyed bool
}

type binding struct {
	method       string // lower case, as OpenAPI keys operations: get, post, …
	path         string // in OpenAPI form, parameters named by their JSON names
	responseBody string // the response_body field, empty for the whole message
	index        int    // 0 for the primary rule, then 1, 2, … for additional_bindings
}

func (r rpc) operationID(b binding) string {
	id := string(r.desc.Parent().Name()) + "_" + string(r.desc.Name())
	if b.index > 0 {
		id += strconv.Itoa(b.index + 1)
	}
	return id
}

// loadContract reads the RPCs with HTTP rules through server/contract, the one
// reader of the access rules, statuses and bindings, and the package's messages.
func loadContract(files *protoregistry.Files) (*contract, error) {
	table, err := srvcontract.LoadFrom(files)
	if err != nil {
		return nil, err
	}
	c := &contract{}
	for _, p := range table.All() {
		if len(p.Bindings) == 0 {
			continue
		}
		r := rpc{desc: p.Descriptor, access: p.Rule, status: p.RESTStatus, created: p.CreatedField,
			keyed: p.Idempotency == srvcontract.IdempotencyKeyed}
		for i, b := range p.Bindings {
			path, err := openAPIPath(p.Descriptor.Input(), b.Template)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Descriptor.FullName(), err)
			}
			r.bindings = append(r.bindings, binding{method: strings.ToLower(b.Method), path: path, responseBody: b.ResponseBody, index: i})
		}
		c.rpcs = append(c.rpcs, r)
	}
	for _, fd := range srvcontract.PackageFiles(files) {
		c.messages = appendMessages(c.messages, fd.Messages())
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

func isRequired(f protoreflect.FieldDescriptor) bool {
	return proto.GetExtension(f.Options(), switchboardv1.E_Required).(bool)
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
