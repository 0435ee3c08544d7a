package backend

// buggyahead_test.go: a repair that waits for its backends' start runs the
// tests on the unchanged project meanwhile (repair.StartBuggyAhead).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/repair"
)

// TestPoolRunsBuggyTestsBesideTheStart: a repair with Request.TestBuggy
// whose backends are starting runs the tests on the unchanged project
// during the start (the fake start waits for that run's mark); one whose
// backends are ready does not, nor does one without TestBuggy.
func TestPoolRunsBuggyTestsBesideTheStart(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "src", "A.java")
	text := "class A {\n  int x = 1;\n}\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "runs")
	runs := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "int x = 1;")
	}
	sawRun := make(chan bool, 1)
	start := func(ctx context.Context, root string, progress repair.Progress) (repair.Backends, func() error, error) {
		deadline := time.Now().Add(20 * time.Second)
		for runs() == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		sawRun <- runs() > 0
		return repair.Backends{}, func() error { return nil }, nil
	}
	started := 0
	startBuggyAhead = func(ctx context.Context, req repair.Request) *repair.BuggyAhead {
		started++
		return repair.StartBuggyAhead(ctx, req)
	}
	defer func() { startBuggyAhead = repair.StartBuggyAhead }()
	p := NewPool(start, 1)
	defer p.Close()
	req := repair.Request{Root: root, File: file, Text: text, StartLine: 2, EndLine: 2,
		TestCmd: []string{"sh", "-c", `cat src/A.java >> "$1"`, "sh", log}, TestBuggy: true}
	// The fake backends have no model: the repair fails once started, after
	// the start, which is all this test needs.
	if _, err := p.Repair(context.Background(), req, nil); err == nil {
		t.Fatal("a repair over no model did not fail")
	}
	if !<-sawRun {
		t.Fatal("the start ended without the tests' run on the unchanged project beside it")
	}
	if n := runs(); n != 1 {
		t.Fatalf("%d runs on the unchanged project; want 1", n)
	}
	p.Repair(context.Background(), req, nil) //nolint:errcheck // fails as above
	req.TestBuggy = false
	p.Repair(context.Background(), req, nil) //nolint:errcheck
	if n := runs(); n != 1 || started != 1 {
		t.Fatalf("%d runs on the unchanged project, %d started, after two repairs on ready backends; want still 1", n, started)
	}
}
