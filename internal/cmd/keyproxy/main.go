// Command keyproxy is a loopback reverse proxy that adds an API key to every
// request: the MCP conformance suite's server runner takes only a URL, so
// scripts/mcp-conformance puts this in front of /api/mcp. The request's Host
// is kept, so the server's DNS-rebinding check sees what the suite sent.
//
// Usage: KEYPROXY_KEY=<key> keyproxy -target http://127.0.0.1:8080
// It prints the address it listens on ("http://127.0.0.1:<port>") as its
// first line on stdout. The key comes from the environment, out of ps.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	target := flag.String("target", "", "the server's base URL (http://host:port)")
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	if err := run(*target, *listen, os.Getenv("KEYPROXY_KEY")); err != nil {
		log.Fatalf("keyproxy: %v", err)
	}
}

func run(target, listen, key string) error {
	to, err := url.Parse(target)
	if err != nil || to.Scheme == "" || to.Host == "" {
		return fmt.Errorf("-target %q is not a base URL", target)
	}
	if key == "" {
		return errors.New("KEYPROXY_KEY is empty")
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %q is not a loopback address", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	return http.Serve(ln, handler(to, key))
}

func handler(to *url.URL, key string) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+key)
		},
		// Event streams pass through as they are written.
		FlushInterval: -1,
	}
}
