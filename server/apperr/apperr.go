// Package apperr is the one vocabulary of failure shared by every service: domain
// code returns these errors and the transports map them, here and nowhere else,
// to Connect codes and HTTP statuses (docs/decisions.md "Errors").
package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Kind classifies a failure; each kind has one HTTP status and one Connect code.
type Kind uint8

// The kinds, in the order of the status table of docs/decisions.md "Errors".
const (
	KindInternal Kind = iota
	KindInvalid
	KindIllegalMove
	KindUnauthenticated
	KindPaymentRequired
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindIntegrationRequired
	KindRateLimited
	KindUnavailable
	KindMethodNotAllowed
	KindUnimplemented
	// KindUnprocessable: a well-formed request that cannot be taken as it is,
	// such as an Idempotency-Key reused with a different request.
	KindUnprocessable
	// KindUnsupportedMedia: a body of a type the route does not take (a
	// voice recording that is not WebM, MP4 or WAV).
	KindUnsupportedMedia
	// KindGone: a thing that existed and is no more usable, such as an
	// expired invite (410; failed_precondition with the code in the message).
	KindGone
)

type mapping struct {
	status int
	code   connect.Code
}

var table = map[Kind]mapping{
	KindInternal:            {http.StatusInternalServerError, connect.CodeInternal},
	KindInvalid:             {http.StatusBadRequest, connect.CodeInvalidArgument},
	KindIllegalMove:         {http.StatusBadRequest, connect.CodeFailedPrecondition},
	KindUnauthenticated:     {http.StatusUnauthorized, connect.CodeUnauthenticated},
	KindPaymentRequired:     {http.StatusPaymentRequired, connect.CodeFailedPrecondition},
	KindForbidden:           {http.StatusForbidden, connect.CodePermissionDenied},
	KindNotFound:            {http.StatusNotFound, connect.CodeNotFound},
	KindConflict:            {http.StatusConflict, connect.CodeAlreadyExists},
	KindTooLarge:            {http.StatusRequestEntityTooLarge, connect.CodeResourceExhausted},
	KindIntegrationRequired: {http.StatusUnprocessableEntity, connect.CodeFailedPrecondition},
	KindRateLimited:         {http.StatusTooManyRequests, connect.CodeResourceExhausted},
	KindUnavailable:         {http.StatusServiceUnavailable, connect.CodeUnavailable},
	KindMethodNotAllowed:    {http.StatusMethodNotAllowed, connect.CodeUnimplemented},
	KindUnimplemented:       {http.StatusNotImplemented, connect.CodeUnimplemented},
	KindUnprocessable:       {http.StatusUnprocessableEntity, connect.CodeFailedPrecondition},
	KindUnsupportedMedia:    {http.StatusUnsupportedMediaType, connect.CodeInvalidArgument},
	KindGone:                {http.StatusGone, connect.CodeFailedPrecondition},
}

// Error is a failure a client may see. Message is shown as is; Cause is logged,
// never shown.
type Error struct {
	Kind    Kind
	Message string
	// Detail carries the machine-readable code (PAYMENT_REQUIRED, …) and its
	// extras (price, requiredIntegration, inviteId): a Connect error detail
	// as is, flattened beside "error" in the REST body (errors.proto).
	Detail *switchboardv1.ErrorInfo
	// RetryAfter is set on rate-limit refusals.
	RetryAfter time.Duration
	Cause      error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// HTTPStatus is the REST status of the error's kind.
func (e *Error) HTTPStatus() int { return table[e.Kind].status }

// ConnectCode is the Connect code of the error's kind.
func (e *Error) ConnectCode() connect.Code { return table[e.Kind].code }

func newf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Invalid reports bad input.
func Invalid(format string, args ...any) *Error { return newf(KindInvalid, format, args...) }

// IllegalMove reports a state change the rules refuse.
func IllegalMove(format string, args ...any) *Error { return newf(KindIllegalMove, format, args...) }

// Unauthenticated reports a missing or unknown credential.
func Unauthenticated(format string, args ...any) *Error {
	return newf(KindUnauthenticated, format, args...)
}

// Forbidden reports a credential that is known but may not do this.
func Forbidden(format string, args ...any) *Error { return newf(KindForbidden, format, args...) }

// NotFound reports a record that does not exist for the caller.
func NotFound(format string, args ...any) *Error { return newf(KindNotFound, format, args...) }

// Conflict reports a clash with an existing record.
func Conflict(format string, args ...any) *Error { return newf(KindConflict, format, args...) }

// TooLarge reports a request body over its limit.
func TooLarge(format string, args ...any) *Error { return newf(KindTooLarge, format, args...) }

// RateLimited reports a caller over its limit, saying in words what
// Retry-After says in digits.
func RateLimited(retryAfter time.Duration) *Error {
	return &Error{Kind: KindRateLimited, RetryAfter: retryAfter,
		Message: fmt.Sprintf("rate limit exceeded: try again in %d seconds", RetryAfterSeconds(retryAfter))}
}

// RetryAfterSeconds is the Retry-After value of d: whole seconds, rounded up,
// at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// OneOf refuses a value outside an enumerated set (docs/decisions.md "Wire values":
// enumerations are validated strings), naming the allowed values.
func OneOf(field, value string, allowed []string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	return Invalid("%s %q is not one of %s", field, value, strings.Join(allowed, ", "))
}

// Internal wraps an unexpected failure; clients see only "internal error".
func Internal(cause error) *Error {
	return &Error{Kind: KindInternal, Message: "internal error", Cause: cause}
}

// From returns err as an *Error: typed errors as they are, storage errors
// mapped by Wrap's rules, anything unrecognised as internal.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if e := fromStorage(err); e != nil {
		return e
	}
	return Internal(err)
}

// CodeOfStatus is the Connect code a REST answer's status stands for, read
// back from the table (the first kind in the table's order that writes the
// status: 400 is InvalidArgument, not FailedPrecondition), so a peer called
// over REST refuses in the same codes as one called over Connect. A status
// no kind writes is Unavailable when it is a 5xx (the peer failed) and
// InvalidArgument otherwise.
func CodeOfStatus(status int) connect.Code {
	for k := KindInternal; k <= KindUnsupportedMedia; k++ {
		if table[k].status == status {
			return table[k].code
		}
	}
	if status >= http.StatusInternalServerError {
		return connect.CodeUnavailable
	}
	return connect.CodeInvalidArgument
}
