package jdtls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// stuckClient is an offline Client whose connection writes into a pipe that
// nobody reads until release is called, as JDT LS stops reading its input
// while a notification handler waits for a workspace lock. read returns
// the messages written so far, in order (once: it closes the pipe).
func stuckClient(t *testing.T) (c *Client, release func(), read func() []*jsonrpc.Message) {
	t.Helper()
	c = offlineClient(t)
	pr, pw := io.Pipe()
	t.Cleanup(func() { pr.Close(); pw.Close() })
	in, inw := io.Pipe()
	t.Cleanup(func() { inw.Close() })
	c.conn = jsonrpc.NewConn(in, pw, IDPrefix, c.handle)
	var got bytes.Buffer
	copied := make(chan struct{})
	started := false
	release = func() {
		started = true
		go func() { _, _ = io.Copy(&got, pr); close(copied) }()
	}
	read = func() []*jsonrpc.Message {
		if !started {
			return nil
		}
		pw.Close()
		<-copied
		r := jsonrpc.NewReader(bytes.NewReader(got.Bytes()))
		var out []*jsonrpc.Message
		for {
			m, err := r.Read()
			if err != nil {
				return out
			}
			out = append(out, m)
		}
	}
	return c, release, read
}

// within runs f and fails t when it has not returned in d.
func within(t *testing.T, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s still blocked after %v", what, d)
	}
}

// TestDocumentsHonourContext: a server that reads nothing cannot hold Open,
// Change, Close or a request past its context; what a call committed stays
// committed (Document says so) and reaches the server in order once it
// reads, before any later request; a context that ended before the call
// commits nothing (except Close, which always gives the document back).
func TestDocumentsHonourContext(t *testing.T) {
	c, release, read := stuckClient(t)
	const uri = "file:///p/A.java"
	short := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 100*time.Millisecond)
	}
	// A didOpen larger than a pipe's buffer blocks its write.
	big := "class A {}\n" + string(bytes.Repeat([]byte("// padding\n"), 20000))
	within(t, "Open", 5*time.Second, func() {
		ctx, cancel := short()
		defer cancel()
		v, err := c.Open(ctx, uri, big)
		if !errors.Is(err, ErrInFlight) || !errors.Is(err, context.DeadlineExceeded) || v == 0 {
			t.Errorf("Open on a server that reads nothing = %d, %v; want a version and ErrInFlight wrapping the deadline", v, err)
		}
	})
	if text, _, open := c.Document(uri); !open || text != big {
		t.Fatalf("after a cut-short Open the document is open=%v: the open must stay committed", open)
	}
	// An ended context commits nothing.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Change(ended, uri, "class A { int x; }\n"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrInFlight) {
		t.Errorf("Change with an ended context: %v; want context.Canceled, nothing committed", err)
	}
	if text, _, _ := c.Document(uri); text != big {
		t.Error("Change with an ended context changed the record")
	}
	within(t, "Change", 5*time.Second, func() {
		ctx, cancel := short()
		defer cancel()
		if _, err := c.Change(ctx, uri, "class A { int y; }\n"); !errors.Is(err, ErrInFlight) {
			t.Errorf("Change on a server that reads nothing: %v; want ErrInFlight", err)
		}
	})
	within(t, "Completion", 5*time.Second, func() {
		ctx, cancel := short()
		defer cancel()
		if _, err := c.Completion(ctx, uri, textpos.Position{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Completion behind unwritten notifications: %v; want the deadline", err)
		}
	})
	within(t, "Close", 5*time.Second, func() {
		if err := c.Close(ended, uri); err != nil && !errors.Is(err, ErrInFlight) {
			t.Errorf("Close with an ended context: %v", err)
		}
	})
	if _, _, open := c.Document(uri); open {
		t.Error("Close with an ended context left the document open")
	}
	// The server reads again: the notifications arrive in order (the
	// didClose in the place of the unwritten didChange it made moot) and a
	// later request after them; the cut-short Completion never went out.
	release()
	within(t, "Open after the server reads again", 5*time.Second, func() {
		if _, err := c.Open(context.Background(), uri, "class A {}\n"); err != nil {
			t.Error(err)
		}
		ctx, cancel := short()
		defer cancel()
		_, _ = c.Completion(ctx, uri, textpos.Position{}) // no answer comes; it is on the wire
	})
	want := []string{"textDocument/didOpen", "textDocument/didClose", "textDocument/didOpen", "textDocument/completion"}
	got := methods(read())
	if len(got) > len(want) && got[len(want)] == "$/cancelRequest" {
		got = got[:len(want)] // the timed-out completion's cancellation
	}
	if len(got) != len(want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("written %v, want %v", got, want)
		}
	}
}

func methods(ms []*jsonrpc.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Method
	}
	return out
}

// TestRequestWriteHonoursContext: with no notification queued, a request's
// own write to a server that reads nothing cannot hold the caller past its
// context either; once the server reads, the request that was on its way
// is followed by its $/cancelRequest.
func TestRequestWriteHonoursContext(t *testing.T) {
	c, release, read := stuckClient(t)
	within(t, "Completion on an empty queue", 5*time.Second, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := c.Completion(ctx, "file:///p/A.java", textpos.Position{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Completion on a server that reads nothing: %v; want the deadline", err)
		}
	})
	release()
	time.Sleep(200 * time.Millisecond) // the writer finishes and queues the cancel
	got := read()
	if m := methods(got); len(m) != 2 || m[0] != "textDocument/completion" || m[1] != "$/cancelRequest" {
		t.Fatalf("written %v, want the completion and its cancellation", m)
	}
	var cancel struct{ ID json.RawMessage }
	if err := json.Unmarshal(got[1].Params, &cancel); err != nil || string(cancel.ID) != string(got[0].ID) {
		t.Errorf("cancel params %s, want the id %s", got[1].Params, got[0].ID)
	}
}

// TestQueueBoundedWhileStuck: while the server reads nothing, every
// cut-short request (a change and a completion, or a close and an open
// again) leaves at most one queued notification per document behind: only
// the latest full text matters, and it is what the server gets once it
// reads.
func TestQueueBoundedWhileStuck(t *testing.T) {
	c, release, read := stuckClient(t)
	const uri = "file:///p/A.java"
	short := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 2*time.Millisecond)
	}
	queued := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.outQ)
	}
	ctx, cancel := short()
	_, err := c.Open(ctx, uri, "class A {}\n")
	cancel()
	if !errors.Is(err, ErrInFlight) {
		t.Fatalf("Open: %v, want ErrInFlight", err)
	}
	most := 0
	text := ""
	within(t, "cut-short requests", 20*time.Second, func() {
		do := func(f func(ctx context.Context) error) error {
			ctx, cancel := short()
			defer cancel()
			return f(ctx)
		}
		for i := 0; i < 100; i++ {
			text = fmt.Sprintf("class A { int f%d; }\n", i)
			var errs []error
			if i%2 == 1 {
				errs = append(errs, do(func(ctx context.Context) error { return c.Close(ctx, uri) }))
				errs = append(errs, do(func(ctx context.Context) error { _, err := c.Open(ctx, uri, text); return err }))
			} else {
				errs = append(errs, do(func(ctx context.Context) error { _, err := c.Change(ctx, uri, text); return err }))
			}
			for _, err := range errs {
				if err != nil && !errors.Is(err, ErrInFlight) {
					t.Errorf("step %d: %v, want nil or ErrInFlight", i, err)
					return
				}
			}
			if err := do(func(ctx context.Context) error { _, err := c.Completion(ctx, uri, textpos.Position{}); return err }); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Completion %d: %v, want the deadline", i, err)
				return
			}
			most = max(most, queued())
		}
	})
	if most > 2 {
		t.Errorf("the send queue grew to %d messages for one document; want at most 2 (a didClose and a didOpen)", most)
	}
	_, version, _ := c.Document(uri)
	release()
	time.Sleep(200 * time.Millisecond)
	got := read()
	last := got[len(got)-1]
	var p struct {
		TextDocument struct {
			Version int
			Text    string
		}
	}
	if err := json.Unmarshal(last.Params, &p); err != nil {
		t.Fatal(err)
	}
	if last.Method != "textDocument/didOpen" && last.Method != "textDocument/didChange" || p.TextDocument.Version != version {
		t.Fatalf("written %v; last %s version %d, want the document's latest text (version %d) last", methods(got), last.Method, p.TextDocument.Version, version)
	}
	if p.TextDocument.Text != withMarker(text, version) {
		t.Errorf("the server's last text is %q, want %q", p.TextDocument.Text, withMarker(text, version))
	}
	for _, m := range got {
		if m.Method == "textDocument/completion" {
			t.Errorf("a cut-short completion that never left the queue was written: %v", methods(got))
			break
		}
	}
}
