package backend

// failfast_test.go: a repair request that can be known bad is refused before
// any backend starts (the engine start is 30-60 s of JDT LS).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestPoolRefusesBadRequestsBeforeStarting(t *testing.T) {
	root := testtree.New(t, map[string]string{
		"src/A.java": "class A {\n  int f() {\n    return 1;\n  }\n}\n",
		"README.txt": "not java\n",
	})
	text, err := os.ReadFile(filepath.Join(root, "src/A.java"))
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "C.java")
	ok := repair.Request{Root: root, File: filepath.Join(root, "src/A.java"), Text: string(text), StartLine: 3, EndLine: 3}
	for _, c := range []struct {
		name string
		edit func(r *repair.Request)
		want string
	}{
		{"outside the workspace", func(r *repair.Request) { r.File = outside }, "not inside the project"},
		{"not Java", func(r *repair.Request) { r.File = filepath.Join(root, "README.txt") }, "not a .java file"},
		{"range past the end", func(r *repair.Request) { r.EndLine = 9 }, "end line 9 out of range"},
		{"no test program", func(r *repair.Request) { r.TestCmd = []string{"no-such-test-runner-xyz"} }, "cannot run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeStarts()
			p := NewPool(f.start, 2)
			defer p.Close()
			req := ok
			c.edit(&req)
			_, err := p.Repair(context.Background(), req, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if s, _ := f.counts(root); s != 0 {
				t.Fatalf("the backends were started %d times for a bad request", s)
			}
		})
	}
}
