package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// validator stops at the first violation: one refusal names one field. It is
// made on first use: building its CEL environment took ~7 ms of every start.
var validator = sync.OnceValue(mustValidator)

func mustValidator() protovalidate.Validator {
	v, err := protovalidate.New(protovalidate.WithFailFast())
	if err != nil {
		panic(fmt.Sprintf("input: protovalidate: %v", err))
	}
	return v
}

// Check refuses m when any string in it is not text (Text), a string naming a
// vocabulary holds a value outside it (internal/vocab), or a field rule of
// the contract fails; nil m passes.
func Check(m proto.Message) error {
	if m == nil {
		return nil
	}
	// One walk for both string rules. A value outside its vocabulary is
	// refused only after the limits pass: an over-long value is refused as
	// such.
	var outside error
	both := func(fd protoreflect.FieldDescriptor, s string, at where) error {
		if err := textRule(fd, s, at); err != nil {
			return err
		}
		if outside == nil {
			outside = vocabularyRule(fd, s, at)
		}
		return nil
	}
	if err := walkStrings(m.ProtoReflect(), "", both); err != nil {
		return err
	}
	err := validator().Validate(m)
	if err == nil {
		return outside
	}
	var verr *protovalidate.ValidationError
	if errors.As(err, &verr) && len(verr.Violations) > 0 {
		return refusal(m.ProtoReflect().Descriptor(), verr.Violations[0])
	}
	return apperr.Internal(fmt.Errorf("input: validate %s: %w", m.ProtoReflect().Descriptor().FullName(), err))
}

// Text reports whether s is valid UTF-8 without NUL, the one rule for every
// piece of text the server accepts (bodies, paths, queries, headers).
func Text(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// NotText is the refusal of a value that is not text, naming where it was.
func NotText(name string) error {
	return apperr.Invalid("%s must be valid UTF-8 without NUL characters", name)
}

// Call checks req as both transports do and calls the service method: how
// the doors that call services directly (MCP tools, the assistant's action
// tags) pass the same boundary as the API.
func Call[Req proto.Message, Resp any](ctx context.Context, fn func(context.Context, Req) (Resp, error), req Req) (Resp, error) {
	if err := Check(req); err != nil {
		var zero Resp
		return zero, err
	}
	return fn(ctx, req)
}

// every reports all of a message's violations, for CheckOnly.
var every = sync.OnceValue(func() protovalidate.Validator {
	v, err := protovalidate.New()
	if err != nil {
		panic(fmt.Sprintf("input: protovalidate: %v", err))
	}
	return v
})

// CheckOnly is Check for a message of which only the fields named (their
// first path element, a proto name) are set, such as a REST route's path
// parameters before the body is read: the rules of the other fields, which
// the body fills, are not this check's.
func CheckOnly(m proto.Message, fields []string) error {
	if err := walkStrings(m.ProtoReflect(), "", func(fd protoreflect.FieldDescriptor, s string, at where) error {
		if err := textRule(fd, s, at); err != nil {
			return err
		}
		return vocabularyRule(fd, s, at)
	}); err != nil {
		return err
	}
	err := every().Validate(m)
	var verr *protovalidate.ValidationError
	if err == nil || !errors.As(err, &verr) {
		return err
	}
	md := m.ProtoReflect().Descriptor()
	for _, v := range verr.Violations {
		els := v.Proto.GetField().GetElements()
		if len(els) > 0 && slices.Contains(fields, els[0].GetFieldName()) {
			return refusal(md, v)
		}
	}
	return nil
}
