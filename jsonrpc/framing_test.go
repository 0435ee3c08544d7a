package jsonrpc

// framing_test.go checks the reader's strictness and bounds: what the LSP
// base protocol requires is enforced, what real clients add between messages
// is skipped, and no size a peer sends makes the reader allocate with it.

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderSkipsBlankLinesBetweenMessages(t *testing.T) {
	// Some editors write \r\n after a body; a bare \n too.
	in := "\r\nContent-Length: 2\r\n\r\n{}\r\n\r\n\nContent-Length: 12\r\n\r\n{\"method\":1}\r\n"
	r := NewReader(strings.NewReader(in))
	for i, want := range []string{"{}", `{"method":1}`} {
		b, err := r.ReadBody()
		if err != nil || string(b) != want {
			t.Fatalf("message %d: %q, %v; want %q", i, b, err, want)
		}
	}
	if _, err := r.ReadBody(); err != io.EOF {
		t.Fatalf("after trailing CRLF: %v, want io.EOF", err)
	}
}

func TestReaderStrictHeaders(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"duplicate Content-Length", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "repeated Content-Length"},
		{"conflicting Content-Length", "Content-Length: 2\r\ncontent-length: 9\r\n\r\n{}", "repeated Content-Length"},
		{"too many headers", "Content-Length: 2\r\n" + strings.Repeat("X-A: b\r\n", 20) + "\r\n{}", EnvMaxHeaders},
		{"long header line", "Content-Length: 2\r\nX-A: " + strings.Repeat("a", 5000) + "\r\n\r\n{}", EnvMaxHeaderLine},
	} {
		_, err := NewReader(strings.NewReader(c.in)).ReadBody()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestReaderCutOffIsNotACleanEnd(t *testing.T) {
	for _, in := range []string{
		"Content-Len",                 // mid-line
		"Content-Length: 5\r\n",       // before the empty line
		"Content-Length: 5\r\n\r\n",   // before the body
		"Content-Length: 5\r\n\r\n{}", // mid-body
	} {
		_, err := NewReader(strings.NewReader(in)).ReadBody()
		if err == nil || errors.Is(err, io.EOF) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v, want io.ErrUnexpectedEOF (and not io.EOF)", in, err)
		}
	}
}

// endless yields one byte forever and counts what was read.
type endless struct {
	b byte
	n int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.n += len(p)
	return len(p), nil
}

func TestReaderHeaderLineIsBounded(t *testing.T) {
	src := &endless{b: 'a'}
	_, err := NewReader(src).ReadBody()
	if err == nil || !strings.Contains(err.Error(), EnvMaxHeaderLine) {
		t.Fatalf("endless header line: %v", err)
	}
	if src.n > 1<<20 {
		t.Fatalf("read %d bytes of a header line before refusing it", src.n)
	}
}

func TestReaderSkipsTooLargeBody(t *testing.T) {
	in := "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 100) + "Content-Length: 2\r\n\r\n{}"
	r := NewReaderLimits(strings.NewReader(in), Limits{MaxBody: 10})
	_, err := r.ReadBody()
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Length != 100 || tl.Limit != 10 || !strings.Contains(err.Error(), EnvMaxBody) {
		t.Fatalf("too large body: %v", err)
	}
	if b, err := r.ReadBody(); err != nil || string(b) != "{}" {
		t.Fatalf("after a skipped body: %q, %v", b, err)
	}
}

func TestLimitsFromEnv(t *testing.T) {
	env := map[string]string{EnvMaxBody: "1000", EnvMaxHeaders: "4"}
	l, err := LimitsFromEnv(func(k string) string { return env[k] })
	if err != nil || l.MaxBody != 1000 || l.MaxHeaders != 4 || l.MaxHeaderLine != DefaultLimits.MaxHeaderLine {
		t.Fatalf("%+v %v", l, err)
	}
	env[EnvMaxHeaderLine] = "-1"
	if _, err := LimitsFromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), EnvMaxHeaderLine) {
		t.Fatalf("bad value: %v", err)
	}
	// Settings so large that a peer could make the reader allocate them
	// (the header line's is the reader's buffer, allocated at once) are
	// refused, naming the bound.
	for k, v := range map[string]string{EnvMaxHeaderLine: "10000000000", EnvMaxBody: "2147483648", EnvMaxHeaders: "1000000"} {
		_, err := LimitsFromEnv(func(name string) string {
			if name == k {
				return v
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), "at most") {
			t.Errorf("$%s=%s: %v; want it refused", k, v, err)
		}
	}
}
