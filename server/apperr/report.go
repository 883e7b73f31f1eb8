package apperr

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Report turns any error into the client-facing *Error and logs the
// cause of internal ones, with the request id, so that no cause reaches a client.
func Report(ctx context.Context, err error) *Error {
	e := classify(err)
	if e.Kind == KindInternal {
		slog.ErrorContext(ctx, "internal error", "err", err)
	}
	return e
}

// classify also understands the gRPC statuses grpc-gateway makes for requests it
// cannot decode (bad JSON, a path or query value of the wrong type).
func classify(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return fromStatus(kindOfConnect(ce.Code()), ce.Message(), err)
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unknown {
		return fromStatus(kindOfGRPC(st.Code()), cleanDecodeMessage(st.Message()), err)
	}
	return From(err) // storage errors are mapped there, the rest is internal
}

// fromStatus keeps a status's message for the kinds a client may read about,
// never for internal ones.
func fromStatus(k Kind, msg string, cause error) *Error {
	if k == KindInternal {
		return Internal(cause)
	}
	return &Error{Kind: k, Message: msg}
}

// cleanDecodeMessage is the last guard for the gateway's own refusals: the
// decoders word theirs (input.JSONBodyError, input.QueryError), and protobuf's
// wording never reaches a client (docs/decisions.md "Errors").
func cleanDecodeMessage(msg string) string {
	switch {
	case strings.HasPrefix(msg, "proto:"), strings.Contains(msg, "(line "):
		return "body does not match the request"
	case strings.HasPrefix(msg, "missing parameter "):
		return strings.TrimPrefix(msg, "missing parameter ") + " is required"
	}
	return msg
}

func kindOfGRPC(c codes.Code) Kind {
	switch c {
	case codes.InvalidArgument, codes.OutOfRange:
		return KindInvalid
	case codes.NotFound:
		return KindNotFound
	case codes.Unauthenticated:
		return KindUnauthenticated
	case codes.PermissionDenied:
		return KindForbidden
	case codes.AlreadyExists:
		return KindConflict
	case codes.FailedPrecondition:
		return KindIllegalMove
	case codes.ResourceExhausted:
		return KindRateLimited
	case codes.Unavailable:
		return KindUnavailable
	case codes.Unimplemented:
		return KindUnimplemented
	}
	return KindInternal
}

func kindOfConnect(c connect.Code) Kind { return kindOfGRPC(codes.Code(c)) }
