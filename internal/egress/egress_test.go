package egress_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"code.dny.dev/ssrf"

	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/egress/egresstest"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string // "" accepted, else part of the error
	}{
		{"https://hooks.example.com/a?b=c", ""},
		{"http://93.184.215.14:8080/x", ""},
		{"", "required"},
		{"https://example.com/" + strings.Repeat("a", egress.MaxURL), "required"},
		{"/relative", "absolute"},
		{"mailto:a@example.com", "absolute"},
		{"ws://example.com", "absolute"},
		{"https://", "absolute"},
		{"https://:443/x", "absolute"},
		{"https://u:p@example.com", "credentials"},
		{"https://example.com/#x", "fragment"},
		{"https://example.com/#", "fragment"},
		// UTS-46 maps these to ASCII, as net/http does before it dials.
		{"https://bücher.example/x", ""},
		{"http://①②⑦.0.0.1/x", ""},
	} {
		_, err := egress.ParseURL(tc.raw)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ParseURL(%.40q) = %v, want %q", tc.raw, err, tc.want)
		}
	}
}

// RULINGS "Security details": a host UTS-46 cannot map is malformed, refused
// with the host as the caller gave it (quoted, so that an invisible joiner
// shows), whatever the policy.
func TestParseURLRefusesInvalidHosts(t *testing.T) {
	for _, host := range egresstest.InvalidHosts {
		raw := "https://" + host + "/x"
		_, err := egress.ParseURL(raw)
		if err == nil || !strings.Contains(err.Error(), "not a valid host name") || !strings.Contains(err.Error(), fmt.Sprintf("%q", host)) {
			t.Errorf("ParseURL(%q) = %v, want the host refused", raw, err)
		}
	}
}

// RULINGS "Security details": a refusal may repeat the URL as the caller
// gave it, never the address it names or resolves to.
func TestCheckURLNamesNoAddress(t *testing.T) {
	for _, raw := range []string{"http://2130706433/x", "http://①②⑦.0.0.1/x", "http://127.1/x", "http://[::ffff:a9fe:a9fe]/x"} {
		u, err := egress.ParseURL(raw)
		if err != nil {
			t.Fatal(err)
		}
		err = egress.Policy{}.CheckURL(context.Background(), u)
		if err == nil || !egress.Refused(err) {
			t.Fatalf("CheckURL(%s) = %v, want refused", raw, err)
		}
		for _, addr := range []string{"127.0.0.1", "169.254.169.254"} {
			if strings.Contains(err.Error(), addr) {
				t.Errorf("CheckURL(%s) names the address: %v", raw, err)
			}
		}
	}
}

// RULINGS "Store, federation, MCP, A2A": private, loopback and link-local
// addresses are refused unless the instance allows them.
func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		raw     string
		refused bool
	}{
		{"https://93.184.215.14/x", false},
		{"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x", false},
		{"http://127.0.0.1/x", true},
		{"http://127.9.9.9:8080/x", true},
		{"http://localhost:8080/x", true},
		{"http://LOCALHOST./x", true},
		{"http://foo.localhost/x", true},
		{"http://[::1]/x", true},
		{"http://[::ffff:10.0.0.1]/x", true},
		{"http://10.0.0.1/x", true},
		{"http://172.31.255.1/x", true},
		{"http://192.168.1.1/x", true},
		{"http://169.254.169.254/latest/meta-data", true},
		{"http://[fe80::1]/x", true},
		{"http://[fd00::1]/x", true},
		{"http://0.0.0.0/x", true},
		{"http://100.64.1.1/x", true},
		{"http://224.0.0.1/x", true},
	} {
		u, err := egress.ParseURL(tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		err = egress.Policy{}.CheckURL(ctx, u)
		if (err != nil) != tc.refused || (err != nil && !egress.Refused(err)) {
			t.Errorf("CheckURL(%s) = %v, refused want %v", tc.raw, err, tc.refused)
		}
		if err := (egress.Policy{AllowPrivate: true}).CheckURL(ctx, u); err != nil {
			t.Errorf("allowed policy refused %s: %v", tc.raw, err)
		}
	}
}

// RULINGS "Input at the boundary": a private address is refused at save in
// every spelling a resolver accepts, on any scheme the rule allows, and
// admitted when private endpoints are allowed.
func TestCheckURLRefusesEverySpelling(t *testing.T) {
	ctx := context.Background()
	for _, host := range egresstest.PrivateHosts {
		for _, scheme := range []string{"http", "https"} {
			raw := scheme + "://" + host + "/hook"
			u, err := egress.ParseURL(raw)
			if err != nil {
				t.Fatalf("ParseURL(%s): %v", raw, err)
			}
			if err := (egress.Policy{}).CheckURL(ctx, u); err == nil || !egress.Refused(err) {
				t.Errorf("CheckURL(%s) = %v, want refused", raw, err)
			}
			if err := (egress.Policy{AllowPrivate: true}).CheckURL(ctx, u); err != nil {
				t.Errorf("allowed policy refused %s: %v", raw, err)
			}
		}
	}
	// A numeric spelling of a public address is that address, and passes.
	for _, raw := range []string{"http://1572394766/x", "http://0x5db8d70e/x", "http://93.12113678/x"} {
		u, err := egress.ParseURL(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := (egress.Policy{}).CheckURL(ctx, u); err != nil {
			t.Errorf("CheckURL(%s) = %v, want accepted", raw, err)
		}
	}
}

// The client checks the address it dials, whatever the URL said, and does
// not follow redirects.
func TestClientChecksEveryDial(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
	}))
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Start()
	defer srv.Close()

	res, err := egress.Policy{}.Client(10 * time.Second).Get(srv.URL)
	if err == nil {
		res.Body.Close()
		t.Fatalf("loopback dial answered %d, want refused", res.StatusCode)
	}
	if !egress.Refused(err) {
		t.Fatalf("loopback dial: %v, want refused", err)
	}
	res, err = egress.Policy{AllowPrivate: true}.Client(10 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("status %d: the redirect was followed", res.StatusCode)
	}
}

// Reason words a failed call without addresses or resolver details: the
// requester sees it (docs/decisions.md "Errors", TestErrorMessagesTable).
// Each case is the error a real client returns, as net/http and the dial
// guard build it.
func TestReason(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://peer.example/x", Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 8443}, Err: err}}
	}
	dns := dial(&net.DNSError{Err: "no such host", Name: "peer.example", Server: "10.255.255.53:53", IsNotFound: true})
	// The dial guard, as Client's dialer reports it.
	guard := dial(fmt.Errorf("%w: 127.0.0.1 is not a permitted destination (denied by: 127.0.0.0/8)", ssrf.ErrProhibitedIP))
	deadline, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no such host", dns, "its host name does not resolve"},
		{"resolver failed", dial(&net.DNSError{Err: "server misbehaving", Name: "peer.example", Server: "10.255.255.53:53"}), "its host name could not be looked up"},
		{"refused", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), "the connection was refused"},
		{"reset", dial(os.NewSyscallError("read", syscall.ECONNRESET)), "the connection was closed before an answer"},
		{"unreachable network", dial(os.NewSyscallError("connect", syscall.ENETUNREACH)), "its network cannot be reached"},
		{"the dial guard", guard, "its address is not allowed (private, loopback and link-local addresses are refused)"},
		{"the save-time check", fmt.Errorf("dial: %w", egress.ErrRefused), "its address is not allowed (private, loopback and link-local addresses are refused)"},
		{"a host UTS-46 refuses", fmt.Errorf("url: %w", egress.ErrInvalidHost), "its host is not a valid host name"},
		{"certificate", &url.Error{Op: "Get", URL: "https://peer.example", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, "its TLS certificate is not valid"},
		{"plain HTTP on https", &url.Error{Op: "Get", URL: "https://peer.example", Err: errors.New("http: server gave HTTP response to HTTPS client")}, "it does not speak TLS"},
		{"deadline", &url.Error{Op: "Post", URL: "https://peer.example", Err: deadline.Err()}, "it did not answer in time"},
		{"cancelled", &url.Error{Op: "Post", URL: "https://peer.example", Err: context.Canceled}, "the call was cancelled"},
		{"anything else", errors.New("something else at 10.0.0.1"), "the connection failed"},
	} {
		got := egress.Reason(tc.err)
		if got != tc.want {
			t.Errorf("%s: Reason(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
		for _, leak := range []string{"10.", "127.", "lookup", "denied by", "dial", "peer.example"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: Reason says %q", tc.name, leak)
			}
		}
	}
}

// Unreachable keeps the cause for errors.Is and logs while its text is the
// reason alone; a call that got an answer is not unreachable.
func TestUnreachable(t *testing.T) {
	cause := &url.Error{Op: "Post", URL: "https://peer.example/x", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "peer.example", Server: "10.255.255.53:53", IsNotFound: true}}}
	err, ok := egress.Unreachable(fmt.Errorf("connect: %w", cause))
	if !ok || err.Error() != "its host name does not resolve" {
		t.Fatalf("Unreachable = %v, %v", err, ok)
	}
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) {
		t.Fatalf("the cause is lost: %#v", err)
	}
	if _, ok := egress.Unreachable(errors.New("HTTP status 502 Bad Gateway")); ok {
		t.Fatal("an answer counted as unreachable")
	}
}

// A refusal names the setting that would admit the address, at save and at
// dial time, when the policy has one (issue 31: the reader learns which
// flag to set); without one the wording stays the plain refusal.
func TestReasonNamesThePolicysFlag(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	p := egress.Policy{Flag: "--allow-private-endpoints"}
	u, _ := url.Parse(srv.URL)
	const want = "its address is not allowed (private, loopback and link-local addresses need --allow-private-endpoints)"
	if got := egress.Reason(p.CheckURL(context.Background(), u)); got != want {
		t.Errorf("save time: %q", got)
	}
	res, err := p.Client(5 * time.Second).Get(srv.URL)
	if err == nil {
		res.Body.Close()
		t.Fatal("the dial went through")
	}
	if got := egress.Reason(err); got != want {
		t.Errorf("dial time: %q", got)
	}
	if !egress.Refused(err) {
		t.Errorf("Refused(%v) = false", err)
	}
	if got := egress.Reason((egress.Policy{}).CheckURL(context.Background(), u)); got != "its address is not allowed (private, loopback and link-local addresses are refused)" {
		t.Errorf("no flag: %q", got)
	}
}
