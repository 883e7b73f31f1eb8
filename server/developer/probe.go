package developer

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// Verdict is what a conformance probe found.
type Verdict struct {
	Conforms bool
	// Hint says why not; empty when it conforms.
	Hint       string
	HTTPStatus *int
	ResponseMS int
}

// Prober sends the conformance probe: the seeded task to the agent in the
// real dispatch shape, flagged as a test (X-Service-Test, body test: true).
// credential is the agent's opened credential ("" for auth method none).
type Prober interface {
	Probe(ctx context.Context, agent *ent.StoreAgent, credential, task string) Verdict
}

// seededTask is the agent task every registration seeds: the text the probe
// sends and the ship-gate run records.
func seededTask(name string) string {
	return fmt.Sprintf("Ship-gate conformance check for %q: reply to this test task with a short confirmation.", name)
}

// probeTimeout is the synchronous agent call's limit (document 2, "Execution
// contract": 30 seconds).
const probeTimeout = 30 * time.Second

// httpProber is the built-in Prober: one POST as a store execution sends it.
type httpProber struct{ client *http.Client }

func newHTTPProber(p egress.Policy) *httpProber { return &httpProber{client: p.Client(probeTimeout)} }

// probeBody is the body by inputFormat (document 2, "Execution contract")
// plus the test flag.
func probeBody(format, executionID, task string) ([]byte, error) {
	switch format {
	case "json":
		return json.Marshal(map[string]any{"task": task, "executionId": executionID, "test": true})
	case "a2a":
		return json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": executionID, "method": "tasks/send", "test": true,
			"params": map[string]any{"id": executionID, "message": map[string]any{
				"role": "user", "parts": []map[string]any{{"type": "text", "text": task}},
			}},
		})
	}
	return json.Marshal(map[string]any{"message": task, "test": true})
}

func (p *httpProber) Probe(ctx context.Context, a *ent.StoreAgent, credential, task string) Verdict {
	if a.EndpointURL == nil {
		return Verdict{Hint: "the agent has no endpointUrl"}
	}
	executionID := ids.New()
	body, err := probeBody(string(a.InputFormat), executionID, task)
	if err != nil {
		return Verdict{Hint: "could not build the probe: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, *a.EndpointURL, bytes.NewReader(body))
	if err != nil {
		return Verdict{Hint: "endpointUrl is not callable: " + err.Error()}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("X-Service-Execution-Id", executionID)
	h.Set("X-Service-Source", "marketplace")
	h.Set("X-Service-Test", "true")
	switch a.AuthMethod {
	case "bearer":
		h.Set("Authorization", "Bearer "+credential)
	case "api_key":
		h.Set("X-API-Key", credential)
	case "hmac":
		mac := hmac.New(sha256.New, []byte(credential))
		mac.Write(body)
		h.Set("X-Service-Signature", hex.EncodeToString(mac.Sum(nil)))
	}
	start := time.Now()
	resp, err := p.client.Do(req)
	ms := int(time.Since(start).Milliseconds())
	if err != nil {
		if egress.Refused(err) {
			return Verdict{ResponseMS: ms, Hint: "the endpoint's address is not allowed (private or loopback)"}
		}
		return Verdict{ResponseMS: ms, Hint: "the endpoint did not answer: " + errText(err)}
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	status := resp.StatusCode
	v := judge(string(a.InputFormat), status, raw)
	v.HTTPStatus, v.ResponseMS = &status, ms
	return v
}

// errText keeps a transport error short and free of our own addresses.
func errText(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// judge is the conformance verdict of an answer: a 2xx whose body carries an
// output in the agent's format. Text and json agents answer a JSON object
// with output (or result, response, message, text) or plain text; a2a agents
// a JSON-RPC result, not an error.
func judge(format string, status int, body []byte) Verdict {
	if status < 200 || status > 299 {
		return Verdict{Hint: fmt.Sprintf("the endpoint answered HTTP %d; a conforming agent answers 2xx", status)}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return Verdict{Hint: "the endpoint answered an empty body; answer the task's output"}
	}
	var obj map[string]any
	isObject := json.Unmarshal(trimmed, &obj) == nil
	if format == "a2a" {
		if !isObject || obj["jsonrpc"] != "2.0" {
			return Verdict{Hint: "an a2a agent answers a JSON-RPC 2.0 object ({jsonrpc: \"2.0\", id, result})"}
		}
		if obj["error"] != nil {
			return Verdict{Hint: "the agent answered a JSON-RPC error to tasks/send"}
		}
		if obj["result"] == nil {
			return Verdict{Hint: "the JSON-RPC answer has no result"}
		}
		return Verdict{Conforms: true}
	}
	if !isObject {
		return Verdict{Conforms: true} // plain text is the output
	}
	for _, k := range []string{"output", "result", "response", "message", "text"} {
		if v, ok := obj[k]; ok && v != nil && v != "" {
			return Verdict{Conforms: true}
		}
	}
	return Verdict{Hint: "the JSON answer has no output field (output, result, response, message or text)"}
}

// healthTimeout bounds the health check.
const healthTimeout = 10 * time.Second

// healthCheck GETs url and answers the status, or why there is none.
func healthCheck(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
