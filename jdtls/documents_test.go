package jdtls

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// TestURIPath: FileURI and URIPath are inverses on absolute paths; a file
// URI that names no absolute path, and another scheme, are errors.
func TestURIPath(t *testing.T) {
	for _, p := range []string{"/work/p/A.java", "/work/My Docs/B.java"} {
		if got, err := URIPath(FileURI(p)); err != nil || got != p {
			t.Errorf("URIPath(FileURI(%q)) = %q, %v", p, got, err)
		}
	}
	for _, uri := range []string{"file:A.java", "file:", "jdt://contents/x", "%zz"} {
		if got, err := URIPath(uri); err == nil {
			t.Errorf("URIPath(%q) = %q, want an error", uri, got)
		}
	}
}

// TestWriteAfterExitIsErrExited: a request or notification whose write
// fails because the process has exited (our end of its stdin closed: "file
// already closed") reports ErrExited with the exit status, not the bare
// write error.
func TestWriteAfterExitIsErrExited(t *testing.T) {
	c := offlineClient(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	pw.Close()
	c.conn = jsonrpc.NewConn(strings.NewReader(""), pw, IDPrefix, c.handle)
	go func() {
		time.Sleep(100 * time.Millisecond)
		c.exitErr = fmt.Errorf("%w (signal: killed)", ErrExited)
		close(c.done)
	}()
	ctx := context.Background()
	if _, err := c.Completion(ctx, "file:///p/A.java", textpos.Position{}); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Completion after the process exited: %v; want ErrExited with its status", err)
	}
}
