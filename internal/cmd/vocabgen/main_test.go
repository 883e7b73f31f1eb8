package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The committed constants are what the generator writes from today's
// descriptors (CI regenerates and diffs too; this fails in go test already).
func TestCommittedFilesAreCurrent(t *testing.T) {
	goSrc, err := render(vocab.All())
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{
		filepath.Join("..", "..", "vocab", "terms.gen.go"):                          goSrc,
		filepath.Join("..", "..", "..", "web", "src", "gen", "vocabulary_terms.ts"): renderTS(vocab.All()),
	} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what vocabgen writes: run scripts/generate", path)
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"queue_status": "QueueStatus", "api_key": "APIKey", "a2a": "A2A", "topic-filter": "TopicFilter",
		"retry_success": "RetrySuccess", "hr": "HR",
	} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
}

// Two values whose names collide are refused rather than written twice.
func TestCollisionRefused(t *testing.T) {
	sets := []*vocab.Set{{Name: "x", Values: []string{"a_b", "a-b"}, Labels: map[string]string{"a_b": "A", "a-b": "A"}}}
	if _, err := render(sets); err == nil {
		t.Error("render accepted two values named XAB")
	}
}
