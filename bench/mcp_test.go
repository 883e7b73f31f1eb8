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
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
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
