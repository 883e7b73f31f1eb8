package throughtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// wav is a mono 16-bit 16 kHz PCM recording of a 440 Hz tone, size bytes
// long in all (a 44-byte header and the samples).
func wav(size int) []byte {
	const rate = 16000
	data := (size - 44) &^ 1
	var b bytes.Buffer
	b.Grow(44 + data)
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(rate))
	le(uint32(rate * 2))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(data))
	// One second holds a whole number of 440 Hz periods: it is computed
	// once and repeated (a sample at a time, 25 MB took minutes under the
	// race detector).
	second := make([]byte, 2*rate)
	for i := range rate {
		binary.LittleEndian.PutUint16(second[2*i:], uint16(int16(8000*math.Sin(2*math.Pi*440*float64(i)/rate))))
	}
	for n := 0; n < data; n += len(second) {
		b.Write(second[:min(len(second), data-n)])
	}
	return b.Bytes()
}

// voiceForm is a multipart body with the given parts (name, file name, bytes).
func voiceForm(t *testing.T, parts ...[3]any) (string, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		fw, err := mw.CreateFormFile(p[0].(string), p[1].(string))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(p[2].([]byte)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), body.Bytes()
}

func postVoice(c *servertest.Caller, contentType string, body []byte) *servertest.Response {
	return c.Do(http.MethodPost, "/api/chat/voice", body, "Content-Type", contentType)
}

// RULINGS "The assistant", Voice: POST /api/chat/voice takes one `audio`
// part (WebM, MP4 or WAV by content sniffing, at most 25 MB, else 413 or
// 415), transcribed by the provider into {text}; no provider 503.
func TestVoice(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	provider.Transcription(llmtest.Reply{Text: "remind me to call Ada"})
	ct, body := voiceForm(t, [3]any{"audio", "note.wav", wav(24 << 20)})
	res := postVoice(w.ann.Session, ct, body)
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t)["text"]; got != "remind me to call Ada" {
		t.Errorf("text: %v", got)
	}
	reqs := provider.Requests()
	last := reqs[len(reqs)-1]
	if last.FileContentType != "audio/wav" || last.FileName != "note.wav" || len(last.File) != 24<<20 || last.Fields["model"] != "test-stt" {
		t.Errorf("the provider got %q %q %d bytes, model %q", last.FileContentType, last.FileName, len(last.File), last.Fields["model"])
	}
	calls := len(reqs)

	for _, c := range []struct {
		name  string
		parts [][3]any
		raw   string // a body that is not multipart
		want  int
	}{
		{name: "26 MB", parts: [][3]any{{"audio", "long.wav", wav(26 << 20)}}, want: http.StatusRequestEntityTooLarge},
		{name: "one byte over 25 MB", parts: [][3]any{{"audio", "long.wav", wav(25<<20 + 2)}}, want: http.StatusRequestEntityTooLarge},
		{name: "a text file", parts: [][3]any{{"audio", "notes.txt", []byte("this is not audio at all")}}, want: http.StatusUnsupportedMediaType},
		{name: "text named .wav", parts: [][3]any{{"audio", "fake.wav", []byte(strings.Repeat("RIFF but not wave ", 4))}}, want: http.StatusUnsupportedMediaType},
		{name: "empty recording", parts: [][3]any{{"audio", "empty.wav", []byte{}}}, want: http.StatusBadRequest},
		{name: "two recordings", parts: [][3]any{{"audio", "a.wav", wav(1000)}, {"audio", "b.wav", wav(1000)}}, want: http.StatusBadRequest},
		{name: "another part", parts: [][3]any{{"file", "a.wav", wav(1000)}}, want: http.StatusBadRequest},
		{name: "JSON", raw: `{"audio":"UklGRg=="}`, want: http.StatusBadRequest},
	} {
		var res *servertest.Response
		if c.raw != "" {
			res = w.ann.Session.Do(http.MethodPost, "/api/chat/voice", c.raw)
		} else {
			ct, body := voiceForm(t, c.parts...)
			res = postVoice(w.ann.Session, ct, body)
		}
		if res.Status != c.want || res.JSON(t)["success"] != false {
			t.Errorf("%s: %d %s, want %d", c.name, res.Status, res.Body, c.want)
		}
	}
	if n := len(provider.Requests()); n != calls {
		t.Errorf("refused recordings reached the provider: %d calls, want %d", n, calls)
	}

	ct, body = voiceForm(t, [3]any{"audio", "note.wav", wav(2000)})
	if res := postVoice(w.srv.Anonymous(), ct, body); res.Status != http.StatusUnauthorized {
		t.Errorf("anonymous: %d", res.Status)
	}
	if res := postVoice(w.srv.WithKey(w.ann.NewKey("agent")), ct, body); res.Status != http.StatusForbidden {
		t.Errorf("a key: %d", res.Status)
	}
	bare := newAssistantWorld(t)
	res = postVoice(bare.ann.Session, ct, body)
	servertest.WantStatus(t, res, http.StatusServiceUnavailable)
	if !strings.Contains(res.JSON(t)["error"].(string), "transcription model") {
		t.Errorf("503: %s", res.Body)
	}
}

// The sniffed types: WebM's EBML header, MP4's ftyp box, WAV's RIFF…WAVE.
func TestAudioType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81}, "audio/webm"},
		{append([]byte{0, 0, 0, 0x20}, "ftypM4A isom"...), "audio/mp4"},
		{wav(100), "audio/wav"},
		{[]byte("RIFF\x00\x00\x00\x00AVI LIST"), ""},
		{[]byte("ID3\x03\x00"), ""}, // MP3 is not taken
		{[]byte("OggS"), ""},
		{nil, ""},
	} {
		if got := assistant.AudioType(c.b); got != c.want {
			t.Errorf("%q: %q, want %q", c.b, got, c.want)
		}
	}
}

// mediaPNG is a few bytes with PNG's signature, told apart by n.
func mediaPNG(n int) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n"), fmt.Sprintf("image %d", n)...)
}

// RULINGS "The assistant", Images: generate_image asks the provider for
// b64_json, 1–4 images at the aspect's size, and stores each as a document
// (listed, served by raw with its type); without a provider it fails.
func TestGenerateImage(t *testing.T) {
	t.Parallel()
	w, provider := chatWorld(t)
	provider.Images(llmtest.Reply{Images: [][]byte{mediaPNG(1), mediaPNG(2), mediaPNG(3), mediaPNG(4)}})
	res := result(t, w.tag(w.ann, "generate_image", map[string]any{"prompt": "A lighthouse at dusk", "aspect": "landscape",
		"style": "watercolour", "numImages": 4}))
	docs := res["documents"].([]any)
	if len(docs) != 4 {
		t.Fatalf("documents: %v", res)
	}
	asked := provider.Requests()[0].JSON
	if asked["n"] != float64(4) || asked["size"] != "1536x1024" || asked["response_format"] != "b64_json" ||
		asked["model"] != "test-image" || !strings.Contains(asked["prompt"].(string), "watercolour") {
		t.Errorf("the provider was asked %v", asked)
	}
	for i, d := range docs {
		doc := d.(map[string]any)
		if doc["mimeType"] != "image/png" || doc["title"] != fmt.Sprintf("Image: A lighthouse at dusk (%d of 4)", i+1) {
			t.Errorf("document %d: %v", i, doc)
		}
		raw := w.ann.Session.Do(http.MethodGet, "/api/documents/"+doc["id"].(string)+"/raw", nil)
		if raw.Status != http.StatusOK || raw.Header.Get("Content-Type") != "image/png" || !bytes.Equal(raw.Body, mediaPNG(i+1)) {
			t.Errorf("raw %d: %d %s %q", i, raw.Status, raw.Header.Get("Content-Type"), raw.Body)
		}
	}
	list := w.ann.Session.Do(http.MethodGet, "/api/documents", nil).JSON(t)["documents"].([]any)
	if len(list) != 4 {
		t.Errorf("listed: %d documents", len(list))
	}

	// The defaults: one square image.
	provider.Images(llmtest.Reply{Images: [][]byte{mediaPNG(5)}})
	if docs := result(t, w.tag(w.ann, "generate_image", map[string]any{"prompt": "A cat"}))["documents"].([]any); len(docs) != 1 {
		t.Errorf("one image: %v", docs)
	}
	if asked := provider.Requests()[1].JSON; asked["size"] != "1024x1024" || asked["n"] != float64(1) {
		t.Errorf("the defaults asked %v", asked)
	}

	calls := len(provider.Requests())
	for _, c := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"five images", map[string]any{"prompt": "x", "numImages": 5}, http.StatusBadRequest},
		{"no images", map[string]any{"prompt": "x", "numImages": 0}, http.StatusBadRequest},
		{"an unknown aspect", map[string]any{"prompt": "x", "aspect": "wide"}, http.StatusBadRequest},
		{"another model", map[string]any{"prompt": "x", "model": "dall-e-2"}, http.StatusBadRequest},
		{"no prompt", map[string]any{"prompt": "  "}, http.StatusBadRequest},
		{"NUL", map[string]any{"prompt": "a\x00b"}, http.StatusBadRequest},
		{"over-long", map[string]any{"prompt": strings.Repeat("x", 4001)}, http.StatusBadRequest},
		{"an unknown key", map[string]any{"prompt": "x", "quality": "hd"}, http.StatusBadRequest},
	} {
		if res := w.tag(w.ann, "generate_image", c.body); res.Status != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, res.Status, res.Body, c.want)
		}
	}
	if n := len(provider.Requests()); n != calls {
		t.Errorf("refused requests reached the provider: %d, want %d", n, calls)
	}
	// The provider answers URLs, or bytes that are not images: 503, nothing stored.
	provider.Images(llmtest.Reply{URLOnly: true}, llmtest.Reply{Images: [][]byte{[]byte("<html>nope</html>")}})
	for _, name := range []string{"URLs", "not an image"} {
		if res := w.tag(w.ann, "generate_image", map[string]any{"prompt": "x"}); res.Status != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	if list := w.ann.Session.Do(http.MethodGet, "/api/documents", nil).JSON(t)["documents"].([]any); len(list) != 5 {
		t.Errorf("documents after the failures: %d, want 5", len(list))
	}

	// Without a provider: the tag fails, in execute-tag and in a reply.
	bare := newAssistantWorld(t)
	res2 := bare.tag(bare.ann, "generate_image", map[string]any{"prompt": "x"})
	if res2.Status != http.StatusServiceUnavailable || !strings.Contains(string(res2.Body), "image model") {
		t.Errorf("no provider: %d %s", res2.Status, res2.Body)
	}

	// A provider for chat without an image model: the reply's tag fails in
	// tags_executed (an account with nothing from outside in its prompt, so
	// the tag runs rather than waiting for confirmation).
	chatOnly := llmtest.New(t)
	plain := servertest.New(t, servertest.WithLLMClient(llm.New(llm.Config{BaseURL: chatOnly.URL, Model: "test-model"})))
	chatOnly.Chat(llmtest.Reply{Tokens: []string{`Here: [[generate_image {"prompt":"A cat"}]]`}})
	events := all(t, send(plain.SignUp("ann"), "draw a cat"))
	tags := events[len(events)-2].JSON(t)["tags"].([]any)
	if len(tags) != 1 || tags[0].(map[string]any)["ok"] != false || !strings.Contains(fmt.Sprint(tags[0].(map[string]any)["error"]), "image model") {
		t.Errorf("generate_image without an image model, in a reply: %v", tags)
	}
	// In a reply whose prompt held outside text (w's installed agent's kit),
	// it waits for the operator instead, and asks the provider nothing.
	provider.Chat(llmtest.Reply{Tokens: []string{`[[generate_image {"prompt":"A dog"}]]`}})
	calls = len(provider.Requests())
	events = all(t, send(w.ann, "draw a dog"))
	held := events[len(events)-2].JSON(t)["tags"].([]any)[0].(map[string]any)
	if held["needsConfirmation"] != true || held["body"].(map[string]any)["prompt"] != "A dog" {
		t.Errorf("generate_image after outside text: %v", held)
	}
	if n := len(provider.Requests()); n != calls+1 {
		t.Errorf("provider calls: %d, want only the chat (%d)", n, calls+1)
	}
}
