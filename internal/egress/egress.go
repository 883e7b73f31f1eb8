// Package egress is the rule for outbound calls to addresses users supply
// (webhook targets, agent endpoints, peers, hubs, widget-response URLs).
// docs/decisions.md "Store, federation, MCP, A2A": private, loopback and
// link-local addresses are refused unless the instance allows them. A URL is
// checked when it is saved, for a clear 400, and every connection again when
// it is dialled, because what a name resolves to can change in between (DNS
// rebinding). What a failed call tells people is Reason's: words, never
// addresses or resolver details (RULINGS "Security details").
package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
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
	"golang.org/x/net/idna"
)

// MaxURL bounds a target URL's length.
const MaxURL = 2048

// guardian denies every special-purpose range of the IANA registries (private,
// loopback, link-local, CGNAT, multicast, documentation, …) on any port.
var guardian = ssrf.New(ssrf.WithAnyPort())

// ErrRefused marks an address the policy refuses.
var ErrRefused = errors.New("private, loopback and link-local addresses are not allowed")

// ErrInvalidHost marks a host UTS-46 cannot map to a name a resolver looks
// up: no client can call it.
var ErrInvalidHost = errors.New("not a valid host name")

// asciiHost is host as net/http dials it and so as a resolver reads it: a
// non-ASCII host mapped by UTS-46 with the Lookup profile net/http uses
// (non-transitional; full-width and circled digits, ideographic full stops
// and the like become their ASCII forms, so "①②⑦。0。0。1" is 127.0.0.1).
// ASCII hosts are left as they are, as net/http leaves them.
func asciiHost(host string) (string, error) {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			mapped, err := idna.Lookup.ToASCII(host)
			if err != nil {
				return "", ErrInvalidHost
			}
			return mapped, nil
		}
	}
	return host, nil
}

// Policy decides which addresses outbound calls may reach.
type Policy struct {
	// AllowPrivate lets calls reach any address (--allow-private-endpoints,
	// SWITCHBOARD_ALLOW_PRIVATE_ENDPOINTS): for tests on loopback and
	// instances whose targets live on their own network.
	AllowPrivate bool
	// Flag names the setting that would admit a refused address (the
	// server's flag, e.g. "--allow-private-endpoints"): Reason says it, so a
	// refusal tells the person who reads it what would allow the call.
	Flag string
	// Resolver looks names up at save time; net.DefaultResolver when nil.
	Resolver *net.Resolver
}

// refusal is the policy's refusal of an address, carrying the flag that
// would admit it; it unwraps to ErrRefused or the dial guard's error.
type refusal struct {
	err  error
	flag string
}

func (r *refusal) Error() string { return r.err.Error() + " (" + r.flag + " admits them)" }
func (r *refusal) Unwrap() error { return r.err }

// refuse wraps err, a refusal of the policy, with its flag.
func (p Policy) refuse(err error) error {
	if p.Flag == "" {
		return err
	}
	return &refusal{err: err, flag: p.Flag}
}

// ParseURL checks a target's shape: absolute http or https, a host (one
// UTS-46 maps, when it is not ASCII), no credentials (they would be shown
// back) and no fragment. The error text is meant for the caller.
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
	if _, err := asciiHost(u.Hostname()); err != nil {
		return nil, fmt.Errorf("url %q: its host %q is %w", raw, u.Hostname(), err)
	}
	return u, nil
}

// CheckURL refuses a URL whose host is, or resolves to, an address the policy
// refuses. An address is recognised in any spelling a resolver accepts: the
// host is first mapped to ASCII by UTS-46 (asciiHost), then read as IPv6
// (IPv4-mapped and NAT64 included, which the range check covers), dotted
// IPv4, and the numeric forms of parseNumericHost. A name that does not
// resolve now passes: the dial-time check still guards it, and a target may
// be configured before its DNS is. The error names the host as the URL gave
// it, never the address it names or resolves to.
func (p Policy) CheckURL(ctx context.Context, u *url.URL) error {
	given := u.Hostname()
	mapped, err := asciiHost(given)
	if err != nil {
		return fmt.Errorf("url host %q is %w", given, err)
	}
	if p.AllowPrivate {
		return nil
	}
	refused := p.refuse(fmt.Errorf("url host %q: %w", given, ErrRefused))
	host := strings.ToLower(strings.TrimSuffix(mapped, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return refused
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return checkAddr(addr, refused)
	}
	if addr, ok := parseNumericHost(host); ok {
		return checkAddr(addr, refused)
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
		if err := checkAddr(a, refused); err != nil {
			return err
		}
	}
	return nil
}

// checkAddr answers refused when the guard denies a.
func checkAddr(a netip.Addr, refused error) error {
	network := "tcp4"
	if a.Is6() {
		network = "tcp6" // IPv4-mapped addresses included: they are refused as IPv6
	}
	if err := guardian.Safe(network, netip.AddrPortFrom(a, 443).String(), nil); err != nil {
		return refused
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
		dialer.Control = func(network, address string, c syscall.RawConn) error {
			if err := guardian.Safe(network, address, c); err != nil {
				return p.refuse(err)
			}
			return nil
		}
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
// (docs/decisions.md "Errors", RULINGS "Security details"; the cause itself
// is for the log). It is the one wording of every failed outbound call a
// person reads: an API answer, an execution's error, a stored status.
func Reason(err error) string {
	if r, ok := classify(err); ok {
		return r
	}
	return "the connection failed"
}

// Unreachable is err, a failed outbound call, as an error whose text is
// Reason's and whose cause stays for errors.Is, errors.As and logs. ok is
// false when err is not a failure to reach the target (an answer the client
// could not read, a refusal the target sent), which the caller words itself.
func Unreachable(err error) (error, bool) {
	if _, ok := classify(err); !ok {
		return err, false
	}
	return &unreachable{cause: err}, true
}

type unreachable struct{ cause error }

func (e *unreachable) Error() string { return Reason(e.cause) }
func (e *unreachable) Unwrap() error { return e.cause }

// errPlainHTTP is net/http's text when an https URL answers in plain HTTP
// (a plain error, not the tls.RecordHeaderError behind it).
const errPlainHTTP = "http: server gave HTTP response to HTTPS client"

// classify words err when it is a failure to reach the target: the policy's
// refusal (at save or dial time), the resolver, the socket, TLS, a deadline,
// or any failed round trip (*url.Error). ok is false otherwise.
func classify(err error) (reason string, ok bool) {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invalidErr x509.CertificateInvalidError
	var urlErr *url.Error
	switch {
	case err == nil:
		return "", false
	case Refused(err):
		var r *refusal
		if errors.As(err, &r) {
			return "its address is not allowed (private, loopback and link-local addresses need " + r.flag + ")", true
		}
		return "its address is not allowed (private, loopback and link-local addresses are refused)", true
	case errors.Is(err, ErrInvalidHost):
		return "its host is not a valid host name", true
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "its host name does not resolve", true
	case errors.As(err, &dnsErr):
		return "its host name could not be looked up", true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused", true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was closed before an answer", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "its network cannot be reached", true
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invalidErr):
		return "its TLS certificate is not valid", true
	case errors.As(err, &recErr), strings.Contains(err.Error(), errPlainHTTP):
		return "it does not speak TLS", true
	case errors.Is(err, context.Canceled):
		return "the call was cancelled", true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "it did not answer in time", true
	case errors.As(err, &urlErr), errors.As(err, &netErr):
		return "the connection failed", true
	}
	return "", false
}
