package llm

import (
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"
)

// UnreachableError is a provider that could not be reached at all: its host
// did not resolve, the connection was refused or the dial timed out, so
// nothing was sent. URL is the configured base URL without user information
// or query, what an operator reads to fix the configuration; the key is
// never part of it.
type UnreachableError struct {
	URL string
	// Reason is the cause in a few words ("the connection was refused").
	Reason string
	Err    error
}

func (e *UnreachableError) Error() string {
	return "llm: the provider at " + e.URL + " could not be reached: " + e.Reason
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// BaseURL is the configured base URL as it may be shown: without user
// information, query or fragment.
func (c *Client) BaseURL() string {
	if c == nil {
		return ""
	}
	return shownURL(c.cfg.BaseURL)
}

func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the configured --llm-base-url"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// unreachable answers err as an *UnreachableError when it is a failure to
// reach the provider (resolving or dialling its host), or nil.
func (c *Client) unreachable(err error) error {
	var dns *net.DNSError
	var op *net.OpError
	reason := ""
	switch {
	case errors.As(err, &dns):
		reason = "its host name did not resolve"
	case errors.As(err, &op) && op.Op == "dial":
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			reason = "the connection was refused"
		case errors.Is(err, os.ErrDeadlineExceeded) || op.Timeout():
			reason = "the connection timed out"
		default:
			reason = "the connection failed"
		}
	default:
		return nil
	}
	return &UnreachableError{URL: shownURL(c.cfg.BaseURL), Reason: reason, Err: err}
}
