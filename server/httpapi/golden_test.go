package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/render"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current renderings")

const goldenDir = "testdata/golden"

// pretty indents compact JSON without re-marshalling it, so the key order in
// the golden file is the order the renderer wrote.
func pretty(t testing.TB, raw []byte) []byte {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, raw)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

func renderRPC(t testing.TB, f fixture) []byte {
	t.Helper()
	b, err := render.RPCJSONCodecs()[0].Marshal(f.msg)
	if err != nil {
		t.Fatalf("%s: rpc marshal: %v", f.name(), err)
	}
	return b
}

func renderREST(t testing.TB, f fixture) []byte {
	t.Helper()
	b, err := render.RESTMarshaler{}.Marshal(f.restBody)
	if err != nil {
		t.Fatalf("%s: rest marshal: %v", f.name(), err)
	}
	return b
}

func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, file)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./server/httpapi/ -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendering (rerun with -update if the change is intended)\n--- want\n%s--- got\n%s", path, want, got)
	}
}

// TestGolden pins both renderings of every response message (RULINGS "The two
// JSON renderings": a change to either is a visible diff in review).
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range responseFixtures() {
		t.Run(f.name(), func(t *testing.T) {
			rpcFile := f.name() + ".rpc.json"
			restFile := f.name() + ".rest.json"
			if seen[rpcFile] {
				t.Fatalf("duplicate fixture %s", f.name())
			}
			seen[rpcFile], seen[restFile] = true, true
			checkGolden(t, rpcFile, pretty(t, renderRPC(t, f)))
			checkGolden(t, restFile, pretty(t, renderREST(t, f)))
		})
	}
	// A golden file without a fixture is a rendering nobody checks any more.
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !seen[e.Name()] {
			stale = append(stale, e.Name())
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		if *update {
			for _, s := range stale {
				_ = os.Remove(filepath.Join(goldenDir, s))
			}
			return
		}
		t.Errorf("golden files without a fixture: %v", stale)
	}
}

// TestGoldenCoversEveryResponse fails when a service gains a response message
// that has no golden fixture.
func TestGoldenCoversEveryResponse(t *testing.T) {
	have := map[string]bool{}
	for _, f := range responseFixtures() {
		have[string(f.msg.ProtoReflect().Descriptor().FullName())] = true
	}
	for _, name := range allResponseMessages(t) {
		if !have[name] {
			t.Errorf("response message %s has no golden fixture", name)
		}
	}
}
