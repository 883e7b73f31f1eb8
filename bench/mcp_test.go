package main

// Where an MCP queue_list call's CPU goes beyond the Connect call's
// (bench/RESULTS.md "MCP against Connect"):
//
//	go test ./bench -run '^$' -bench 'ListMCP|ListConnect|MCPOutput' -benchtime 3s
//
// BenchmarkMCPOutputSchema repeats what the Go SDK does with every typed
// tool's answer before sending it: decode the structured output into any and
// validate it against the tool's output schema (applySchema in the SDK's
// server.go), here on the real 50-item page.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func BenchmarkMCPOutputSchema(b *testing.B) {
	f := newFixture(b, profileItems)
	c := f.s.WithKey(f.key)
	listed := c.Do(http.MethodPost, mcpPath, `{"method":"tools/list"}`)
	expect(b, listed, http.StatusOK)
	var tools struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(listed.Body, &tools); err != nil {
		b.Fatal(err)
	}
	var schema jsonschema.Schema
	for _, t := range tools.Tools {
		if t.Name == "queue_list" {
			if err := json.Unmarshal(t.OutputSchema, &schema); err != nil {
				b.Fatal(err)
			}
		}
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	called := c.Do(http.MethodPost, mcpPath, `{"method":"tools/call","params":{"name":"queue_list","arguments":{"limit":50}}}`)
	expect(b, called, http.StatusOK)
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(called.Body, &res); err != nil || len(res.StructuredContent) < 1000 {
		b.Fatalf("no page: %v %.200s", err, called.Body)
	}
	b.SetBytes(int64(len(res.StructuredContent)))
	b.ResetTimer()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(res.StructuredContent, &v); err != nil {
			b.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMCPAnswerEncoding is what the Go SDK does to send one queue_list
// answer, on the real 50-item page, and nothing else: the door's result
// (structuredContent and its text rendering, as RULINGS "MCP" asks) through
// CallToolResult.MarshalJSON into a raw result, then the JSON-RPC response
// around it, each with an Encoder that does not escape HTML, as the SDK's
// jsonrpc2 marshalToRaw and EncodeMessage do (internal, so mirrored here).
// Set against BenchmarkListConnect's whole request (client included) it
// says how much of Connect's cost the SDK's encoding alone adds.
func BenchmarkMCPAnswerEncoding(b *testing.B) {
	f := newFixture(b, profileItems)
	called := f.s.WithKey(f.key).Do(http.MethodPost, mcpPath, `{"method":"tools/call","params":{"name":"queue_list","arguments":{"limit":50}}}`)
	expect(b, called, http.StatusOK)
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(called.Body, &res); err != nil || len(res.StructuredContent) < 1000 {
		b.Fatalf("no page: %v %.200s", err, called.Body)
	}
	answer := &sdk.CallToolResult{StructuredContent: res.StructuredContent, Content: []sdk.Content{&sdk.TextContent{Text: string(res.StructuredContent)}}}
	encode := func(v any) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	type response struct {
		Version string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Result  json.RawMessage `json:"result"`
	}
	for _, form := range []struct {
		name   string
		answer *sdk.CallToolResult
	}{
		{"structured+text", answer},
		// What the same page costs without the text rendering, for the
		// report's arithmetic (RULINGS asks for both).
		{"structured", &sdk.CallToolResult{StructuredContent: res.StructuredContent, Content: []sdk.Content{}}},
	} {
		b.Run(form.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				n = len(encode(&response{Version: "2.0", ID: 1, Result: encode(form.answer)}))
			}
			b.ReportMetric(float64(n), "bytes/answer")
		})
	}
}
