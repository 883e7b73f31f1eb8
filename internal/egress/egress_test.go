package egress_test

import (
	"context"
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
	} {
		_, err := egress.ParseURL(tc.raw)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ParseURL(%.40q) = %v, want %q", tc.raw, err, tc.want)
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
func TestReason(t *testing.T) {
	dns := &url.Error{Op: "Post", URL: "http://agent.example/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "agent.example", Server: "127.0.0.53:53", IsNotFound: true}}}
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{dns, "its host name does not resolve"},
		{&net.DNSError{Err: "server misbehaving", Name: "agent.example", Server: "127.0.0.53:53"}, "its host name could not be looked up"},
		{refused, "the connection was refused"},
		{fmt.Errorf("dial: %w", egress.ErrRefused), "its address is not allowed (private, loopback and link-local addresses are refused)"},
		{errors.New("something else at 10.0.0.1"), "the connection failed"},
	} {
		if got := egress.Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
