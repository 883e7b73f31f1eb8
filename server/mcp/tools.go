package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/render"
)

// tool is one MCP tool over the services.
type tool struct {
	name, title, description string
	// calls are the procedures the tool calls: it needs their scopes, and
	// counts in the heaviest of their rate classes.
	calls []string
	input *jsonschema.Schema
	// output is the message the tool answers (structuredContent is its REST
	// rendering), or outputSchema for an answer of the door's own.
	output       protoreflect.MessageDescriptor
	outputSchema *jsonschema.Schema
	readOnly     bool
	run          func(ctx context.Context, p *auth.Principal, args json.RawMessage) (any, error)

	scopes []string
	class  string

	once       sync.Once
	resolved   *jsonschema.Resolved
	resolveErr error
}

// classWeight orders rate classes: a tool counts in its heaviest call's.
var classWeight = map[string]int{"": 0, "federation": 1, "auth": 2, "heavy": 3}

// bind reads the scopes and rate class of the tool's calls from the contract.
func (t *tool) bind(table *contract.Table) error {
	for _, name := range t.calls {
		p, ok := table.ByName(name)
		if !ok {
			return fmt.Errorf("mcp: tool %s calls %s, which the contract does not have", t.name, name)
		}
		if p.Scope != "" && !slices.Contains(t.scopes, p.Scope) {
			t.scopes = append(t.scopes, p.Scope)
		}
		if classWeight[p.RateClass] > classWeight[t.class] {
			t.class = p.RateClass
		}
	}
	return nil
}

func (t *tool) sdkTool() *sdk.Tool {
	out := t.outputSchema
	if t.output != nil {
		out = outputSchema(t.output)
	}
	st := &sdk.Tool{Name: t.name, Title: t.title, Description: t.description, InputSchema: t.input, OutputSchema: out}
	if t.readOnly {
		st.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	return st
}

// handler runs the tool for the caller of the request that carries the call.
// Arguments are checked against the input schema here (the SDK's typed
// tools would do it too, but they also check every answer against the
// output schema, which cost more than the work itself: the answers are
// rendered from the descriptors their schemas come from, and
// TestOutputsMatchTheirSchemas holds them to it). A refusal of the domain (an
// illegal move, an unknown id, a missing scope) is an isError result with the
// reason, as the API would answer it.
func (t *tool) handler(s *Server) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		p, err := callerOf(req.Extra)
		if err != nil {
			return failed(err), nil
		}
		if err := t.allows(p, t.name); err != nil {
			return failed(err), nil
		}
		args, err := t.arguments(req.Params.Arguments)
		if err != nil {
			return failed(err), nil
		}
		// The door marks what the tool does as the MCP door's (a store run
		// started by a marketplace_{slug} tool counts as mcp).
		call := auth.WithDoor(auth.WithClient(auth.WithPrincipal(ctx, p), clientOf(req.Extra)), auth.DoorMCP)
		out, err := t.run(call, p, args)
		if err != nil {
			return failed(refusal(ctx, err)), nil
		}
		b, err := asContent(out)
		if err != nil {
			return failed(refusal(ctx, apperr.Internal(err))), nil
		}
		// The text rendering is the same JSON, for clients that read only text.
		return &sdk.CallToolResult{StructuredContent: json.RawMessage(b), Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	}
}

// allows refuses a caller whose key lacks one of the tool's scopes; what
// names what was asked for (the tool, or the resource read through it).
func (t *tool) allows(p *auth.Principal, what string) error {
	for _, scope := range t.scopes {
		if !p.HasScope(scope) {
			return fmt.Errorf("API key lacks the %q scope, which %s needs", scope, what)
		}
	}
	return nil
}

// arguments checks a call's arguments against the tool's input schema and
// fills in its defaults.
func (t *tool) arguments(raw json.RawMessage) (json.RawMessage, error) {
	t.once.Do(func() { t.resolved, t.resolveErr = t.input.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}) })
	if t.resolveErr != nil {
		return nil, apperr.Internal(t.resolveErr)
	}
	v := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %w", err)
		}
	}
	if err := t.resolved.ApplyDefaults(&v); err != nil {
		return nil, fmt.Errorf("validating \"arguments\": %w", err)
	}
	if err := t.resolved.Validate(v); err != nil {
		return nil, fmt.Errorf("validating \"arguments\": %w", err)
	}
	return json.Marshal(v)
}

// failed is an isError result saying why.
func failed(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{}
	res.SetError(err)
	return res
}

// callerOf is the principal the door handed the SDK with the request.
func callerOf(extra *sdk.RequestExtra) (*auth.Principal, error) {
	if extra != nil && extra.TokenInfo != nil {
		if p, ok := extra.TokenInfo.Extra[principalKey].(*auth.Principal); ok {
			return p, nil
		}
	}
	return nil, errors.New("no caller: the request carried no API key")
}

// clientOf is the address of the client whose request carried the call, as
// the door handed it to the SDK beside the principal.
func clientOf(extra *sdk.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil {
		if addr, ok := extra.TokenInfo.Extra[clientKey].(string); ok {
			return addr
		}
	}
	return ""
}

// refusal is the text of an isError result: the API's message, never an
// internal cause (which is logged instead).
func refusal(ctx context.Context, err error) error {
	return errors.New(apperr.Report(ctx, err).Message)
}

// asContent is a tool's structuredContent: a message as the REST mirror writes
// it, anything else as JSON.
func asContent(out any) (json.RawMessage, error) {
	if m, ok := out.(proto.Message); ok {
		return render.AppendREST(nil, m)
	}
	return json.Marshal(out)
}

// decode reads a tool's arguments (already checked against its input
// schema by the SDK) into T.
func decode[T any](args json.RawMessage) (T, error) {
	var v T
	if len(args) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(args, &v); err != nil {
		return v, apperr.Invalid("arguments: %s", err)
	}
	return v, nil
}

// direct is the run of a tool whose arguments are fields of its request under
// their API names: they are read straight into the request (protojson, as the
// API reads it), set fills in what the caller decides (such as the source),
// and fn is called.
func direct[Req proto.Message, Resp any](fn func(context.Context, Req) (Resp, error), set ...func(*auth.Principal, Req)) func(context.Context, *auth.Principal, json.RawMessage) (any, error) {
	return func(ctx context.Context, p *auth.Principal, args json.RawMessage) (any, error) {
		var zero Req
		req := zero.ProtoReflect().New().Interface().(Req)
		if len(args) > 0 {
			if err := protojson.Unmarshal(args, req); err != nil {
				return nil, apperr.Invalid("arguments: %s", err)
			}
		}
		for _, f := range set {
			f(p, req)
		}
		return input.Call(ctx, fn, req)
	}
}

// with is a tool's run over its arguments decoded into A.
func with[A any](fn func(ctx context.Context, p *auth.Principal, a A) (any, error)) func(context.Context, *auth.Principal, json.RawMessage) (any, error) {
	return func(ctx context.Context, p *auth.Principal, args json.RawMessage) (any, error) {
		a, err := decode[A](args)
		if err != nil {
			return nil, err
		}
		return fn(ctx, p, a)
	}
}
