package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// asyncStates are answers (a status field, or an A2A task state) that say
// the agent took the task and will deliver the result later.
var asyncStates = map[string]bool{
	"accepted": true, "async": true, "pending": true, "processing": true,
	"submitted": true, "working": true, "queued": true, "running": true,
}

// outputKeys are the fields an agent's JSON answer may carry its text in,
// in the order they are looked for.
var outputKeys = []string{"output", "result", "response", "message", "text", "content", "answer"}

// Parse reads a 2xx answer. HTTP 202 is accepted whatever the body; a body
// with price_quote is a quote; a JSON body takes its text from the first of
// output, result, response, message, text, content, answer (an object there
// is kept as JSON text); the a2a format reads a JSON-RPC result (artifacts'
// text parts, else the status message); a body that is not JSON is the
// output as is.
func Parse(format string, status int, raw []byte) (Result, error) {
	if status == http.StatusAccepted {
		return Result{Kind: KindAccepted}, nil
	}
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" {
		return Result{Kind: KindOutput}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(trimmed), &v); err != nil {
		return Result{Kind: KindOutput, Output: string(raw)}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok {
			return Result{Kind: KindOutput, Output: s}, nil
		}
		return Result{Kind: KindOutput, Output: trimmed}, nil
	}
	if format == FormatA2A || obj["jsonrpc"] != nil {
		return parseA2A(obj)
	}
	return parseObject(obj)
}

func parseObject(obj map[string]any) (Result, error) {
	if q, ok, err := quote(obj); ok || err != nil {
		return Result{Kind: KindQuote, Quote: q}, err
	}
	if text, ok := findOutput(obj); ok {
		return Result{Kind: KindOutput, Output: text}, nil
	}
	if s, ok := obj["status"].(string); ok && asyncStates[strings.ToLower(s)] {
		return Result{Kind: KindAccepted}, nil
	}
	if e, ok := obj["error"]; ok && e != nil {
		return Result{}, fmt.Errorf("agent answered an error: %s", text(e))
	}
	b, _ := json.Marshal(obj)
	return Result{Kind: KindOutput, Output: string(b)}, nil
}

func parseA2A(obj map[string]any) (Result, error) {
	if e, ok := obj["error"]; ok && e != nil {
		return Result{}, fmt.Errorf("agent answered a JSON-RPC error: %s", text(e))
	}
	res, ok := obj["result"].(map[string]any)
	if !ok {
		return parseObject(obj)
	}
	if q, ok, err := quote(res); ok || err != nil {
		return Result{Kind: KindQuote, Quote: q}, err
	}
	var parts []string
	if arts, ok := res["artifacts"].([]any); ok {
		for _, a := range arts {
			if am, ok := a.(map[string]any); ok {
				parts = append(parts, textParts(am["parts"])...)
			}
		}
	}
	state := ""
	if st, ok := res["status"].(map[string]any); ok {
		state, _ = st["state"].(string)
		if len(parts) == 0 {
			if m, ok := st["message"].(map[string]any); ok {
				parts = textParts(m["parts"])
			}
		}
	}
	switch strings.ToLower(state) {
	case "failed", "canceled", "rejected":
		return Result{}, fmt.Errorf("agent task %s: %s", state, strings.Join(parts, "\n"))
	}
	if len(parts) == 0 && asyncStates[strings.ToLower(state)] {
		return Result{Kind: KindAccepted}, nil
	}
	if len(parts) == 0 {
		if parts = textParts(res["parts"]); len(parts) == 0 {
			return parseObject(res)
		}
	}
	return Result{Kind: KindOutput, Output: strings.Join(parts, "\n")}, nil
}

func textParts(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, p := range list {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if t, ok := pm["text"].(string); ok {
			out = append(out, t)
		}
	}
	return out
}

// quote reads obj.price_quote (or priceQuote): an amount above 0 is
// required; the currency defaults later to the listing's.
func quote(obj map[string]any) (*Quote, bool, error) {
	raw, ok := obj["price_quote"]
	if !ok {
		raw, ok = obj["priceQuote"]
	}
	if !ok || raw == nil {
		return nil, false, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		if n, isNum := raw.(float64); isNum {
			m = map[string]any{"amount": n}
		} else {
			return nil, true, fmt.Errorf("price_quote must be an object {amount, currency, breakdown}")
		}
	}
	amount, ok := m["amount"].(float64)
	cents, err := money.Round(amount)
	if !ok || err != nil || cents <= 0 || amount > 1e9 {
		return nil, true, fmt.Errorf("price_quote.amount must be a number of at least 0.01 and at most 1e9")
	}
	q := &Quote{Amount: cents}
	q.Currency, _ = m["currency"].(string)
	q.Currency = strings.ToUpper(q.Currency)
	q.Breakdown = text(m["breakdown"])
	return q, true, nil
}

func findOutput(obj map[string]any) (string, bool) {
	for _, k := range outputKeys {
		v, ok := obj[k]
		if !ok || v == nil {
			continue
		}
		return text(v), true
	}
	return "", false
}

// text renders a JSON value as text: strings as they are, anything else as
// JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Conforms is the conformance probe's verdict on one Send: a finished answer
// with text, a price quote, or an accepted task conforms; anything else
// fails with a hint meant for the developer.
func Conforms(res Result, err error) (bool, string) {
	if err != nil {
		var se *StatusError
		var ue *UnreachableError
		switch {
		case errors.As(err, &ue):
			return false, "the endpoint could not be reached: " + egress.Reason(ue.cause)
		case Timeout(err):
			return false, "the endpoint did not answer within 30 seconds; answer synchronously or with HTTP 202 and deliver the result to the callback"
		case asStatus(err, &se):
			return false, fmt.Sprintf("the endpoint answered HTTP %d; it must answer 2xx to a POST with the documented body and auth headers", se.Code)
		}
		return false, "the endpoint could not be reached or answered something unreadable: " + err.Error()
	}
	switch res.Kind {
	case KindOutput:
		if strings.TrimSpace(res.Output) == "" {
			return false, "the answer carried no output; put the text in an output field (or, for a2a, in the task's artifacts)"
		}
		return true, ""
	case KindQuote, KindAccepted:
		return true, ""
	}
	return false, "unrecognized answer"
}

func asStatus(err error, target **StatusError) bool { return errors.As(err, target) }
