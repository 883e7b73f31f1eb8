package apperr

import (
	"errors"
	"strconv"

	"connectrpc.com/connect"
)

// ToConnect renders err in Connect's error shape with the same message text the
// REST body carries, the documented code as an ErrorInfo detail, and Retry-After.
//
// An Error is rendered as itself even when its Cause is a Connect error (a
// peer's refusal this instance rewords: "the peer at … refused: …"), as the
// REST body renders it; only a Connect error that is not inside one passes
// as it is.
func ToConnect(err error) *connect.Error {
	var e *Error
	var ce *connect.Error
	if !errors.As(err, &e) && errors.As(err, &ce) {
		return ce
	}
	e = From(err)
	out := connect.NewError(e.ConnectCode(), errors.New(e.Message))
	if e.Detail != nil {
		if d, derr := connect.NewErrorDetail(e.Detail); derr == nil {
			out.AddDetail(d)
		}
	}
	if e.RetryAfter > 0 {
		out.Meta().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(e.RetryAfter)))
	}
	return out
}
