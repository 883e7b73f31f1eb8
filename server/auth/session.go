package auth

import (
	"context"
	"net/http"
	"time"
)

// A service says that a request opened or ended a session; the transport
// hands it to the client as the session cookie (WithSessionSink), so the
// service sets no header.

type sessionSinkKey struct{}

// WithSessionSink is ctx where StartSession and EndSession reach sink: a
// token and its age in seconds, or "" and -1 to end it.
func WithSessionSink(ctx context.Context, sink func(token string, maxAge int)) context.Context {
	return context.WithValue(ctx, sessionSinkKey{}, sink)
}

// StartSession hands the client the new session token, valid for ttl.
// Outside a request (tests, jobs) it does nothing.
func StartSession(ctx context.Context, token string, ttl time.Duration) {
	if sink, ok := ctx.Value(sessionSinkKey{}).(func(string, int)); ok {
		sink(token, int(ttl.Seconds()))
	}
}

// EndSession tells the client to drop its session.
func EndSession(ctx context.Context) {
	if sink, ok := ctx.Value(sessionSinkKey{}).(func(string, int)); ok {
		sink("", -1)
	}
}

// Cookie is the session cookie holding token for maxAge seconds (a negative
// age deletes it): the dashboard's pages only, never readable by scripts,
// sent on top-level navigations from other sites but not on their requests.
func Cookie(token string, maxAge int, secure bool) *http.Cookie {
	return &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure,
	}
}
