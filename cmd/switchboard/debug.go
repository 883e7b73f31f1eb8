package main

import (
	"expvar"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves the server's metrics (GET /metrics, without a token)
// and the runtime's own figures (expvar's memstats and cmdline at
// /debug/vars, pprof under /debug/pprof/) on a separate listener, for
// scrapers, benchmarks and profiling. It refuses anything but a loopback
// address: these pages describe the process's internals and are never public.
func serveDebug(addr string, logger *slog.Logger, metrics http.Handler) (*http.Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--debug-addr %q: only a loopback address is allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("GET /debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// Long enough for a 30 s CPU profile.
		WriteTimeout: 2 * time.Minute,
		ErrorLog:     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("debug endpoints listening", "addr", ln.Addr().String())
	go func() { _ = srv.Serve(ln) }()
	return srv, nil
}
