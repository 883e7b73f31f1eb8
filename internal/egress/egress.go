// Package egress is the rule for outbound calls to addresses users supply
// (push-webhook targets now, agent endpoints later). docs/decisions.md "Store,
// federation, MCP, A2A": private, loopback and link-local addresses are refused
// unless the instance allows them. A URL is checked when it is saved, for a
// clear 400, and every connection again when it is dialled, because what a
// name resolves to can change in between (DNS rebinding).
package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// MaxURL bounds a target URL's length.
const MaxURL = 2048

// guardian denies every special-purpose range of the IANA registries (private,
// loopback, link-local, CGNAT, multicast, documentation, …) on any port.
var guardian = ssrf.New(ssrf.WithAnyPort())

// ErrRefused marks an address the policy refuses.
var ErrRefused = errors.New("private, loopback and link-local addresses are not allowed")

// Policy decides which addresses outbound calls may reach.
type Policy struct {
	// AllowPrivate lets calls reach any address (--allow-private-endpoints,
	// SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS): for tests on loopback and
	// instances whose targets live on their own network.
	AllowPrivate bool
	// Resolver looks names up at save time; net.DefaultResolver when nil.
	Resolver *net.Resolver
}

// ParseURL checks a target's shape: absolute http or https, a host, no
// credentials (they would be shown back) and no fragment. The error text is
// meant for the caller.
func ParseURL(raw string) (*url.URL, error) {
	if raw == "" || len(raw) > MaxURL {
		return nil, fmt.Errorf("url is required (at most %d characters)", MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("url %q must be an absolute http or https URL", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("url %q must not carry credentials", u.Redacted())
	}
	if u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return nil, fmt.Errorf("url %q must not have a fragment", raw)
	}
	return u, nil
}

// CheckURL refuses a URL whose host is, or resolves to, an address the policy
// refuses. An address is recognised in any spelling a resolver accepts: IPv6
// (IPv4-mapped and NAT64 included, which the range check covers), dotted
// IPv4, and the numeric forms of parseNumericHost. A name that does not
// resolve now passes: the dial-time check still guards it, and a target may
// be configured before its DNS is.
func (p Policy) CheckURL(ctx context.Context, u *url.URL) error {
	if p.AllowPrivate {
		return nil
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("url host %q: %w", host, ErrRefused)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return checkAddr(host, addr)
	}
	if addr, ok := parseNumericHost(host); ok {
		return checkAddr(host, addr)
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := checkAddr(host, a); err != nil {
			return err
		}
	}
	return nil
}

func checkAddr(host string, a netip.Addr) error {
	network := "tcp4"
	if a.Is6() {
		network = "tcp6" // IPv4-mapped addresses included: they are refused as IPv6
	}
	if err := guardian.Safe(network, netip.AddrPortFrom(a, 443).String(), nil); err != nil {
		return fmt.Errorf("url host %q (%s): %w", host, a, ErrRefused)
	}
	return nil
}

// Client is an HTTP client for calls to user-supplied URLs: an overall
// timeout, the address check on every connection (unless allowed), no proxy
// from the environment (the check must see the target itself), and no
// redirects followed (a 3xx is the answer).
func (p Policy) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !p.AllowPrivate {
		dialer.Control = guardian.Safe
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{
		Timeout:       timeout,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Refused reports whether err is the policy refusing an address, at save or
// at dial time.
func Refused(err error) bool {
	return errors.Is(err, ErrRefused) || errors.Is(err, ssrf.ErrProhibitedIP) ||
		errors.Is(err, ssrf.ErrProhibitedNetwork) || errors.Is(err, ssrf.ErrProhibitedPort)
}

// Reason words why a call to a user-supplied URL got no answer, for the
// client that configured it: no addresses, resolver or socket details
// (docs/decisions.md "Errors"; the cause itself is for the log).
func Reason(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case Refused(err):
		return "its address is not allowed (private, loopback and link-local addresses are refused)"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "its host name does not resolve"
	case errors.As(err, &dnsErr):
		return "its host name could not be looked up"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was closed before an answer"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "its network cannot be reached"
	case errors.As(err, &certErr):
		return "its TLS certificate is not valid"
	case errors.As(err, &recErr):
		return "it does not speak TLS"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "it did not answer in time"
	}
	return "the connection failed"
}
