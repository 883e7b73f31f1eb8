package mcp

import (
	"encoding/json"
	"net/http"
	"testing"
)

// The bare answer's result is taken from the SDK's envelope without a
// decode; whatever is not a plain result (an error, another status, another
// shape) goes to the decoder, which words it.
func TestBareResult(t *testing.T) {
	result := `{"content":[{"type":"text","text":"{\"items\":[]}"}],"structuredContent":{"items":[],"total":0}}`
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string // "" when the decoder must read it
	}{
		{"a result", http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":` + result + `}`, result},
		{"a result and a newline", http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":` + result + "}\n", result},
		{"an error", http.StatusOK, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, ""},
		{"an error under a 4xx", http.StatusBadRequest, `{"jsonrpc":"2.0","id":1,"result":` + result + `}`, ""},
		{"another id", http.StatusOK, `{"jsonrpc":"2.0","id":2,"result":` + result + `}`, ""},
		{"a result that is no object", http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":[1]}`, ""},
		{"cut short", http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":`, ""},
	} {
		got, ok := bareResult(tc.status, []byte(tc.body))
		if ok != (tc.want != "") || string(got) != tc.want {
			t.Errorf("%s: bareResult = %q, %v; want %q", tc.name, got, ok, tc.want)
			continue
		}
		if !ok {
			continue
		}
		// The decoder would have answered the same bytes.
		var answer struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(tc.body), &answer); err != nil || string(answer.Result) != string(got) {
			t.Errorf("%s: the decoder reads %q (%v), the fast path %q", tc.name, answer.Result, err, got)
		}
	}
}
