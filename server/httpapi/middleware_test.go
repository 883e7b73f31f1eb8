package httpapi

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log sink the server's goroutine writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A handler that hijacks its connection and answers on it (the chat stream)
// tells the request log what it answered.
func TestLogStatusOfAHijackedResponse(t *testing.T) {
	var logs syncBuffer
	logged := make(chan struct{})
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		LogStatus(w, http.StatusOK)
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhi")
		conn.Close()
	})
	h := Observe(slog.New(slog.NewTextHandler(&logs, nil)), inner)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(logged)
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	res, err := ts.Client().Get(ts.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != "hi" {
		t.Fatalf("%d %q", res.StatusCode, body)
	}
	<-logged
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), "msg=request") && strings.Contains(sc.Text(), "path=/stream") {
			if !strings.Contains(sc.Text(), " status=200 ") {
				t.Fatalf("logged %s", sc.Text())
			}
			return
		}
	}
	t.Fatalf("no request line in %q", logs.String())
}
