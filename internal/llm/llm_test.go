package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
)

func TestCompleteJSONSpeaksTheWireFormat(t *testing.T) {
	var got request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "bad request", 400)
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"{\"answer\":42}"}}]}`))
	}))
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL + "/v1/", APIKey: "k", Model: "m1"})
	var out struct{ Answer int }
	if err := c.CompleteJSON(context.Background(), "sys", "usr", &out); err != nil || out.Answer != 42 {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	if got.Model != "m1" || len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.ResponseFormat["type"] != "json_object" {
		t.Fatalf("request = %+v", got)
	}
}

func TestCompleteJSONFailures(t *testing.T) {
	for name, answer := range map[string]string{
		"status":     "",
		"malformed":  `{"choices":`,
		"no choices": `{"choices":[]}`,
		"not json":   `{"choices":[{"message":{"content":"sure! here it is"}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if answer == "" {
					http.Error(w, "overloaded", 503)
					return
				}
				_, _ = w.Write([]byte(answer))
			}))
			defer srv.Close()
			var out map[string]any
			if err := New(Config{BaseURL: srv.URL}).CompleteJSON(context.Background(), "s", "u", &out); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if New(Config{}) != nil {
		t.Fatal("an empty config must mean no client")
	}
}

// The fake's JSON chat answer is the optimizer's wire format too, and a
// refused connection aside nothing is retried there.
func TestCompleteJSONAgainstTheFake(t *testing.T) {
	p := llmtest.New(t)
	p.Chat(llmtest.Reply{Tokens: []string{`{"answer":`, `42}`}}, llmtest.Reply{Status: 503}, llmtest.Reply{Tokens: []string{`{"answer":1}`}})
	c := newClient(p, Timeouts{})
	var out struct{ Answer int }
	if err := c.CompleteJSON(context.Background(), "sys", "usr", &out); err != nil || out.Answer != 42 {
		t.Fatalf("out = %+v, err = %v", out, err)
	}
	body := p.Requests()[0].JSON
	if body["temperature"] != float64(0) || body["stream"] != nil || body["response_format"].(map[string]any)["type"] != "json_object" {
		t.Fatalf("body = %v", body)
	}
	var se *StatusError
	if err := c.CompleteJSON(context.Background(), "sys", "usr", &out); !errors.As(err, &se) || se.Status != 503 || len(p.Requests()) != 2 {
		t.Fatalf("err = %v, %d requests", err, len(p.Requests()))
	}
}
