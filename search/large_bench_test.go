package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeJava returns a generated Java file of n one-line methods with
// distinct nine-letter names (60,000 of them: 1.9 MB, under
// units.MaxFileBytes), the shape of a parser table or a generated API.
func largeJava(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("package big;\n\npublic class Big {\n")
	name := make([]byte, 9)
	for i := 0; i < n; i++ {
		for j := range name {
			name[j] = byte('a' + r.IntN(26))
		}
		fmt.Fprintf(&b, " int %s(int x){return x;}\n", name)
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkIndexLargeFile indexes one generated file of 60,000 methods from
// scratch and runs one query that matches them all (search/README.md,
// "A large file"):
//
//	go test ./search -run '^$' -bench IndexLargeFile -benchtime 3x -memprofile /tmp/mem.out
func BenchmarkIndexLargeFile(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Big.java"), []byte(largeJava(60000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e, err := New(Config{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Build(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		if n := e.Index().Len(); n != 60001 {
			b.Fatalf("%d units, want 60,001", n)
		}
		if _, err := e.Search(context.Background(), Query{Text: "return x", K: 10}); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
