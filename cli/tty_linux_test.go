package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestServeTTYHint: serve tells a person at a terminal what it is waiting
// for, and says nothing when its stdin is a pipe or a file (an editor).
func TestServeTTYHint(t *testing.T) {
	// A pseudo-terminal: the pts side is what a shell gives as stdin.
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening /dev/ptmx: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pty: %v", err)
	}
	defer pts.Close()
	if h := serveTTYHint(pts); !strings.Contains(h, "waits for LSP messages on stdin") || !strings.Contains(h, `"repilot-lsp help"`) {
		t.Errorf("terminal stdin: hint %q", h)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for name, f := range map[string]*os.File{"pipe": r, "/dev/null": devnull} {
		if h := serveTTYHint(f); h != "" {
			t.Errorf("%s as stdin: hint %q, want none", name, h)
		}
	}
}
