package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// The proxy adds the key and keeps the Host the client sent (the server's
// DNS-rebinding check must see it), and passes the answer through.
func TestAddsKeyKeepsHost(t *testing.T) {
	var gotAuth, gotHost string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotHost = r.Header.Get("Authorization"), r.Host
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	defer backend.Close()
	to, _ := url.Parse(backend.URL)
	proxy := httptest.NewServer(handler(to, "sk_test"))
	defer proxy.Close()

	req, _ := http.NewRequest("POST", proxy.URL+"/api/mcp", nil)
	req.Host = "evil.example.com"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTeapot || string(body) != "/api/mcp" {
		t.Fatalf("answer %d %q", res.StatusCode, body)
	}
	if gotAuth != "Bearer sk_test" || gotHost != "evil.example.com" {
		t.Fatalf("backend saw Authorization %q, Host %q", gotAuth, gotHost)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	if err := run("http://127.0.0.1:1", "0.0.0.0:0", "k"); err == nil {
		t.Fatal("listened on a non-loopback address")
	}
	if err := run("http://127.0.0.1:1", "127.0.0.1:0", ""); err == nil {
		t.Fatal("ran without a key")
	}
}
