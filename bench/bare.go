package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// bareSSESource is the yardstick of `bench sse`: a Server-Sent Events loop
// with net/http and nothing else. Each stream is its handler's goroutine
// waiting on a channel; POST /send hands every stream the request's body,
// which each writes and flushes. The streams carry the switchboard's own
// bytes: the connected frame it wrote (a file, the second argument) and the
// new_message frame it wrote (the bench posts it), with no chunked framing,
// as the switchboard writes its streams. GET /mem answers the heap and
// stacks in use after a GC, as the switchboard's --debug-addr does.
const bareSSESource = `package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	connected, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	streams := map[chan []byte]struct{}{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		// Unframed, the stream ending with its connection (net/http's way for SSE).
		h.Set("Transfer-Encoding", "identity")
		ch := make(chan []byte, 16)
		mu.Lock()
		streams[ch] = struct{}{}
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(streams, ch)
			mu.Unlock()
		}()
		rc := http.NewResponseController(w)
		if _, err := w.Write(connected); err != nil || rc.Flush() != nil {
			return
		}
		for {
			select {
			case frame := <-ch:
				if _, err := w.Write(frame); err != nil || rc.Flush() != nil {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /send", func(w http.ResponseWriter, r *http.Request) {
		frame, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for ch := range streams {
			select {
			case ch <- frame:
			default: // 16 frames behind: this one is dropped
			}
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /mem", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprint(w, m.HeapInuse+m.StackInuse)
	})
	srv := &http.Server{Addr: os.Args[1], Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`

// buildModule builds source as the main package of a module of its own
// (standard library only) in dir/name, into dir/name-server.
func buildModule(ctx context.Context, dir, name, source string) (string, error) {
	src := filepath.Join(dir, name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module "+name+"\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(source), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name+"-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the %s server: %w", name, err)
	}
	return bin, nil
}

// startBareSSE builds and starts the bare loop, which writes frames.connected
// on every stream it opens and, on send, frames.message.
func startBareSSE(ctx context.Context, sc *scratch, frames sseFrames) (*sseServer, error) {
	bin, err := buildModule(ctx, sc.dir, "bare-sse", bareSSESource)
	if err != nil {
		return nil, err
	}
	connected := filepath.Join(sc.dir, "connected.sse")
	if err := os.WriteFile(connected, frames.connected, 0o600); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p, _, err := sc.ps.start("bare-sse", os.Stderr, bin, addr, connected)
	if err != nil {
		return nil, err
	}
	p.url = "http://" + addr
	if err := waitHealthy(ctx, p, 30*time.Second); err != nil {
		return nil, err
	}
	floor, err := heldConns(p)
	if err != nil {
		return nil, err
	}
	c := &http.Client{Timeout: 30 * time.Second}
	return &sseServer{
		name:   "bare loop",
		proc:   p,
		stream: p.url + "/stream",
		send: func(ctx context.Context) error {
			return requestBytes(ctx, c, http.MethodPost, p.url+"/send", frames.message, http.StatusNoContent)
		},
		heapStack: func(ctx context.Context) (int64, error) {
			b, err := getBody(ctx, c, p.url+"/mem")
			if err != nil {
				return 0, err
			}
			return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		},
		idleConns: floor,
	}, nil
}

// requestBytes sends body and wants the status want.
func requestBytes(ctx context.Context, c *http.Client, method, url string, body []byte, want int) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	return nil
}

// getBody answers the body of a GET that answered 200.
func getBody(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return b, err
}
