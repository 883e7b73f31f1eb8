package server_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The house issue (27) point 4: storage errors are mapped once, by
// apperr.From on the way out (not found 404, unique 409, other constraints
// and validation 400, the rest a logged 500). A call site that hands a
// storage error to apperr.Internal hides a mapped error as 500; one that
// hands it to apperr.Wrap maps it early, for nothing. Both are refused
// everywhere under server/: the argument is an error that came straight from
// ent (a method of a package under ent/) or from internal/db (a unit of
// work, a lock: dbStorage), either as the call itself or as the variable the last such
// call assigned before the wrap. A mapping with a domain meaning (ent.IsNotFound
// → a 404 naming the thing) is an apperr.NotFound or Conflict, not caught here.
func TestNoStorageErrorWrappedAtTheCallSite(t *testing.T) {
	var found []string
	for _, p := range typedPackages(t) {
		if !strings.HasPrefix(p.PkgPath, module+"/server") {
			continue
		}
		for _, f := range p.Syntax {
			if strings.HasSuffix(p.Fset.Position(f.Pos()).Filename, "_test.go") {
				continue
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
					found = append(found, storageWraps(p, fn.Body)...)
				}
			}
		}
	}
	if len(found) > 0 {
		sort.Strings(found)
		t.Fatalf("storage errors wrapped instead of returned as they are (apperr.From maps them once):\n%s", strings.Join(found, "\n"))
	}
}

// storageWraps lists the apperr.Internal and apperr.Wrap calls in body whose
// argument is a storage error. It walks the body in source order, noting for
// each variable whether the last call assigned to it was a storage call; a
// closure's body is walked as part of its function, so an error assigned in
// one branch and wrapped in another reads as the last assignment before it.
func storageWraps(p *packages.Package, body *ast.BlockStmt) []string {
	fromStorage := map[types.Object]bool{}
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			storage := len(n.Rhs) == 1 && isStorageCall(p, n.Rhs[0])
			for _, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok {
					if obj := objectOf(p, id); obj != nil && isError(obj.Type()) {
						fromStorage[obj] = storage
					}
				}
			}
		case *ast.CallExpr:
			name := apperrWrapper(p, n)
			if name == "" || len(n.Args) != 1 {
				return true
			}
			arg := ast.Unparen(n.Args[0])
			storage := isStorageCall(p, arg)
			if id, ok := arg.(*ast.Ident); ok {
				storage = fromStorage[objectOf(p, id)]
			}
			if storage {
				out = append(out, position(p.Fset, n.Pos())+": apperr."+name+" of a storage error")
			}
		}
		return true
	})
	return out
}

// apperrWrapper is "Internal" or "Wrap" when call is apperr.Internal or
// apperr.Wrap, "" otherwise.
func apperrWrapper(p *packages.Package, call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := p.TypesInfo.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != module+"/server/apperr" {
		return ""
	}
	if fn.Name() == "Internal" || fn.Name() == "Wrap" {
		return fn.Name()
	}
	return ""
}

// isStorageCall reports whether e is a call of a function or method declared
// in ent's generated packages or in internal/db.
func isStorageCall(p *packages.Package, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		id = fun.Sel
	case *ast.Ident:
		id = fun
	case *ast.IndexExpr: // a generic function: db.InTxValue[T]
		if sel, ok := fun.X.(*ast.SelectorExpr); ok {
			id = sel.Sel
		}
	}
	if id == nil {
		return false
	}
	fn, ok := p.TypesInfo.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	if path == module+"/internal/db" {
		return dbStorage[fn.Name()]
	}
	return path == module+"/ent" || strings.HasPrefix(path, module+"/ent/")
}

// dbStorage are internal/db's calls whose errors are the database's: a unit
// of work (its rows' errors, or its function's) and a lock. Publish is not
// among them: its error is an after-commit subscriber's.
var dbStorage = map[string]bool{"InTx": true, "InTxValue": true, "Serialize": true}

func objectOf(p *packages.Package, id *ast.Ident) types.Object {
	if obj := p.TypesInfo.Defs[id]; obj != nil {
		return obj
	}
	return p.TypesInfo.Uses[id]
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

func position(fset *token.FileSet, pos token.Pos) string {
	at := fset.Position(pos)
	if i := strings.Index(at.Filename, "/server/"); i >= 0 {
		at.Filename = at.Filename[i+1:]
	}
	return at.String()
}
