package idempotency

import (
	"bytes"
	"net/http"
)

// recorder keeps a handler's answer instead of sending it. Headers go to the
// real writer's map as they are set; status and body wait.
type recorder struct {
	w      http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.w.Header() }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.w }

func (r *recorder) answer() answer {
	status := r.status
	if status == 0 {
		status = http.StatusOK
	}
	h := r.w.Header()
	return answer{status: status, contentType: h.Get("Content-Type"),
		encoding: h.Get("Content-Encoding"), body: r.body.Bytes()}
}

// send writes a first answer as the handler gave it.
func send(w http.ResponseWriter, a answer) {
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// replay answers a stored answer again: same status, body, content type and
// encoding, marked Idempotent-Replayed.
func replay(w http.ResponseWriter, a answer) {
	h := w.Header()
	h.Set(ReplayedHeader, "true")
	h.Del("Content-Length")
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	if a.encoding != "" {
		h.Set("Content-Encoding", a.encoding)
	}
	send(w, a)
}
