package server

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/architecture.md names every Go package of the repository (generated
// code aside), so a new package comes with its line (issue 11, item 5).
func TestArchitectureCoversEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (name == "gen" || name == "ent" || name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		seen[dir] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 30 {
		t.Fatalf("found only %d packages: %v", len(seen), seen)
	}
	for dir := range seen {
		if !strings.Contains(string(doc), "`"+dir+"`") && !strings.Contains(string(doc), "`"+dir+"/`") {
			t.Errorf("docs/architecture.md does not name the package `%s`", dir)
		}
	}
}
