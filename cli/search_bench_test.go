package cli

// search_bench_test.go measures a warm "repilot-lsp search" as a user runs
// it: a new process each time (start, walking and stat'ing the project,
// reading the saved unit cache and lexical index, the query, printing), on
// a code base of 10,000+ units whose caches an earlier run filled. Issue
// 17's target: 100 ms.
//
//	go test ./cli -run '^$' -bench WarmSearchCLI -benchtime 20x
//
// The code base is $REPILOT_BENCH_CLI_CORPUS, else JDK 17's java.util
// (java.base/java/util/** of the src.zip under $JAVA_HOME or
// /usr/lib/jvm/*, 12,103 units), unzipped into a temporary directory. The
// binary is built from this tree, or $REPILOT_BENCH_BIN. With
// $REPILOT_BENCH_BIN_BEFORE set the two binaries run alternately, each
// with its own cache, and the before binary's medians are reported too
// (before-ms-median, ratio), so a change is measured side by side at the
// same load.

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// warmQueries are realistic questions about java.util (any code base
// works: the time hardly depends on the hits).
var warmQueries = []string{
	"remove the eldest entry when the map grows too large",
	"sort a list with a comparator",
	"wait until all tasks have finished",
	"split a string into tokens",
	"check that an argument is not null",
}

func BenchmarkWarmSearchCLI(b *testing.B) {
	root := warmCorpus(b)
	bins := []string{warmBinary(b)}
	if before := os.Getenv("REPILOT_BENCH_BIN_BEFORE"); before != "" {
		bins = append(bins, before)
	}
	caches := make([]string, len(bins))
	for i, bin := range bins {
		caches[i] = b.TempDir()
		// The earlier run that fills the caches (cold: parse and analyse).
		if out, err := exec.Command(bin, "search", "--project", root, "--cache-dir", caches[i], "--quiet", "warm up").CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", bin, err, out)
		}
	}
	wall := make([][]time.Duration, len(bins))
	cpu := make([][]time.Duration, len(bins))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for k := range bins {
			i := (n + k) % len(bins) // alternate which binary goes first
			cmd := exec.Command(bins[i], "search", "--project", root, "--cache-dir", caches[i], "--quiet", "-k", "10",
				warmQueries[n%len(warmQueries)])
			cmd.Stdout = io.Discard
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s: %v", bins[i], err)
			}
			wall[i] = append(wall[i], time.Since(start))
			cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	b.StopTimer()
	b.ReportMetric(medianMs(wall[0]), "ms-median")
	b.ReportMetric(medianMs(cpu[0]), "cpu-ms-median")
	if len(bins) > 1 {
		b.ReportMetric(medianMs(wall[1]), "before-ms-median")
		b.ReportMetric(medianMs(cpu[1]), "before-cpu-ms-median")
		b.ReportMetric(medianMs(wall[1])/medianMs(wall[0]), "ratio")
	}
}

func medianMs(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// warmBinary is $REPILOT_BENCH_BIN, else the binary built from this tree.
func warmBinary(b *testing.B) string {
	if bin := os.Getenv("REPILOT_BENCH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "repilot-lsp")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/repilot-lsp")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// warmCorpus is $REPILOT_BENCH_CLI_CORPUS, else java.util unzipped from
// the JDK's src.zip.
func warmCorpus(b *testing.B) string {
	if dir := os.Getenv("REPILOT_BENCH_CLI_CORPUS"); dir != "" {
		return dir
	}
	var zips []string
	if home := os.Getenv("JAVA_HOME"); home != "" {
		zips = append(zips, filepath.Join(home, "lib", "src.zip"))
	}
	more, _ := filepath.Glob("/usr/lib/jvm/*17*/lib/src.zip")
	zips = append(zips, more...)
	for _, z := range zips {
		r, err := zip.OpenReader(z)
		if err != nil {
			continue
		}
		defer r.Close()
		dir := b.TempDir()
		n := 0
		for _, f := range r.File {
			if !strings.HasPrefix(f.Name, "java.base/java/util/") || !strings.HasSuffix(f.Name, ".java") {
				continue
			}
			if err := unzipTo(f, filepath.Join(dir, filepath.FromSlash(f.Name))); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n > 0 {
			return dir
		}
	}
	b.Skip("no JDK src.zip with java.util (set JAVA_HOME or REPILOT_BENCH_CLI_CORPUS)")
	return ""
}

func unzipTo(f *zip.File, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, io.LimitReader(r, 16<<20)); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
