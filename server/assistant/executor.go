// Package assistant is the operator's assistant: its action tags, run
// through the same services as the API (docs/decisions.md "The assistant
// (issue 16)"). tags parses them out of a reply; Executor runs them.
package assistant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/provenance"
	"github.com/switchboard-hq/switchboard/server/render"
)

// Services are the API's own services the tags call.
type Services struct {
	Queue      switchboardv1connect.QueueServiceHandler
	Kanban     switchboardv1connect.KanbanServiceHandler
	Settings   switchboardv1connect.SettingsServiceHandler
	Store      switchboardv1connect.StoreServiceHandler
	Executions switchboardv1connect.StoreExecutionServiceHandler
	// Links links the operator's cards (card_links.proto).
	Links switchboardv1connect.CardLinkServiceHandler
	// Checklists appends checklist items (the board's AppendChecklist).
	Checklists Checklists
	// Tasks splits items into subtasks (the queue's Decompose).
	Tasks Decomposer
	// Relays and Jobs are the operator network's relay and job services.
	Relays switchboardv1connect.NetworkRelayServiceHandler
	Jobs   switchboardv1connect.NetworkExchangeServiceHandler
	// Projects and Teams are issue 28's project and team services
	// (server/groups); nil leaves their tags out.
	Projects switchboardv1connect.ProjectServiceHandler
	Teams    switchboardv1connect.TeamServiceHandler
	// Economy is the task economy's contracts (server/economy/operator);
	// nil leaves its tags out.
	Economy switchboardv1connect.EconomyServiceHandler
}

// Inventory reads an account's handlers for the capability gate.
type Inventory interface {
	Inventory(ctx context.Context, userID string) (capgate.Inventory, error)
}

// Config is what the executor is built with.
type Config struct {
	Services
	Gate   Inventory
	Logger *slog.Logger
	// LLM draws generate_image's images (nil: the tag fails, saying so);
	// DB and Now store them as documents.
	LLM *llm.Client
	DB  *db.DB
	Now func() time.Time
}

// Executor runs action tags. It is the AssistantService too.
type Executor struct {
	Config
	specs map[string]*spec
	order []string
	runs  runs
}

// New builds the executor with every tag whose system exists. Close stops
// the store-agent runs it started.
func New(cfg Config) *Executor {
	e := &Executor{Config: cfg, specs: map[string]*spec{}}
	e.runs.ctx, e.runs.cancel = context.WithCancel(context.Background())
	for _, s := range e.tagSpecs() {
		e.specs[s.name] = s
		e.order = append(e.order, s.name)
	}
	// The mention list's order: the documented tags as the documents list
	// them, then the network's.
	rank := func(name string) int {
		if i := slices.Index(Documented, name); i >= 0 {
			return i
		}
		return len(Documented)
	}
	slices.SortStableFunc(e.order, func(a, b string) int { return rank(a) - rank(b) })
	return e
}

// spec is one tag: its name, what it does (the mention list's words), and
// its run. What it may do, and so whether it waits for the operator after
// outside text, is its entry in tagEffects.
type spec struct {
	name, description string
	run               func(ctx context.Context, p *auth.Principal, body json.RawMessage) (proto.Message, error)
}

// Commands are the available tags, in order, as the mention list offers
// them.
func (e *Executor) Commands() []chat.Command {
	out := make([]chat.Command, len(e.order))
	for i, name := range e.order {
		out[i] = chat.Command{Name: name, Description: e.specs[name].description}
	}
	return out
}

// errNotAvailable is a documented tag whose system does not exist here yet.
func errNotAvailable(name string) error {
	return &apperr.Error{Kind: apperr.KindUnimplemented, Message: name + " is not available on this instance"}
}

// Run runs a reply's tags in order, each through its service in its own
// transaction: a failing tag does not undo the earlier ones and does not
// stop the later ones. With outside set (the reply's prompt held text from
// outside the operator), a risky tag is not run and comes back waiting for
// confirmation. The caller is the principal in ctx, as for the API.
func (e *Executor) Run(ctx context.Context, found []tags.Tag, outside bool) []*switchboardv1.ExecutedTag {
	out := make([]*switchboardv1.ExecutedTag, 0, len(found))
	p, err := auth.RequirePrincipal(ctx)
	// What the tags write is the assistant's: outside words when the prompt
	// held any (a later prompt shows them as data).
	writer := provenance.Mark{Kind: provenance.Assistant}
	if outside {
		writer.Kind = provenance.AssistantOutside
	}
	ctx = provenance.With(ctx, writer)
	for _, t := range found {
		switch {
		case err != nil:
			out = append(out, failed(ctx, t.Name, err))
		case t.Err != nil:
			out = append(out, failed(ctx, t.Name, apperr.Invalid("%s", t.Err)))
		default:
			out = append(out, e.one(ctx, p, t.Name, t.Body, outside))
		}
	}
	return out
}

func (e *Executor) one(ctx context.Context, p *auth.Principal, name string, body json.RawMessage, outside bool) *switchboardv1.ExecutedTag {
	s, ok := e.specs[name]
	if !ok {
		return failed(ctx, name, e.unknown(name))
	}
	if outside {
		fx, err := e.effectsOf(ctx, p, name, body)
		if err != nil {
			return failed(ctx, name, err)
		}
		if fx != 0 {
			b := &structpb.Struct{}
			if err := b.UnmarshalJSON(body); err != nil {
				return failed(ctx, name, apperr.Invalid("%s: the body must be a JSON object", name))
			}
			return &switchboardv1.ExecutedTag{Tag: name, NeedsConfirmation: true, Body: b}
		}
	}
	done, err := s.execute(ctx, p, body)
	if err != nil {
		return failed(ctx, name, err)
	}
	return done
}

// execute runs the tag and renders its answer.
func (s *spec) execute(ctx context.Context, p *auth.Principal, body json.RawMessage) (*switchboardv1.ExecutedTag, error) {
	res, err := s.run(ctx, p, body)
	if err != nil {
		return nil, err
	}
	r, err := asStruct(res)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	return &switchboardv1.ExecutedTag{Tag: s.name, Ok: true, Result: r}, nil
}

// unknown tells a documented tag not built yet from a name no document has.
func (e *Executor) unknown(name string) error {
	if slices.Contains(Documented, name) {
		return errNotAvailable(name)
	}
	return apperr.Invalid("%s is not an action tag", name)
}

// failed is a tag's failure in the words the API would answer it; an
// internal cause is logged by the API's reporter, never shown.
func failed(ctx context.Context, name string, err error) *switchboardv1.ExecutedTag {
	msg := apperr.Report(ctx, err).Message
	return &switchboardv1.ExecutedTag{Tag: name, Error: &msg}
}

// ExecuteTag runs one tag for the operator, who is the one approving: no
// confirmation is asked. A refusal is the service's own error.
func (e *Executor) ExecuteTag(ctx context.Context, req *switchboardv1.ExecuteTagRequest) (*switchboardv1.ExecuteTagResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	s, ok := e.specs[req.GetTag()]
	if !ok {
		return nil, e.unknown(req.GetTag())
	}
	// The operator runs it, or approves it having seen its body: an inside
	// tag.
	ctx = provenance.With(ctx, provenance.Mark{Kind: provenance.Assistant})
	body := []byte("{}")
	if req.GetBody() != nil {
		if body, err = req.GetBody().MarshalJSON(); err != nil {
			return nil, apperr.Invalid("body: %s", err)
		}
	}
	done, err := s.execute(ctx, p, body)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ExecuteTagResponse{Tag: done}, nil
}

// asStruct is a service's answer as the REST mirror renders it.
func asStruct(m proto.Message) (*structpb.Struct, error) {
	raw, err := render.AppendREST(nil, m)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	return s, s.UnmarshalJSON(raw)
}

// call is input.Call answering the message as a proto.Message, the
// answer every tag gives.
func call[Req proto.Message, Resp proto.Message](ctx context.Context, fn func(context.Context, Req) (Resp, error), req Req) (proto.Message, error) {
	return input.Call(ctx, fn, req)
}

// decode reads a tag's body strictly: an unknown key is refused, naming it,
// so a misspelt key is not silently dropped.
func decode[T any](name string, body json.RawMessage) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return v, apperr.Invalid("%s: the body is not valid JSON", name)
		}
		return v, apperr.Invalid("%s: %s", name, err.Error())
	}
	return v, nil
}
