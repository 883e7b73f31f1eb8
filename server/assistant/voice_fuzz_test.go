package assistant

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// FuzzReadAudio: whatever body arrives as multipart/form-data, the voice
// route's reader either refuses it as bad input (400, or 413 for a part over
// the limit) or answers one non-empty recording no larger than the limit
// and a file name; it never panics (docs/decisions.md "The assistant (issue
// 16)", POST /api/chat/voice).
//
//	go test ./server/assistant -run '^$' -fuzz FuzzReadAudio
func FuzzReadAudio(f *testing.F) {
	const boundary = "b0undary"
	part := func(name, file, body string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + file +
			"\"\r\nContent-Type: audio/wav\r\n\r\n" + body + "\r\n"
	}
	end := "--" + boundary + "--\r\n"
	f.Add(part("audio", "a.wav", "RIFF\x00\x00\x00\x00WAVEfmt ") + end)
	f.Add(part("audio", "", "x") + part("audio", "b.wav", "y") + end)
	f.Add(part("other", "a.txt", "hello") + end)
	f.Add(end)
	f.Add("--" + boundary + "\r\nContent-Disposition: form-data\r\n\r\nno name\r\n" + end)
	f.Add("not multipart at all")
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/api/chat/voice", bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		audio, name, err := readAudio(r)
		if err != nil {
			var e *apperr.Error
			if !errors.As(err, &e) || (e.Kind != apperr.KindInvalid && e.Kind != apperr.KindTooLarge) {
				t.Fatalf("refused with %v, want a 400 or 413", err)
			}
			return
		}
		if len(audio) == 0 || len(audio) > len(body) || name == "" {
			t.Fatalf("accepted %d bytes named %q from a %d-byte body", len(audio), name, len(body))
		}
	})
}
