// Package llmtest is a fake OpenAI-compatible provider on loopback for
// tests: a real HTTP server speaking the real wire formats (chat completions
// as JSON or as server-sent events ending with `data: [DONE]`, multipart
// audio transcriptions, image generations answering `b64_json`). Each test
// scripts the answers, and reads back the requests it received and whether
// the client closed a stream's connection.
package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fail is how a scripted stream goes wrong after its tokens.
type Fail int

const (
	// Done ends the stream with `data: [DONE]`.
	Done Fail = iota
	// End ends the response cleanly without `[DONE]`.
	End
	// Abort breaks the connection mid-response.
	Abort
	// ErrorEvent sends `data: {"error": …}` and ends.
	ErrorEvent
	// Hang sends nothing more and waits for the client to go away.
	Hang
)

// Reply is one scripted answer. Zero values answer 200 with the defaults.
type Reply struct {
	// Status other than 0 and 200 answers that status with an OpenAI-shaped
	// error body whose message quotes the request's Authorization header (a
	// client must not pass it on).
	Status int
	// Tokens are a stream's content pieces, one chunk each, or the content
	// of a JSON chat answer joined. Default: "ok".
	Tokens []string
	// Then is how a stream continues after its tokens.
	Then Fail
	// Delay is slept before each chunk (and before a JSON answer).
	Delay time.Duration
	// Text is a transcription's answer. Default: "hello".
	Text string
	// Images are an image generation's answer, sent as b64_json. Default:
	// as many as asked, each a few bytes naming its index.
	Images [][]byte
	// URLOnly answers each image as a `url` without `b64_json`.
	URLOnly bool
}

// Request is one request the provider received.
type Request struct {
	Path          string
	Authorization string
	ContentType   string
	// JSON is a JSON body decoded; nil for multipart.
	JSON map[string]any
	// Fields are a multipart body's plain fields.
	Fields map[string]string
	// File is a multipart body's `file` part.
	File            []byte
	FileName        string
	FileContentType string
}

// Obey makes every chat, once the scripted replies are used up, answer
// "Done." followed by every action tag found anywhere in the request's
// messages, each once in order of appearance: a model that follows whatever
// instruction it is shown, data blocks included. Tags whose body is not a
// JSON object, or holds a "..." placeholder (the prompt groups' examples),
// are not repeated.
func (p *Provider) Obey() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.obey = true
}

// tagPattern finds an action tag on one line: [[name {json}]].
var tagPattern = regexp.MustCompile(`\[\[([a-z_]+) (\{.*?\})\]\]`)

// obey is an obedient model's reply to a chat request's messages.
func obey(body map[string]any) []string {
	out := []string{"Done."}
	seen := map[string]bool{}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].(string)
		for _, found := range tagPattern.FindAllStringSubmatch(content, -1) {
			var obj map[string]any
			if json.Unmarshal([]byte(found[2]), &obj) != nil || strings.Contains(found[2], "...") || seen[found[0]] {
				continue
			}
			seen[found[0]] = true
			out = append(out, " "+found[0])
		}
	}
	return out
}

// Provider is the fake. Its methods are safe for concurrent use.
type Provider struct {
	// URL is the base URL to configure, ending in /v1.
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	obey     bool
	script   map[string][]Reply
	requests []Request
	// Disconnected receives the index of each request whose stream the
	// client closed before it ended.
	Disconnected chan int
}

const (
	chatPath   = "/v1/chat/completions"
	audioPath  = "/v1/audio/transcriptions"
	imagesPath = "/v1/images/generations"
)

// New starts a provider closed when the test ends.
func New(t testing.TB) *Provider {
	p := &Provider{script: map[string][]Reply{}, Disconnected: make(chan int, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+chatPath, p.chat)
	mux.HandleFunc("POST "+audioPath, p.audio)
	mux.HandleFunc("POST "+imagesPath, p.images)
	p.srv = httptest.NewServer(mux)
	p.URL = p.srv.URL + "/v1"
	t.Cleanup(p.srv.Close)
	return p
}

// Chat queues answers for the next chat completions, in order; once the
// queue is empty each call gets the default.
func (p *Provider) Chat(r ...Reply) { p.queue(chatPath, r) }

// Transcription queues answers for the next transcriptions.
func (p *Provider) Transcription(r ...Reply) { p.queue(audioPath, r) }

// Images queues answers for the next image generations.
func (p *Provider) Images(r ...Reply) { p.queue(imagesPath, r) }

// Requests answers the requests received so far, in arrival order.
func (p *Provider) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Close stops the server now (for tests of a provider that went away).
func (p *Provider) Close() { p.srv.Close() }

// disconnected reports a closed stream without ever blocking the handler.
func (p *Provider) disconnected(idx int) {
	select {
	case p.Disconnected <- idx:
	default:
	}
}

func (p *Provider) queue(path string, r []Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.script[path] = append(p.script[path], r...)
}

// take records req and answers its reply and index.
func (p *Provider) take(req Request) (Reply, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	var r Reply
	if q := p.script[req.Path]; len(q) > 0 {
		r, p.script[req.Path] = q[0], q[1:]
	} else if p.obey && req.Path == chatPath {
		r.Tokens = obey(req.JSON)
	}
	return r, len(p.requests) - 1
}

func record(r *http.Request) Request {
	return Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
}

// refuse answers a scripted non-200 status, as a provider does.
func refuse(w http.ResponseWriter, r *http.Request, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": "Incorrect API key provided: " + r.Header.Get("Authorization"),
		"type":    "invalid_request_error", "code": "invalid_api_key",
	}})
}

func (p *Provider) chat(w http.ResponseWriter, r *http.Request) {
	req := record(r)
	if err := json.NewDecoder(r.Body).Decode(&req.JSON); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	reply, idx := p.take(req)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		refuse(w, r, reply.Status)
		return
	}
	tokens := reply.Tokens
	if tokens == nil {
		tokens = []string{"ok"}
	}
	if stream, _ := req.JSON["stream"].(bool); !stream {
		time.Sleep(reply.Delay)
		content, _ := json.Marshal(strings.Join(tokens, ""))
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, content)
		return
	}
	p.stream(w, r, reply, tokens, idx)
}

func (p *Provider) stream(w http.ResponseWriter, r *http.Request, reply Reply, tokens []string, idx int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	send := func(data string) bool {
		select {
		case <-r.Context().Done():
			p.disconnected(idx)
			return false
		case <-time.After(reply.Delay):
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			p.disconnected(idx)
			return false
		}
		flusher.Flush()
		return true
	}
	if !send(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`) {
		return
	}
	for _, tok := range tokens {
		content, _ := json.Marshal(tok)
		if !send(fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`, content)) {
			return
		}
	}
	switch reply.Then {
	case Done:
		if send(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`) {
			send("[DONE]")
		}
	case End:
	case Abort:
		panic(http.ErrAbortHandler) // the server drops the connection without ending the response
	case ErrorEvent:
		send(`{"error":{"message":"The server had an error while processing your request.","type":"server_error","code":"internal_error"}}`)
	case Hang:
		<-r.Context().Done()
		p.disconnected(idx)
	}
}

func (p *Provider) audio(w http.ResponseWriter, r *http.Request) {
	req := record(r)
	_, params, err := mime.ParseMediaType(req.ContentType)
	if err != nil || params["boundary"] == "" {
		http.Error(w, "not multipart", http.StatusBadRequest)
		return
	}
	req.Fields = map[string]string{}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			http.Error(w, "bad multipart", http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(part)
		if part.FormName() == "file" {
			req.File, req.FileName, req.FileContentType = b, part.FileName(), part.Header.Get("Content-Type")
		} else {
			req.Fields[part.FormName()] = string(b)
		}
	}
	reply, _ := p.take(req)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		refuse(w, r, reply.Status)
		return
	}
	if req.File == nil || req.Fields["model"] == "" {
		http.Error(w, `{"error":{"message":"file and model are required","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	time.Sleep(reply.Delay)
	text := reply.Text
	if text == "" {
		text = "hello"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"text": text})
}

func (p *Provider) images(w http.ResponseWriter, r *http.Request) {
	req := record(r)
	if err := json.NewDecoder(r.Body).Decode(&req.JSON); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	reply, _ := p.take(req)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		refuse(w, r, reply.Status)
		return
	}
	time.Sleep(reply.Delay)
	images := reply.Images
	if images == nil {
		n, _ := req.JSON["n"].(float64)
		for i := range int(n) {
			images = append(images, []byte(fmt.Sprintf("image %d", i)))
		}
	}
	data := []map[string]string{}
	for i, img := range images {
		if reply.URLOnly {
			data = append(data, map[string]string{"url": fmt.Sprintf("https://images.example/%d.png", i)})
			continue
		}
		data = append(data, map[string]string{"b64_json": base64.StdEncoding.EncodeToString(img), "revised_prompt": "a picture"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"created": 1, "data": data})
}
