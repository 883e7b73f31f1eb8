package gate

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
)

// readHeaders are the request headers the server reads as text; they must be
// text like everything else (docs/decisions.md, "Input at the boundary").
// net/http already refuses control characters (NUL among them) in headers.
var readHeaders = []string{
	"Authorization", "Cookie", "Origin", "Last-Event-ID", "X-Agent-Name", "Idempotency-Key", "X-Request-Id",
}

// checkText refuses a request whose path, query or read headers are not text
// (valid UTF-8 without NUL), before any credential or handler sees them.
func checkText(r *http.Request) error {
	if !input.Text(r.URL.Path) {
		return input.NotText("the path")
	}
	// Values the query parser cannot decode are left to it; the ones it can
	// decode must be text.
	q, _ := url.ParseQuery(r.URL.RawQuery)
	for key, values := range q {
		if !input.Text(key) {
			return input.NotText("a query parameter name")
		}
		for _, v := range values {
			if !input.Text(v) {
				return input.NotText("query parameter " + key)
			}
		}
	}
	for _, name := range readHeaders {
		for _, v := range r.Header.Values(name) {
			if !input.Text(v) {
				return input.NotText("header " + name)
			}
		}
	}
	return nil
}

// checkPath applies the contract's field rules to a REST route's path
// parameters (the body and query are checked as they are decoded), so an id
// over its length is refused as it is over Connect.
func checkPath(p *contract.Procedure, params map[string]string) error {
	if len(params) == 0 {
		return nil
	}
	m := dynamicpb.NewMessage(p.Descriptor.Input())
	fields := make([]string, 0, len(params))
	for name, v := range params {
		path := strings.Split(name, ".")
		setString(m, path, v)
		fields = append(fields, path[0])
	}
	return input.CheckOnly(m, fields)
}

// setString sets the string field at path; other kinds are left to the
// gateway's own conversion.
func setString(m protoreflect.Message, path []string, v string) {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(path[0]))
	if fd == nil || fd.IsList() || fd.IsMap() {
		return
	}
	if len(path) > 1 {
		if fd.Message() != nil {
			setString(m.Mutable(fd).Message(), path[1:], v)
		}
		return
	}
	if fd.Kind() == protoreflect.StringKind {
		m.Set(fd, protoreflect.ValueOfString(v))
	}
}

// pathVar finds the fields a REST path template carries ({id}, {card_id}).
var pathVar = regexp.MustCompile(`\{([^}=]+)`)

// pathFields caches requiredFields by procedure name.
var pathFields sync.Map // string → []pathField

type pathField struct {
	fields []protoreflect.FieldDescriptor // the proto path, outermost first
	name   string                         // its JSON path
}

// requiredFields are the string fields every REST route of p carries in its
// path: an empty one is refused on both transports, as a missing path
// segment (docs/decisions.md "Errors").
func requiredFields(p *contract.Procedure) []pathField {
	if v, ok := pathFields.Load(p.Name); ok {
		return v.([]pathField)
	}
	count := map[string]int{}
	for _, b := range p.Bindings {
		for _, m := range pathVar.FindAllStringSubmatch(b.Template, -1) {
			count[m[1]]++
		}
	}
	var out []pathField
	for _, b := range p.Bindings[:min(1, len(p.Bindings))] {
		for _, m := range pathVar.FindAllStringSubmatch(b.Template, -1) {
			if count[m[1]] != len(p.Bindings) {
				continue
			}
			if f, ok := resolvePath(p.Descriptor.Input(), m[1]); ok {
				out = append(out, f)
			}
		}
	}
	pathFields.Store(p.Name, out)
	return out
}

func resolvePath(md protoreflect.MessageDescriptor, path string) (pathField, bool) {
	var f pathField
	var names []string
	for _, part := range strings.Split(path, ".") {
		if md == nil {
			return f, false
		}
		fd := md.Fields().ByName(protoreflect.Name(part))
		if fd == nil || fd.IsList() || fd.IsMap() {
			return f, false
		}
		f.fields = append(f.fields, fd)
		names = append(names, fd.JSONName())
		md = fd.Message()
	}
	last := f.fields[len(f.fields)-1]
	f.name = strings.Join(names, ".")
	return f, last.Kind() == protoreflect.StringKind
}

// emptyPathParam refuses a REST request whose path leaves a field of p empty
// (/api/v2/queue/ or /api/v2/kanban//checklist/1).
func emptyPathParam(p *contract.Procedure, params map[string]string) error {
	for _, f := range requiredFields(p) {
		var proto []string
		for _, fd := range f.fields {
			proto = append(proto, string(fd.Name()))
		}
		if v, ok := params[strings.Join(proto, ".")]; ok && v == "" {
			return apperr.Invalid("%s is required", f.name)
		}
	}
	return nil
}

// emptyPathField refuses a Connect request that leaves empty a field the
// REST routes of p carry in their path, as the REST routes refuse it.
func emptyPathField(p *contract.Procedure, m protoreflect.Message) error {
	for _, f := range requiredFields(p) {
		cur := m
		for i, fd := range f.fields {
			if i == len(f.fields)-1 {
				if cur.Get(fd).String() == "" {
					return apperr.Invalid("%s is required", f.name)
				}
				break
			}
			if !cur.Has(fd) {
				return apperr.Invalid("%s is required", f.name)
			}
			cur = cur.Get(fd).Message()
		}
	}
	return nil
}

// RequiredPathFields is the Connect interceptor that applies emptyPathField.
func (g *Gate) RequiredPathFields() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if p, ok := g.table.ByName(req.Spec().Procedure); ok {
				if m, ok := req.Any().(proto.Message); ok {
					if err := emptyPathField(p, m.ProtoReflect()); err != nil {
						return nil, err
					}
				}
			}
			return next(ctx, req)
		}
	})
}
