package server

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/switchboard-hq/switchboard/"

// transport are the packages that alone may import server/httpapi (RULINGS
// "Details for the house issue"): the root composes, the rest carry requests.
var transport = []string{
	"server", "server/httpapi", "server/gate", "server/idempotency", "server/contract",
	"server/input", "server/events", "server/servertest",
}

// forbidden are folder edges the issue names (issue 27, point 1): the store
// reacts to the queue through events, the chat does not reach into the network.
var forbidden = [][2]string{{"store", "queue"}, {"chat", "network"}}

// byCaller names, for each service split at the trust boundary, its shared
// core and the packages by who calls.
var byCaller = map[string][]string{
	"server/network":    {"server/network/operator", "server/network/peers", "server/network/relays"},
	"server/federation": {"server/federation/hub", "server/federation/spoke"},
}

// imports reads the non-test imports of every package under server/, within
// this module, as paths relative to the module ("server/queue").
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Join("server", filepath.ToSlash(filepath.Dir(p)))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(out[pkg], rel) {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 30 {
		t.Fatalf("found only %d packages under server/", len(out))
	}
	return out
}

// folder is the first path element under server/ ("store" for
// server/store/engine); the root package is its own folder ".".
func folder(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "server/")
	if !ok {
		return "."
	}
	first, _, _ := strings.Cut(rest, "/")
	return first
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// The house's dependency rules (issue 27, acceptance): the domain knows no
// transport, webhooks knows no domain, the store does not reach into the
// queue, and no two folders import each other.
func TestDependencies(t *testing.T) {
	deps := imports(t)
	pkgs := make([]string, 0, len(deps))
	for p := range deps {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)

	t.Run("only the transport imports httpapi", func(t *testing.T) {
		for _, p := range pkgs {
			if slices.Contains(deps[p], "server/httpapi") && !slices.Contains(transport, p) {
				t.Errorf("%s imports server/httpapi; only the transport packages may (%v)", p, transport)
			}
		}
	})

	t.Run("webhooks imports no domain", func(t *testing.T) {
		allowed := func(imp string) bool {
			switch {
			case slices.Contains(transport, imp), under(imp, "server/apperr"), under(imp, "server/auth"),
				under(imp, "server/page"), under(imp, "server/webhooks"),
				under(imp, "internal"), under(imp, "ent"), under(imp, "gen"):
				return true
			}
			return false
		}
		for _, p := range pkgs {
			if !under(p, "server/webhooks") {
				continue
			}
			for _, imp := range deps[p] {
				if !allowed(imp) {
					t.Errorf("%s imports %s; webhooks may import only the transport, apperr, auth, page, internal/, ent/ and gen/", p, imp)
				}
			}
		}
	})

	// Issue 27, point 2: the operator network and federation are packages by
	// who calls; the callers' packages share a core and never import each
	// other, and the core imports none of them.
	t.Run("services split by who calls", func(t *testing.T) {
		for core, callers := range byCaller {
			for _, p := range append([]string{core}, callers...) {
				if _, ok := deps[p]; !ok {
					t.Fatalf("package %s is gone: update byCaller", p)
				}
				for _, other := range callers {
					if other != p && slices.Contains(deps[p], other) {
						t.Errorf("%s imports %s: the packages by who calls share only %s", p, other, core)
					}
				}
			}
		}
	})

	t.Run("no forbidden edge and no loop between folders", func(t *testing.T) {
		edges := folderEdges(pkgs, deps)
		for _, e := range forbidden {
			if why, ok := edges[e[0]][e[1]]; ok {
				t.Errorf("folder %s must not import folder %s: %s", e[0], e[1], why)
			}
		}
		for _, loop := range cycles(edges) {
			t.Errorf("folders %s import each other in a loop: %s", strings.Join(loop, ", "), strings.Join(within(edges, loop), "; "))
		}
	})
}

// folderEdges names, for each pair of folders a → b, one package of a that
// imports one of b. Test helpers (packages named …test, such as servertest and
// network/networktest) stand above what they set up and are left out.
func folderEdges(pkgs []string, deps map[string][]string) map[string]map[string]string {
	edges := map[string]map[string]string{}
	for _, p := range pkgs {
		if strings.HasSuffix(p, "test") {
			continue
		}
		for _, imp := range deps[p] {
			if !under(imp, "server") || strings.HasSuffix(imp, "test") {
				continue
			}
			a, b := folder(p), folder(imp)
			if a == b {
				continue
			}
			if edges[a] == nil {
				edges[a] = map[string]string{}
			}
			edges[a][b] = p + " → " + imp
		}
	}
	return edges
}

// within lists the imports between the folders of one loop.
func within(edges map[string]map[string]string, loop []string) []string {
	var out []string
	for _, a := range loop {
		for _, b := range loop {
			if why, ok := edges[a][b]; ok {
				out = append(out, why)
			}
		}
	}
	return out
}

// cycles answers the strongly connected components of more than one folder
// (Tarjan), each sorted: the folders that reach one another.
func cycles(edges map[string]map[string]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	var stack []string
	onStack := map[string]bool{}
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for w := range edges[v] {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > 1 {
			sort.Strings(comp)
			out = append(out, comp)
		}
	}
	names := make([]string, 0, len(edges))
	for a := range edges {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if _, ok := index[a]; !ok {
			visit(a)
		}
	}
	return out
}
func TestFolder(t *testing.T) {
	for pkg, want := range map[string]string{
		"server": ".", "server/queue": "queue", "server/store/engine": "store", "server/federation/audit": "federation",
	} {
		if got := folder(pkg); got != want {
			t.Errorf("folder(%q) = %q, want %q", pkg, got, want)
		}
	}
}

func TestCycles(t *testing.T) {
	edges := map[string]map[string]string{
		"a": {"b": ""}, "b": {"c": ""}, "c": {"a": ""}, "d": {"a": ""}, "e": {"f": ""},
	}
	got := cycles(edges)
	if len(got) != 1 || strings.Join(got[0], " ") != "a b c" {
		t.Errorf("cycles = %v, want [[a b c]]", got)
	}
}
