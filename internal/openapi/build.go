// Package openapi turns the OpenAPI document gnostic's protoc-gen-openapi writes
// into the one Switchboard publishes: a description of the REST rendering as the
// server really emits it (nulls, required keys, statuses, errors, credentials,
// rate-limit headers). Every change is driven by the switchboard.v1 descriptors
// and their options, never by field names written here.
package openapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Names this package adds to the document.
const (
	bearerScheme  = "bearerAuth"
	cookieScheme  = "sessionCookie"
	sessionCookie = "sb_session"
	// federationHeader carries the instance key and the peers' tokens.
	federationHeader = "X-Federation-Token"
	errorSchema      = "Error"
	metaTag          = "Meta"
	restPrefix       = "/api/v2/" // every response under it carries the rate-limit headers
	jsonMedia        = "application/json"
	schemasPrefix    = "#/components/schemas/"
)

// Headers of the rate limiter (docs/decisions.md "Rate limits").
var rateLimitHeaders = []struct{ name, description string }{
	{"X-RateLimit-Limit", "Requests allowed in the current window."},
	{"X-RateLimit-Remaining", "Requests left in the current window."},
	{"X-RateLimit-Reset", "When the window resets, in unix seconds."},
}

const retryAfter = "Retry-After"

// Build answers the published OpenAPI 3.0 document, as indented JSON, for the
// document gnostic generated from the protos registered in this binary.
func Build(gnosticYAML []byte) ([]byte, error) {
	c, err := loadContract(protoregistry.GlobalFiles)
	if err != nil {
		return nil, err
	}
	doc, err := parseYAML(gnosticYAML)
	if err != nil {
		return nil, err
	}
	if err := transform(doc, c); err != nil {
		return nil, err
	}
	return marshalJSON(doc)
}

func transform(doc *object, c *contract) error {
	if v := doc.str("openapi"); !strings.HasPrefix(v, "3.0.") {
		return fmt.Errorf("want an OpenAPI 3.0 document, got version %q", v)
	}
	schemas := doc.child("components").child("schemas")
	paths := doc.child("paths")
	if schemas == nil || paths == nil {
		return fmt.Errorf("document has no paths or no components.schemas")
	}
	if err := applyFieldRules(schemas, c); err != nil {
		return err
	}
	b := &builder{doc: doc, schemas: schemas, paths: paths, errorResponses: map[string]bool{}}
	if err := b.operations(c); err != nil {
		return err
	}
	b.extraPaths()
	if err := b.components(); err != nil {
		return err
	}
	pruneSchemas(doc)
	tidy(doc)
	return nil
}

// applyFieldRules marks nullable and required properties of the package's
// message schemas (docs/decisions.md "The two JSON renderings").
func applyFieldRules(schemas *object, c *contract) error {
	responses := c.responseMessages()
	for _, m := range c.messages {
		s := schemas.child(schemaName(m))
		if s == nil {
			continue // gnostic writes schemas only for messages a REST operation uses
		}
		props := s.child("properties")
		omit := omitsAbsent(m)
		var required []any
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			name := f.JSONName()
			p, ok := props.get(name)
			if !ok {
				return fmt.Errorf("schema %s has no property %s for field %s", schemaName(m), name, f.FullName())
			}
			if po, ok := p.(*object); ok {
				applyLimits(po, f)
			}
			if nullWhenEmpty(f) && f.Cardinality() != protoreflect.Repeated {
				return fmt.Errorf("%s: rest_null_when_empty on a field that is not repeated", f.FullName())
			}
			// rest_omit_absent leaves out unset optional fields and empty
			// lists: neither is then null, nor always present.
			if (isOptional(f) && !omit) || (nullWhenEmpty(f) && !omit) {
				props.set(name, nullable(p.(*object), schemas))
			}
			omitted := omit && (isOptional(f) || f.IsList() || f.IsMap())
			if (responses[m.FullName()] && !omitted && !inRealOneof(f)) || isRequired(f) {
				required = append(required, name)
			}
		}
		if len(required) > 0 {
			s.set("required", required)
			s.order("type", "description", "properties", "required")
		}
	}
	return nil
}

// nullable answers a copy of the property schema p that also admits null. A
// reference cannot simply carry nullable: a $ref ignores its siblings in
// OpenAPI 3.0, and nullable beside allOf does not reach into it (a validator
// still checks null against the referenced schema; Prism does). So a
// reference becomes anyOf [the reference, a schema that admits only null],
// OpenAPI 3.0.3's idiom; the null schema repeats the referenced type, since
// nullable only takes effect beside a type.
func nullable(p *object, schemas *object) *object {
	ref := refOf(p)
	if ref == "" {
		out := clone(p).(*object)
		out.set("nullable", true)
		// A validator checks enum against null too: a nullable enum lists it.
		if enum, ok := out.get("enum"); ok {
			out.set("enum", append(slices.Clone(enum.([]any)), nil))
		}
		return out
	}
	out := newObject()
	if d := p.str("description"); d != "" {
		out.set("description", d)
	}
	t := schemas.child(strings.TrimPrefix(ref, schemasPrefix)).str("type")
	if t == "" {
		t = "object"
	}
	out.set("anyOf", []any{obj("$ref", ref), obj("type", t, "nullable", true, "enum", []any{nil})})
	return out
}

// refOf answers the schema a property refers to: a plain $ref, or the one
// gnostic wraps as {allOf: [{$ref}], description} when the field has a
// comment. Anything else answers "".
func refOf(p *object) string {
	if r := p.str("$ref"); r != "" {
		return r
	}
	v, _ := p.get("allOf")
	list, _ := v.([]any)
	if len(list) != 1 {
		return ""
	}
	for _, k := range p.keys {
		if k != "allOf" && k != "description" {
			return ""
		}
	}
	if o, ok := list[0].(*object); ok {
		return o.str("$ref")
	}
	return ""
}

type builder struct {
	doc, schemas, paths *object
	// errorResponses records the components.responses the operations use, so
	// that only those are written.
	errorResponses map[string]bool
}

// operations finishes the operation of every HTTP binding of every method.
func (b *builder) operations(c *contract) error {
	seen := map[string]string{}
	for _, r := range c.rpcs {
		for _, bd := range r.bindings {
			key := strings.ToUpper(bd.method) + " " + bd.path
			if other, dup := seen[key]; dup {
				return fmt.Errorf("%s: %s is bound by %s too", r.desc.FullName(), key, other)
			}
			seen[key] = string(r.desc.FullName())
			if err := b.operation(r, bd); err != nil {
				return fmt.Errorf("%s %s: %w", strings.ToUpper(bd.method), bd.path, err)
			}
		}
	}
	return nil
}

func (b *builder) operation(r rpc, bd binding) error {
	op := b.paths.child(bd.path).child(bd.method)
	if op == nil {
		return fmt.Errorf("not in the gnostic document (is it stale?)")
	}
	op.set("operationId", r.operationID(bd))
	op.set("summary", humanize(string(r.desc.Name())))
	if scope := r.access.GetScope(); scope != "" && slices.Contains(r.access.GetCredentials(), switchboardv1.Credential_CREDENTIAL_KEY) {
		desc := strings.TrimSpace(op.str("description"))
		need := "An API key needs the `" + scope + "` scope."
		if also := r.access.GetAlsoScopes(); len(also) > 0 {
			need = "An API key needs one of the scopes `" + strings.Join(append([]string{scope}, also...), "`, `") + "`."
		}
		op.set("description", strings.TrimSpace(desc+"\n\n"+need))
	}

	if err := markRequiredParameters(op, r.desc.Input()); err != nil {
		return err
	}
	responses := op.child("responses")
	success := responses.child("200")
	if success == nil {
		return fmt.Errorf("gnostic wrote no 200 response")
	}
	if bd.responseBody != "" {
		if err := b.responseBody(success, r.desc.Output(), bd.responseBody); err != nil {
			return err
		}
	}
	if r.status != http.StatusOK {
		responses.rename("200", strconv.Itoa(r.status))
		success.set("description", http.StatusText(r.status))
	}
	if r.created != nil {
		success.set("description", fmt.Sprintf("OK (%s false)", r.created.JSONName()))
		created := obj("description", fmt.Sprintf("Created (%s true)", r.created.JSONName()))
		if content := success.child("content"); content != nil {
			created.set("content", content)
		}
		responses.set("201", created)
	}

	if r.keyed {
		addIdempotency(op, success)
	}
	security, err := securityOf(r.access)
	if err != nil {
		return fmt.Errorf("%s: %w", r.desc.FullName(), err)
	}
	// A public operation that names credentials too (the store lifecycle:
	// sweep needs none, confirm does) can answer what a guarded one does.
	b.finish(op, bd.path, r.access.GetPublic() && len(r.access.GetCredentials()) == 0, security)
	return nil
}

// markRequiredParameters marks the query parameters whose request field the
// contract declares (switchboard.v1.required), and publishes the limits of
// the query and path parameters.
func markRequiredParameters(op *object, in protoreflect.MessageDescriptor) error {
	params, _ := op.get("parameters")
	list, _ := params.([]any)
	for _, item := range list {
		p, ok := item.(*object)
		if !ok {
			continue
		}
		if p.str("in") == "path" {
			pathLimits(p, in)
			continue
		}
		if p.str("in") != "query" {
			continue
		}
		f := in.Fields().ByJSONName(p.str("name"))
		if f == nil {
			return fmt.Errorf("query parameter %q is no field of %s", p.str("name"), in.FullName())
		}
		if s := p.child("schema"); s != nil {
			applyLimits(s, f)
		}
		if isRequired(f) {
			p.set("required", true)
			p.order("name", "in", "description", "required", "schema")
		}
	}
	return nil
}

// responseBody makes the success schema the schema of the output field named
// by the rule's response_body, which is all grpc-gateway writes.
func (b *builder) responseBody(success *object, out protoreflect.MessageDescriptor, field string) error {
	f := out.Fields().ByName(protoreflect.Name(field))
	prop, ok := b.schemas.child(schemaName(out)).child("properties").get(f.JSONName())
	if !ok {
		return fmt.Errorf("response_body %s: no such property in schema %s", field, schemaName(out))
	}
	media := success.child("content").child(jsonMedia)
	if media == nil {
		return fmt.Errorf("response_body %s: success has no %s content", field, jsonMedia)
	}
	media.set("schema", clone(prop))
	return nil
}

// schemes names the security scheme of each credential a rule may name.
var schemes = map[switchboardv1.Credential]string{
	switchboardv1.Credential_CREDENTIAL_KEY:              bearerScheme,
	switchboardv1.Credential_CREDENTIAL_SESSION:          cookieScheme,
	switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN:   "platformToken",
	switchboardv1.Credential_CREDENTIAL_INSTANCE_KEY:     "instanceKey",
	switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN: "federationToken",
	switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN:    "connectToken",
	switchboardv1.Credential_CREDENTIAL_DEVELOPER_KEY:    "developerKey",
	switchboardv1.Credential_CREDENTIAL_CRON_SECRET:      "cronSecret",
}

// securityOf is an operation's security: one alternative per credential its
// rule names, and the empty one ("or no credential at all") for a public
// rule that names none or whose credentials are optional.
func securityOf(rule *switchboardv1.AccessRule) ([]any, error) {
	out := []any{}
	if rule.GetPublic() && (len(rule.GetCredentials()) == 0 || rule.GetCredentialsOptional()) {
		if len(rule.GetCredentials()) == 0 {
			return out, nil
		}
		out = append(out, obj())
	}
	for _, cred := range rule.GetCredentials() {
		name, ok := schemes[cred]
		if !ok {
			return nil, fmt.Errorf("credential %v has no security scheme", cred)
		}
		out = append(out, obj(name, []any{}))
	}
	return out, nil
}

// errorStatus is one error answer every operation may give, and when.
type errorStatus struct {
	status, component, description string
	retry                          bool // carries Retry-After
	when                           func(public, pathParams bool) bool
}

func always(bool, bool) bool { return true }

var errorStatuses = []errorStatus{
	{"400", "BadRequest", "The request is malformed or breaks a rule.", false, always},
	{"401", "Unauthorized", "No credential, or an unknown one, was presented.", false,
		func(public, _ bool) bool { return !public }},
	{"403", "Forbidden", "The credential may not do this: an expired, deactivated or out-of-scope key.", false,
		func(public, _ bool) bool { return !public }},
	{"404", "NotFound", "No such resource in the caller's account.", false,
		func(public, params bool) bool { return params || !public }},
	{"429", "TooManyRequests", "Too many requests; retry after the Retry-After seconds.", true, always},
	{"500", "InternalError", "The server failed unexpectedly.", false, always},
	{"default", "UnexpectedError", "Any other error the operation documents (402, 409, 422, …).", false, always},
}

// finish adds what every operation carries: its error answers, its security
// and, under /api/v2/, the rate-limit headers on every response.
func (b *builder) finish(op *object, path string, public bool, security []any) {
	limited := strings.HasPrefix(path, restPrefix)
	params := strings.Contains(path, "{")
	responses := op.ensure("responses")
	for _, es := range errorStatuses {
		if !es.when(public, params) {
			continue
		}
		name := es.component
		if limited {
			name += "WithRateLimit"
		}
		b.errorResponses[name] = true
		responses.set(es.status, obj("$ref", "#/components/responses/"+name))
	}
	if limited {
		for _, k := range responses.keys {
			if r := responses.child(k); r != nil && r.str("$ref") == "" {
				addRateLimitHeaders(r)
			}
		}
	}
	responses.sortKeys(compareStatus)
	op.set("security", security)
	op.order("tags", "summary", "description", "operationId", "parameters", "requestBody", "responses", "security")
}

func addRateLimitHeaders(resp *object) {
	headers := resp.ensure("headers")
	for _, h := range rateLimitHeaders {
		headers.set(h.name, obj("$ref", "#/components/headers/"+h.name))
	}
	resp.order("description", "headers", "content")
}

// compareStatus orders response keys by status, default last.
func compareStatus(a, b string) int {
	rank := func(s string) string {
		if s == "default" {
			return "999"
		}
		return s
	}
	return cmp.Compare(rank(a), rank(b))
}

// extraPaths adds what the server serves beside the RPC mirror.
func (b *builder) extraPaths() {
	docs := obj(
		"tags", []any{metaTag},
		"summary", "OpenAPI description",
		"description", "This document: the OpenAPI 3.0 description of the REST API.",
		"operationId", "Meta_GetDocs",
		"responses", obj("200", obj(
			"description", "OK",
			"content", obj(jsonMedia, obj("schema", obj(
				"type", "object",
				"description", "An OpenAPI 3.0 document.",
				"additionalProperties", true,
			))),
		)),
	)
	b.paths.ensure(restPrefix+"docs").set("get", docs)
	b.finish(docs, restPrefix+"docs", true, []any{})

	health := obj(
		"tags", []any{metaTag},
		"summary", "Health check",
		"description", "Answers 200 with the text ok while the server is up.",
		"operationId", "Meta_Healthz",
		"responses", obj("200", obj(
			"description", "OK",
			"content", obj("text/plain", obj("schema", obj("type", "string", "example", "ok"))),
		)),
	)
	b.paths.ensure("/healthz").set("get", health)
	b.finish(health, "/healthz", true, []any{})

	tags, _ := b.doc.get("tags")
	list, _ := tags.([]any)
	b.doc.set("tags", append(list, obj(
		"name", metaTag,
		"description", "What the server serves beside the RPC mirror: this document and its health check.",
	)))
}

// components adds the error schema and responses, the headers and the security
// schemes the operations refer to.
func (b *builder) components() error {
	comps := b.doc.child("components")
	errSchema, err := errorSchemaFor((&switchboardv1.ErrorInfo{}).ProtoReflect().Descriptor())
	if err != nil {
		return err
	}
	if b.schemas.child(errorSchema) != nil {
		return fmt.Errorf("components.schemas.%s is already taken", errorSchema)
	}
	b.schemas.set(errorSchema, errSchema)

	responses := comps.ensure("responses")
	for _, es := range errorStatuses {
		for _, limited := range []bool{false, true} {
			name := es.component
			if limited {
				name += "WithRateLimit"
			}
			if !b.errorResponses[name] {
				continue
			}
			resp := obj("description", es.description)
			if es.retry {
				resp.ensure("headers").set(retryAfter, obj("$ref", "#/components/headers/"+retryAfter))
			}
			if limited {
				addRateLimitHeaders(resp)
			}
			resp.set("content", obj(jsonMedia, obj("schema", obj("$ref", schemasPrefix+errorSchema))))
			responses.set(name, resp)
		}
	}

	headers := comps.ensure("headers")
	headers.set(retryAfter, obj(
		"description", "Seconds to wait before retrying.",
		"schema", obj("type", "integer", "minimum", 0),
	))
	for _, h := range rateLimitHeaders {
		headers.set(h.name, obj("description", h.description, "schema", obj("type", "integer", "format", "int64", "minimum", 0)))
	}

	comps.set("securitySchemes", obj(
		bearerScheme, obj(
			"type", "http",
			"scheme", "bearer",
			"description", "An API key as `Authorization: Bearer sbk_...`.",
		),
		cookieScheme, obj(
			"type", "apiKey",
			"in", "cookie",
			"name", sessionCookie,
			"description", "The dashboard session set by login. Requests that change state also need the Connect protocol header or a same-origin Origin header.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN], obj(
			"type", "http",
			"scheme", "bearer",
			"description", "The platform token a hub issued to a joined instance, as `Authorization: Bearer sbp_...`.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_INSTANCE_KEY], obj(
			"type", "apiKey",
			"in", "header",
			"name", federationHeader,
			"description", "This instance's own secret, which only the hub it joined holds, as `X-Federation-Token: sbi_...`.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN], obj(
			"type", "apiKey",
			"in", "header",
			"name", federationHeader,
			"description", "The operator network's token this instance issued to a connected peer, as `X-Federation-Token: sbf_...`.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN], obj(
			"type", "http",
			"scheme", "bearer",
			"description", "A connect token an admin minted, as `Authorization: Bearer fct_...`.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_DEVELOPER_KEY], obj(
			"type", "http",
			"scheme", "bearer",
			"description", "A developer key, as `Authorization: Bearer sbd_...`.",
		),
		schemes[switchboardv1.Credential_CREDENTIAL_CRON_SECRET], obj(
			"type", "apiKey",
			"in", "header",
			"name", "X-Cron-Secret",
			"description", "The cron secret (`--cron-secret`); `Authorization: Bearer <secret>` is accepted too.",
		),
	))
	comps.order("schemas", "responses", "headers", "securitySchemes")
	return nil
}

// errorSchemaFor describes the REST error body: success and error, plus the
// extras the Connect error detail carries.
func errorSchemaFor(info protoreflect.MessageDescriptor) (*object, error) {
	props := obj(
		"success", obj("type", "boolean", "enum", []any{false}, "description", "Always false."),
		"error", obj("type", "string", "description", "What went wrong, for people."),
	)
	fields := info.Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		s, err := scalarSchema(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.FullName(), err)
		}
		props.set(f.JSONName(), s)
	}
	return obj(
		"type", "object",
		"description", "The body of every REST error. The extras beside success and error appear only where an error names them.",
		"properties", props,
		"required", []any{"success", "error"},
	), nil
}

func scalarSchema(f protoreflect.FieldDescriptor) (*object, error) {
	if f.IsList() || f.IsMap() {
		return nil, fmt.Errorf("only singular scalar fields are supported")
	}
	switch f.Kind() {
	case protoreflect.StringKind:
		return obj("type", "string"), nil
	case protoreflect.BoolKind:
		return obj("type", "boolean"), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return obj("type", "integer", "format", "int32"), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// The REST rendering writes 64-bit integers as JSON numbers (cents).
		return obj("type", "integer", "format", "int64"), nil
	case protoreflect.DoubleKind:
		return obj("type", "number", "format", "double"), nil
	case protoreflect.FloatKind:
		return obj("type", "number", "format", "float"), nil
	case protoreflect.MessageKind:
		// An extra that is itself an object of scalars (a plan's price).
		props := obj()
		fields := f.Message().Fields()
		for i := 0; i < fields.Len(); i++ {
			s, err := scalarSchema(fields.Get(i))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fields.Get(i).FullName(), err)
			}
			props.set(fields.Get(i).JSONName(), s)
		}
		return obj("type", "object", "properties", props), nil
	default:
		return nil, fmt.Errorf("kind %v is not supported", f.Kind())
	}
}

// pruneSchemas drops component schemas nothing refers to any more (such as a
// response message replaced by its response_body field).
func pruneSchemas(doc *object) {
	schemas := doc.child("components").child("schemas")
	used := map[string]bool{}
	var queue []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case *object:
			for _, k := range t.keys {
				if ref, ok := t.vals[k].(string); ok && k == "$ref" && strings.HasPrefix(ref, schemasPrefix) {
					name := strings.TrimPrefix(ref, schemasPrefix)
					if !used[name] {
						used[name] = true
						queue = append(queue, name)
					}
					continue
				}
				if t == schemas {
					continue
				}
				walk(t.vals[k])
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(doc)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		walk(schemas.vals[name])
	}
	for _, k := range slices.Clone(schemas.keys) {
		if !used[k] {
			schemas.del(k)
		}
	}
}

// tidy fixes the order of everything so the output is stable and readable.
func tidy(doc *object) {
	info := doc.ensure("info")
	info.set("description", "Switchboard's REST API, the JSON mirror of the switchboard.v1 Connect services. "+
		"Every field of a response is present: an absent optional value is null, and arrays are [] "+
		"unless a field says it is null when empty. Errors answer {\"success\": false, \"error\": \"...\"}.")
	info.order("title", "description", "version")
	doc.set("servers", []any{obj("url", "/", "description", "This server.")})

	doc.child("paths").sortKeys(strings.Compare)
	methods := []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	for _, k := range doc.child("paths").keys {
		doc.child("paths").child(k).order(append([]string{"summary", "description", "servers", "parameters"}, methods...)...)
	}
	doc.child("components").child("schemas").sortKeys(strings.Compare)
	doc.child("components").child("responses").sortKeys(strings.Compare)
	if tags, ok := doc.vals["tags"].([]any); ok {
		slices.SortStableFunc(tags, func(a, b any) int {
			return strings.Compare(a.(*object).str("name"), b.(*object).str("name"))
		})
	}
	doc.order("openapi", "info", "servers", "tags", "paths", "components")
}

// humanize turns a method name into a summary: ListKeys → "List keys".
func humanize(name string) string {
	var words []string
	start := 0
	rs := []rune(name)
	for i := 1; i < len(rs); i++ {
		// A digit continues a run of capitals, as in A2A.
		prevCap := unicode.IsUpper(rs[i-1]) || unicode.IsDigit(rs[i-1])
		if unicode.IsUpper(rs[i]) && (!prevCap || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	words = append(words, string(rs[start:]))
	for i := 1; i < len(words); i++ {
		if strings.ToUpper(words[i]) != words[i] || len(words[i]) == 1 {
			words[i] = strings.ToLower(words[i])
		}
	}
	return strings.Join(words, " ")
}
