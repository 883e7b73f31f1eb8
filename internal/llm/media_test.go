package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
)

func TestTranscribeSendsMultipart(t *testing.T) {
	p := llmtest.New(t)
	p.Transcription(llmtest.Reply{Status: 503}, llmtest.Reply{Text: "book the room for friday"})
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), bytes.Repeat([]byte{0, 1}, 500)...)
	text, err := newClient(p, Timeouts{}).Transcribe(context.Background(), "memo.wav", "audio/wav", bytes.NewReader(wav))
	if err != nil || text != "book the room for friday" {
		t.Fatalf("text %q, err %v", text, err)
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests: a 503 is tried once more", len(reqs))
	}
	for _, r := range reqs { // the retry sends the same bytes
		if r.Path != "/v1/audio/transcriptions" || !strings.HasPrefix(r.ContentType, "multipart/form-data; boundary=") ||
			r.Authorization != "Bearer "+testKey || r.Fields["model"] != "stt-m" ||
			!bytes.Equal(r.File, wav) || r.FileName != "memo.wav" || r.FileContentType != "audio/wav" {
			t.Fatalf("request = %+v", r)
		}
	}
}

func TestTranscribeRefusals(t *testing.T) {
	p := llmtest.New(t)
	c := newClient(p, Timeouts{})
	big := io.LimitReader(zeros{}, MaxAudio+1)
	if _, err := c.Transcribe(context.Background(), "a.wav", "audio/wav", big); !errors.Is(err, ErrAudioTooLarge) {
		t.Fatalf("26 MB: %v", err)
	}
	if _, err := c.Transcribe(context.Background(), "a.wav", "audio/wav", strings.NewReader("")); err == nil {
		t.Fatal("empty audio accepted")
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests for refused audio", n)
	}
	p.Transcription(llmtest.Reply{Status: 400})
	_, err := c.Transcribe(context.Background(), "a.wav", "audio/wav", strings.NewReader("RIFF"))
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 400 || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestGenerateImages(t *testing.T) {
	p := llmtest.New(t)
	c := newClient(p, Timeouts{})
	for n := 1; n <= MaxImages; n++ {
		var want [][]byte
		for i := range n {
			want = append(want, []byte(fmt.Sprintf("\x89PNG image %d of %d", i, n)))
		}
		p.Images(llmtest.Reply{Images: want})
		got, err := c.GenerateImages(context.Background(), "a lighthouse at dusk", n, ImageSizes[n%len(ImageSizes)])
		if err != nil || !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("n=%d: %q, %v", n, got, err)
		}
		body := p.Requests()[n-1].JSON
		if body["response_format"] != "b64_json" || body["n"] != float64(n) || body["size"] != ImageSizes[n%len(ImageSizes)] ||
			body["model"] != "img-m" || body["prompt"] != "a lighthouse at dusk" {
			t.Fatalf("body = %v", body)
		}
	}
}

func TestGenerateImagesRefusals(t *testing.T) {
	p := llmtest.New(t)
	c := newClient(p, Timeouts{})
	for _, bad := range []struct {
		n      int
		size   string
		prompt string
	}{{0, "1024x1024", "x"}, {5, "1024x1024", "x"}, {1, "1792x1024", "x"}, {1, "1024x1024", " "}} {
		if _, err := c.GenerateImages(context.Background(), bad.prompt, bad.n, bad.size); !errors.Is(err, ErrInvalidImageRequest) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent for refused image requests", n)
	}
	p.Images(llmtest.Reply{URLOnly: true, Images: [][]byte{[]byte("x")}})
	if _, err := c.GenerateImages(context.Background(), "x", 1, "1024x1024"); err == nil || !strings.Contains(err.Error(), "b64_json") {
		t.Fatalf("a url-only answer: %v", err)
	}
	p.Images(llmtest.Reply{Images: [][]byte{[]byte("a"), []byte("b")}})
	if _, err := c.GenerateImages(context.Background(), "x", 1, "1024x1024"); err == nil {
		t.Fatal("two images for one asked accepted")
	}
	// Once sent, an image request may be billed: a 503 is answered, not retried.
	before := len(p.Requests())
	p.Images(llmtest.Reply{Status: 503}, llmtest.Reply{})
	var se *StatusError
	if _, err := c.GenerateImages(context.Background(), "x", 1, "1024x1024"); !errors.As(err, &se) || se.Status != 503 {
		t.Fatalf("err = %v", err)
	}
	if n := len(p.Requests()) - before; n != 1 {
		t.Fatalf("an image request was sent %d times", n)
	}
}

// A provider without a transcription or image model refuses those calls
// before sending anything; a nil client can do neither.
func TestModelsNotConfigured(t *testing.T) {
	p := llmtest.New(t)
	c := New(Config{BaseURL: p.URL, Model: "chat-m"})
	if c.CanTranscribe() || c.CanDraw() || (*Client)(nil).CanTranscribe() || (*Client)(nil).CanDraw() {
		t.Fatal("models reported without being configured")
	}
	if _, err := c.Transcribe(context.Background(), "a.wav", "audio/wav", strings.NewReader("RIFF")); !errors.Is(err, ErrNoModel) {
		t.Fatalf("transcribe: %v", err)
	}
	if _, err := c.GenerateImages(context.Background(), "x", 1, "1024x1024"); !errors.Is(err, ErrNoModel) {
		t.Fatalf("images: %v", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
