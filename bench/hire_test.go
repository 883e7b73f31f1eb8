package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHireBenchmarkReport runs `go run ./bench hire` tiny (the binary
// built, A and B started and connected for real) and checks that the report
// has every variant's row with operations counted, and the ratios. It
// asserts no figure's size: the benchmark measures, the test only runs it.
func TestHireBenchmarkReport(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := runHire(ctx, hireConfig{interleaved: interleaved{each: 200 * time.Millisecond, rounds: 1}, workers: 2}, &out); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, label := range []string{"(h) hire_provider by connection on A, offer stored on B", "(o) hire_provider of a user of A",
		"(l) local: POST /api/v2/queue on A"} {
		row := ""
		for line := range strings.SplitSeq(report, "\n") {
			if strings.HasPrefix(line, "| "+label+" |") {
				row = line
			}
		}
		cells := strings.Split(row, "|")
		if len(cells) != 9 {
			t.Fatalf("no row for %s in the report:\n%s", label, report)
		}
		if ops, err := strconv.Atoi(strings.TrimSpace(cells[2])); err != nil || ops < 1 {
			t.Errorf("%s: ops %q", label, cells[2])
		}
	}
	for _, line := range []string{"- (h) hire by connection: ", "- (o) hire of a local user: ", "- latency p50 of (h): "} {
		if !strings.Contains(report, "\n"+line) {
			t.Errorf("the report has no %q line:\n%s", line, report)
		}
	}
}
