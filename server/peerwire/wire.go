package peerwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// Call is one request to a peer as bytes: what a direct REST call sends and
// what the outbox stores (its payload is text, so both protocols render
// JSON here; a direct Connect call goes through connect-go, binary).
type Call struct {
	Method string
	URL    string
	Header map[string]string
	Body   []byte
}

// routes is the contract's table, read once: the REST route of each
// procedure is its first google.api.http binding.
var routes = sync.OnceValues(contract.Load)

// Encode renders msg as a call of procedure (its Connect name,
// "/switchboard.v1.NetworkRelayPeerService/ReceiveRelay") at origin: Connect
// with its JSON codec at the procedure's path, or the procedure's documented
// REST route with the proto JSON names (fields in the path template filled
// in; a route without a body takes the set fields in its query).
func (p Protocol) Encode(origin, procedure string, msg proto.Message) (Call, error) {
	origin = key(origin)
	body, err := compact(msg)
	if err != nil {
		return Call{}, err
	}
	if p == Connect {
		return Call{Method: http.MethodPost, URL: origin + procedure, Body: body,
			Header: map[string]string{"Content-Type": "application/json", "Connect-Protocol-Version": "1"}}, nil
	}
	b, err := binding(procedure)
	if err != nil {
		return Call{}, err
	}
	path, used, err := fill(b.Template, msg.ProtoReflect())
	if err != nil {
		return Call{}, fmt.Errorf("peerwire: %s: %w", procedure, err)
	}
	c := Call{Method: b.Method, URL: origin + path, Header: map[string]string{"Accept": "application/json"}}
	switch b.Body {
	case "*":
		c.Body = body
		c.Header["Content-Type"] = "application/json"
	case "":
		if q := query(msg.ProtoReflect(), used); len(q) > 0 {
			c.URL += "?" + q.Encode()
		}
	default:
		return Call{}, fmt.Errorf("peerwire: %s: a body of one field (%q) is not spoken", procedure, b.Body)
	}
	return c, nil
}

// Decode reads a peer's answer: a 2xx body into res (unknown fields
// ignored, REST's nulls as absent); anything else is the peer's refusal as
// the wire error a Connect client returns, with the code the answer carries
// (Connect) or its status stands for (REST, apperr.CodeOfStatus), so
// callers see no difference between the two.
func (p Protocol) Decode(status int, body []byte, res proto.Message) error {
	if status >= 200 && status < 300 {
		if len(body) == 0 || res == nil {
			return nil
		}
		return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, res)
	}
	var wire struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(body, &wire)
	code := apperr.CodeOfStatus(status)
	var named connect.Code
	// REST's code is the documented error code (ErrorInfo), not Connect's.
	if p == Connect && wire.Code != "" && named.UnmarshalText([]byte(wire.Code)) == nil {
		code = named
	}
	msg := wire.Message
	if msg == "" {
		msg = wire.Error
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return connect.NewWireError(code, errors.New(msg))
}

// compact is msg's proto JSON without the spaces protojson varies from
// build to build: a stored row reads the same whichever binary wrote it.
func compact(msg proto.Message) ([]byte, error) {
	body, err := protojson.Marshal(msg)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, body); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func binding(procedure string) (contract.Binding, error) {
	t, err := routes()
	if err != nil {
		return contract.Binding{}, err
	}
	proc, ok := t.ByName(procedure)
	if !ok || len(proc.Bindings) == 0 {
		return contract.Binding{}, fmt.Errorf("peerwire: %s has no REST route", procedure)
	}
	return proc.Bindings[0], nil
}

// fill puts msg's fields into the template's {field} segments.
func fill(template string, msg protoreflect.Message) (string, map[string]bool, error) {
	used := map[string]bool{}
	var out strings.Builder
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			out.WriteString(template)
			return out.String(), used, nil
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			return "", nil, fmt.Errorf("unclosed variable in %q", template)
		}
		name, _, _ := strings.Cut(template[open+1:open+end], "=")
		fd := msg.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
			return "", nil, fmt.Errorf("path variable %q is not a string field", name)
		}
		out.WriteString(template[:open])
		out.WriteString(url.PathEscape(msg.Get(fd).String()))
		used[name] = true
		template = template[open+end+1:]
	}
}

// query is msg's set scalar fields outside the path, by their JSON names.
func query(msg protoreflect.Message, used map[string]bool) url.Values {
	q := url.Values{}
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if used[string(fd.Name())] || fd.Kind() == protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			for i := range v.List().Len() {
				q.Add(fd.JSONName(), fmt.Sprint(v.List().Get(i).Interface()))
			}
			return true
		}
		if fd.Kind() == protoreflect.EnumKind {
			q.Set(fd.JSONName(), fmt.Sprint(v.Enum()))
			return true
		}
		q.Set(fd.JSONName(), fmt.Sprint(v.Interface()))
		return true
	})
	return q
}

// headerKey holds the headers a caller set for a call (WithHeader), which
// the REST clients send; connect-go reads its own copy.
type headerKey struct{}

// WithHeader is ctx for one call to a peer that sends header name with
// value, over either protocol (a credential: X-Federation-Token, the
// spoke's secret).
func WithHeader(ctx context.Context, name, value string) context.Context {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	if h == nil {
		var info connect.CallInfo
		ctx, info = connect.NewClientContext(ctx)
		h = info.RequestHeader()
		ctx = context.WithValue(ctx, headerKey{}, h)
	}
	h.Set(name, value)
	return ctx
}
