// Benchmarks: training on src.zip (default subset java.base, cold and from
// the disk cache), Next latency, and the model's size.
//
//	go test ./lm/ngram -run '^$' -bench . -benchtime 1x      (training: one run each)
//	go test ./lm/ngram -run '^$' -bench Next -benchtime 2000x

package ngram

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/lm"
)

func benchTrain(b *testing.B, cache string) *Model {
	var m *Model
	var err error
	for b.Loop() {
		m, err = Train(context.Background(), Sources{Roots: []string{workspaceDir}}, Options{UseJDK: true, CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
	}
	src := m.Sources()
	b.ReportMetric(float64(src[0].Tokens), "jdk-tokens")
	b.ReportMetric(float64(m.SizeBytes())/1e6, "model-MB")
	return m
}

// BenchmarkTrainJDK trains on java.base without a disk cache.
func BenchmarkTrainJDK(b *testing.B) {
	requireJDK(b)
	benchTrain(b, "")
}

// BenchmarkTrainJDKCached trains on java.base with the JDK counts in the
// disk cache (filled before the timer starts).
func BenchmarkTrainJDKCached(b *testing.B) {
	requireJDK(b)
	dir := b.TempDir()
	if _, err := Train(context.Background(), Sources{}, Options{UseJDK: true, CacheDir: dir}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	m := benchTrain(b, dir)
	if !m.Sources()[0].Cached {
		b.Fatal("cache not used")
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
	runtime.KeepAlive(m)
}

var (
	benchOnce  sync.Once
	benchModel *Model
)

// BenchmarkNext measures one Next call (k = 20, as the repair loop asks) on
// the default model (java.base + test workspace), cycling through the
// prefixes of a fix being generated.
func BenchmarkNext(b *testing.B) {
	requireJDK(b)
	benchOnce.Do(func() {
		var err error
		benchModel, err = Train(context.Background(), Sources{Roots: []string{workspaceDir}}, Options{UseJDK: true, CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
	})
	src := readFile(b, heldOutFile)
	at := strings.Index(src, "            Long seen")
	end := at + strings.Index(src[at:], "\n") + 1
	fim := lm.FIM{Prefix: src[:at], Suffix: src[end:], Indent: "            "}
	sess, err := benchModel.Start(context.Background(), fim)
	if err != nil {
		b.Fatal(err)
	}
	var gens []string
	gen := ""
	for _, tok := range streamTexts(src[at:end]) {
		gens = append(gens, gen)
		gen += tok
		if tok != "\n" {
			gen += " "
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := sess.Next(context.Background(), gens[i%len(gens)], 20); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkStart measures opening a session on a 60-line file.
func BenchmarkStart(b *testing.B) {
	m := wsModel(b)
	src := readFile(b, heldOutFile)
	fim := lm.FIM{Prefix: src[:len(src)/2], Suffix: src[len(src)/2:]}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Start(context.Background(), fim); err != nil {
			b.Fatal(err)
		}
	}
}
