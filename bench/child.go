package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// childMain runs one of the comparison servers in its own process, so that its
// CPU time is its own: "baseline-server -body FILE" or "raw-server -db DSN".
func childMain(mode string, args []string) error {
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	body := fs.String("body", "", "baseline-server: file holding the response bytes")
	dsn := fs.String("db", "", "raw-server: sqlite:PATH or postgres://…")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var h http.Handler
	switch mode {
	case "baseline-server":
		b, err := os.ReadFile(*body)
		if err != nil {
			return err
		}
		h = baselineHandler(b)
	case "raw-server":
		rs, err := openRaw(*dsn)
		if err != nil {
			return err
		}
		defer rs.db.Close()
		h = rs
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return serveLoopback(h)
}

// serveLoopback listens on a free loopback port, announces it and serves.
func serveLoopback(h http.Handler) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("ADDR %s\n", l.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// baselineHandler is variant (a): the REST page's exact bytes, from memory,
// with the same Content-Type and an explicit Content-Length.
func baselineHandler(body []byte) http.Handler {
	n := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", n)
		_, _ = w.Write(body)
	})
}
