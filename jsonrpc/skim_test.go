package jsonrpc

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestTooLargeBodyEnvelope: a body over the limit is skipped, and its id,
// method and document URI are read on the way, in any key order, nested
// or escaped values notwithstanding; bad JSON, deep nesting and huge keys
// find what they can and never lose the framing. Before, the error said
// only the length, so a request over the limit could not be answered.
func TestTooLargeBodyEnvelope(t *testing.T) {
	big := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, body      string
		id, method, uri string
	}{
		{"didChange", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a/B.java","version":3},"contentChanges":[{"text":"` + big + `"}]}}`,
			"", "textDocument/didChange", "file:///a/B.java"},
		{"params first", `{"params":{"contentChanges":[{"range":{"start":{"line":1}},"text":"` + big + `\"}"}],"textDocument":{"version":3,"uri":"file:///a/C.java"}},"method":"textDocument/didChange","jsonrpc":"2.0"}`,
			"", "textDocument/didChange", "file:///a/C.java"},
		{"request", `{"jsonrpc":"2.0","id":42,"method":"workspace/executeCommand","params":{"arguments":["` + big + `"]}}`,
			"42", "workspace/executeCommand", ""},
		{"string id", ` { "id" : "a\"b" , "result" : [1, 2.5e3, true, null, {"x": "` + big + `"}] } `, `"a\"b"`, "", ""},
		{"object id", `{"id":{"a":1},"method":"m","params":"` + big + `"}`, "", "m", ""},
		{"not an object", `["` + big + `"]`, "", "", ""},
		{"bad JSON", `{"id":7,"method":"m","params":{` + big + `}`, "7", "m", ""},
		{"deep", `{"id":1,"params":` + strings.Repeat("[", 4000) + `"` + big + `"}`, "1", "", ""},
		{"huge key", `{"` + big + `":1,"id":2}`, "2", "", ""},
		{"huge method", `{"id":3,"method":"` + big + `"}`, "3", "", ""},
		{"cut", `{"id":4,"method":"m","params":"` + big, "4", "m", ""},
	} {
		in := "Content-Length: " + itoa(len(tc.body)) + "\r\n\r\n" + tc.body + "Content-Length: 2\r\n\r\n{}"
		r := NewReaderLimits(strings.NewReader(in), Limits{MaxBody: 1000})
		_, err := r.ReadBody()
		var tl *TooLargeError
		if !errors.As(err, &tl) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(tl.ID) != tc.id || tl.Method != tc.method || tl.URI != tc.uri {
			t.Errorf("%s: id %s method %q uri %q; want %s %q %q", tc.name, tl.ID, tl.Method, tl.URI, tc.id, tc.method, tc.uri)
		}
		if b, err := r.ReadBody(); err != nil || string(b) != "{}" {
			t.Errorf("%s: after the skipped body: %q, %v", tc.name, b, err)
		}
	}
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestTooLargeBodyIsNotKept: skimming 64 MiB of a string allocates next to
// nothing.
func TestTooLargeBodyIsNotKept(t *testing.T) {
	const n = 64 << 20
	body := `{"id":1,"method":"m","params":"` + strings.Repeat("y", n) + `"}`
	in := "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	_, err := NewReaderLimits(strings.NewReader(in), Limits{MaxBody: 1 << 20}).ReadBody()
	runtime.ReadMemStats(&b)
	var tl *TooLargeError
	if !errors.As(err, &tl) || string(tl.ID) != "1" {
		t.Fatalf("%v", err)
	}
	if alloc := b.TotalAlloc - a.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d KiB skimming a body of 64 MiB", alloc>>10)
	}
}
