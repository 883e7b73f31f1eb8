package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/input"
)

// JSON-RPC 2.0 error codes (JSON-RPC and the A2A specification).
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeBadParams      = -32602
	codeInternal       = -32603
	codeServer         = -32000 // the credential of a stream lapsed
	codeTaskNotFound   = -32001
	codeNotCancelable  = -32002
	codeUnsupported    = -32004 // UnsupportedOperationError: subscribing to a final task (1.0)
	codeNoVersion      = -32009 // VersionNotSupportedError
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// explained is e as a method of fam answers it: v0.3 and legacy errors carry
// the reason again as data.error, where the A2A Go SDK's client reads it
// (without it a2a-go reports only the code's generic text, "invalid
// params"); v1.0 defines data as a list of typed details, so its errors
// carry none.
func explained(e *rpcError, fam family) *rpcError {
	if fam == v10 || e == nil {
		return e
	}
	out := *e
	out.Data = map[string]any{"error": e.Message}
	return &out
}

func (e *rpcError) Error() string { return e.Message }

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// VersionHeader names the protocol version a client speaks: 1.0 narrows the
// methods to v1.0's; without it (or with 0.3) every family answers, as the
// v1.0 names cannot be mistaken for the others (RULINGS, Reconciliation 15).
const VersionHeader = "A2A-Version"

// method is one JSON-RPC method of a family.
type method struct {
	send   bool // counts in the heavy rate class
	stream bool // answers Server-Sent Events
	call   func(ctx context.Context, s *Service, params json.RawMessage) (any, error)
	open   func(ctx context.Context, s *Service, params json.RawMessage) (*view, error)
	fam    family
}

// methods are the families' methods by name: methodsV1 under A2A-Version:
// 1.0, methodsAll otherwise.
var (
	methodsV1 = map[string]method{
		"SendMessage":          {send: true, fam: v10, call: sendWith(decodeV1Send, v10, func(v *view, _ *int) any { return map[string]any{"task": taskV1(v, nil)} })},
		"GetTask":              {fam: v10, call: queryWith(func(s *Service, ctx context.Context, id string) (*view, error) { return s.Get(ctx, id) }, func(v *view, n *int) any { return taskV1(v, n) })},
		"CancelTask":           {fam: v10, call: queryWith(func(s *Service, ctx context.Context, id string) (*view, error) { return s.Cancel(ctx, id) }, func(v *view, n *int) any { return taskV1(v, n) })},
		"SendStreamingMessage": {send: true, stream: true, fam: v10, open: openSend(decodeV1Send, v10)},
		"SubscribeToTask":      {stream: true, fam: v10, open: openLiveTask},
		"ListTasks":            {fam: v10, call: listTasks},
	}
	methodsOld = map[string]method{
		"tasks/send":        {send: true, fam: legacy, call: sendWith(func(raw json.RawMessage) (*send, error) { return decodeLegacySend(raw, false) }, legacy, func(v *view, _ *int) any { return taskLegacy(v, nil) })},
		"tasks/respond":     {send: true, fam: legacy, call: sendWith(func(raw json.RawMessage) (*send, error) { return decodeLegacySend(raw, true) }, legacy, func(v *view, _ *int) any { return taskLegacy(v, nil) })},
		"tasks/get":         {fam: v03, call: getEither},
		"message/send":      {send: true, fam: v03, call: sendWith(decodeV03Send, v03, func(v *view, _ *int) any { return taskV03(v, nil) })},
		"tasks/cancel":      {fam: v03, call: queryWith(func(s *Service, ctx context.Context, id string) (*view, error) { return s.Cancel(ctx, id) }, func(v *view, n *int) any { return taskV03(v, n) })},
		"message/stream":    {send: true, stream: true, fam: v03, open: openSend(decodeV03Send, v03)},
		"tasks/resubscribe": {stream: true, fam: v03, open: openTask},
	}
	methodsAll = union(methodsOld, methodsV1)
)

func union(tables ...map[string]method) map[string]method {
	out := map[string]method{}
	for _, t := range tables {
		for name, m := range t {
			if _, taken := out[name]; taken {
				panic("a2a: two families name the method " + name)
			}
			out[name] = m
		}
	}
	return out
}

// methodsFor is the method table of the version a request names (v1 is
// whether it is 1.0's alone); a version this server does not speak is -32009.
func methodsFor(r *http.Request) (table map[string]method, v1 bool, e *rpcError) {
	switch v := requestedVersion(r); v {
	case "1.0":
		return methodsV1, true, nil
	case "", "0.3":
		return methodsAll, false, nil
	default:
		return nil, false, &rpcError{Code: codeNoVersion, Message: "version not supported: A2A-Version " + strconv.Quote(v) + "; this agent speaks 1.0 and 0.3"}
	}
}

func sendWith(dec func(json.RawMessage) (*send, error), fam family, render func(*view, *int) any) func(context.Context, *Service, json.RawMessage) (any, error) {
	return func(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
		in, err := dec(raw)
		if err != nil {
			return nil, err
		}
		v, err := s.Send(ctx, fam, in)
		if err != nil {
			return nil, err
		}
		return render(v, nil), nil
	}
}

func queryWith(run func(*Service, context.Context, string) (*view, error), render func(*view, *int) any) func(context.Context, *Service, json.RawMessage) (any, error) {
	return func(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
		q, err := decodeQuery(raw)
		if err != nil {
			return nil, err
		}
		v, err := run(s, ctx, q.ID)
		if err != nil {
			return nil, err
		}
		return render(v, q.HistoryLength), nil
	}
}

// getEither is tasks/get of both the legacy and the v0.3 family: a task a
// legacy tasks/send created answers in the document's shape, any other in
// v0.3's (docs/decisions.md "A2A (issue 13)").
func getEither(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return nil, err
	}
	v, err := s.Get(ctx, q.ID)
	if err != nil {
		return nil, err
	}
	if family(v.rec.Protocol) == legacy {
		return taskLegacy(v, q.HistoryLength), nil
	}
	return taskV03(v, q.HistoryLength), nil
}

func openSend(dec func(json.RawMessage) (*send, error), fam family) func(context.Context, *Service, json.RawMessage) (*view, error) {
	return func(ctx context.Context, s *Service, raw json.RawMessage) (*view, error) {
		in, err := dec(raw)
		if err != nil {
			return nil, err
		}
		return s.Send(ctx, fam, in)
	}
}

func openTask(ctx context.Context, s *Service, raw json.RawMessage) (*view, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, q.ID)
}

// openLiveTask is v1.0's SubscribeToTask: a task in a final state has no
// updates to follow, which v1.0 answers UnsupportedOperationError (v0.3's
// tasks/resubscribe answers the final task and ends).
func openLiveTask(ctx context.Context, s *Service, raw json.RawMessage) (*view, error) {
	v, err := openTask(ctx, s, raw)
	if err != nil {
		return nil, err
	}
	if v.state.Terminal() {
		return nil, &rpcError{Code: codeUnsupported, Message: fmt.Sprintf("unsupported operation: task %q is %s and has no updates to subscribe to", v.rec.TaskID, v.state)}
	}
	return v, nil
}

// Serve serves POST /api/a2a behind the gate (key, scope a2a): JSON-RPC
// errors are written here; what is refused before JSON-RPC (the method, an
// unreadable body, a cap, the rate class) is returned for the transport to
// write as the REST error body.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return &apperr.Error{Kind: apperr.KindMethodNotAllowed,
			Message: "method " + r.Method + " is not allowed on " + r.URL.Path + "; JSON-RPC calls are POSTs"}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return apperr.Invalid("could not read request body")
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		if json.Valid(body) {
			// JSON, but no request object: an array (a batch, which this
			// endpoint does not take) or a member of the wrong type.
			writeRPC(w, nil, nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: the body must be one JSON-RPC request object (batches are not supported)"})
			return nil
		}
		writeRPC(w, nil, nil, &rpcError{Code: codeParse, Message: "parse error: the body is not valid JSON"})
		return nil
	}
	if !validID(req.ID) {
		// JSON-RPC 2.0: an id is a string, a number or null; the answer to
		// an invalid one cannot echo it.
		writeRPC(w, nil, nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: id must be a string, a number or null"})
		return nil
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		writeRPC(w, req.ID, nil, &rpcError{Code: codeInvalidRequest, Message: `invalid request: jsonrpc must be "2.0" and method is required`})
		return nil
	}
	table, v1, verr := methodsFor(r)
	if verr != nil {
		writeRPC(w, req.ID, nil, verr)
		return nil
	}
	m, ok := table[req.Method]
	if !ok {
		writeRPC(w, req.ID, nil, noMethod(req.Method, v1))
		return nil
	}
	if err := textOnly(body); err != nil {
		refuse(w, req, m, &rpcError{Code: codeBadParams, Message: err.Error()})
		return nil
	}
	if m.stream && s.OpenStream != nil {
		// Before the heavy charge: a stream refused by its cap costs none.
		release, err := s.OpenStream(r.Context())
		if err != nil {
			return err
		}
		defer release()
	}
	if m.send && s.Charge != nil {
		if err := s.Charge(w, r, "heavy"); err != nil {
			return err
		}
	}
	if m.stream {
		s.stream(w, r, req, m)
		return nil
	}
	res, err := m.call(r.Context(), s, req.Params)
	if err != nil {
		refuse(w, req, m, s.toRPC(r.Context(), err))
		return nil
	}
	writeRPC(w, req.ID, res, nil)
	return nil
}

// validID reports whether id is absent or a JSON string, number or null.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return true
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return bytes.Equal(id, []byte("null"))
}

// noMethod is -32601; a v0.3 or legacy name under A2A-Version: 1.0 is told
// where it went.
func noMethod(name string, v1 bool) *rpcError {
	e := &rpcError{Code: codeNoMethod, Message: "method not found: " + name}
	if _, other := methodsOld[name]; other && v1 {
		e.Message += "; A2A-Version 1.0 names its methods SendMessage, GetTask, ListTasks, CancelTask, SendStreamingMessage and SubscribeToTask"
	}
	return e
}

// refuse answers a refusal of a recognised method, explained for its
// family: a streaming method's as the stream's one event, so a client reading Server-Sent Events reads it as
// the error it is (docs/decisions.md "A2A and MCP by the book").
func refuse(w http.ResponseWriter, req request, m method, e *rpcError) {
	if !m.stream {
		writeRPC(w, req.ID, nil, explained(e, m.fam))
		return
	}
	events.SSEHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	out := &sse{w: w, rc: http.NewResponseController(w), id: req.ID, fam: m.fam}
	_ = out.failure(e)
}

// textOnly refuses a body that is not valid UTF-8 or holds a NUL in any
// string (RULINGS "Input at the boundary"): the JSON decoder would turn bad
// bytes into U+FFFD and keep a NUL. A raw NUL byte is no valid JSON (the
// decoder refuses it), so a NUL can only come as the escape \u0000, found
// here without decoding the body twice.
func textOnly(body []byte) error {
	if err := input.JSONError(body); err != nil {
		return err
	}
	if hasNULEscape(body) {
		return input.NotText("a string in params")
	}
	return nil
}

// hasNULEscape reports whether body holds the JSON escape \u0000: a
// backslash-u-0000 whose backslash is not itself escaped (an odd run of
// backslashes ends at it).
func hasNULEscape(body []byte) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(`u0000`))
		if j < 0 {
			return false
		}
		at := i + j
		run := 0
		for k := at - 1; k >= 0 && body[k] == '\\'; k-- {
			run++
		}
		if run%2 == 1 {
			return true
		}
		i = at + 1
	}
}

// toRPC maps a refusal to its JSON-RPC error; unexpected failures are logged
// and answered -32603 without detail.
func (s *Service) toRPC(ctx context.Context, err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	var bp errParams
	if errors.As(err, &bp) {
		return &rpcError{Code: codeBadParams, Message: "invalid params: " + bp.reason}
	}
	e := apperr.Report(ctx, err)
	switch e.Kind {
	case apperr.KindInvalid, apperr.KindIllegalMove, apperr.KindTooLarge:
		return &rpcError{Code: codeBadParams, Message: "invalid params: " + e.Message}
	case apperr.KindConflict:
		// Two sends naming one new legacy task id at once: one wins.
		return &rpcError{Code: codeBadParams, Message: "invalid params: the task already exists; send to it with tasks/respond"}
	case apperr.KindNotFound:
		return &rpcError{Code: codeTaskNotFound, Message: e.Message}
	case apperr.KindUnauthenticated, apperr.KindForbidden:
		return &rpcError{Code: codeServer, Message: e.Message}
	}
	return &rpcError{Code: codeInternal, Message: "internal error"}
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, e *rpcError) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(response{JSONRPC: "2.0", ID: id, Result: result, Error: e})
}
