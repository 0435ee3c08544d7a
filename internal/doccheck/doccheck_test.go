package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, two levels up from this package.
const moduleRoot = "../.."

// TestExportedHaveDocComments lists every exported function, method of an
// exported type, type, constant and variable outside tests and testdata that
// has no doc comment (a group's comment counts for its members, and a
// trailing line comment for a constant or variable), and every package
// without a package comment. Methods named Error and String are left out:
// they implement error and fmt.Stringer and say nothing more.
func TestExportedHaveDocComments(t *testing.T) {
	fset := token.NewFileSet()
	var missing []string
	pkgDoc := map[string]bool{} // directory -> some file has a package comment
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != moduleRoot && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		pkgDoc[dir] = pkgDoc[dir] || f.Doc != nil
		missing = append(missing, undocumented(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range pkgDoc {
		if !ok {
			missing = append(missing, dir+": package comment")
		}
	}
	if len(pkgDoc) < 20 {
		t.Fatalf("read only %d packages under %s: the walk is wrong", len(pkgDoc), moduleRoot)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no doc comment: %s", m)
	}
}

// undocumented returns "file:line: kind name" for each exported declaration
// of f without a doc comment.
func undocumented(fset *token.FileSet, f *ast.File) []string {
	var out []string
	add := func(pos token.Pos, kind, name string) {
		p := fset.Position(pos)
		out = append(out, p.Filename+":"+strconv.Itoa(p.Line)+": "+kind+" "+name)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv == nil {
				add(d.Pos(), "func", d.Name.Name)
				continue
			}
			if recv := recvName(d.Recv.List[0].Type); ast.IsExported(recv) && d.Name.Name != "Error" && d.Name.Name != "String" {
				add(d.Pos(), "method", recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						add(s.Pos(), "type", s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
							add(n.Pos(), d.Tok.String(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// recvName is the name of a method's receiver type (T, *T, T[P], *T[P]).
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
