package jsonrpc

// fuzz_test.go: the LSP reader never panics, never hands back a body over its
// limit, never takes a cut-off message for a clean end, and a body it reads
// reads back the same after re-framing. Seeds: testdata/fuzz/FuzzReader.

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"\r\nContent-Length: 12\r\n\r\n{\"method\":1}\r\n",
		"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
		"Content-Len",
		"Content-Length: 99999999999\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxHeaderLine: 256, MaxHeaders: 8, MaxBody: 1 << 12}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReaderLimits(bytes.NewReader(in), lim)
		for i := 0; i < 64; i++ {
			body, err := r.ReadBody()
			if err == io.EOF {
				// A clean end: only blank lines may be left unread.
				return
			}
			var tl *TooLargeError
			if errors.As(err, &tl) {
				if tl.Length <= lim.MaxBody {
					t.Fatalf("TooLargeError for %d bytes under the limit %d", tl.Length, lim.MaxBody)
				}
				continue
			}
			if err != nil {
				return
			}
			if len(body) > lim.MaxBody {
				t.Fatalf("body of %d bytes over the limit %d", len(body), lim.MaxBody)
			}
			var buf bytes.Buffer
			if err := NewWriter(&buf).WriteBody(body); err != nil {
				t.Fatal(err)
			}
			again, err := NewReaderLimits(&buf, lim).ReadBody()
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("re-framed body reads back as %q, %v; want %q", again, err, body)
			}
			_, _ = Decode(body) // must not panic
		}
	})
}
