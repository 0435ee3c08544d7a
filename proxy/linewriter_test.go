package proxy

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineWriterBoundsLines: JDT LS's stderr goes to the log a line at a
// time; a line without end (a process writing 10 MiB without a newline) is
// cut at maxLogLine with a note and the rest of it dropped, so the buffer
// stays bounded; lines split across writes are joined. Before, the buffer
// grew with the line, and each write converted all of it to a string.
func TestLineWriterBoundsLines(t *testing.T) {
	var out bytes.Buffer
	l := &lineWriter{w: &out, prefix: "p: "}
	l.Write([]byte("one\ntw"))
	l.Write([]byte("o\n"))
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 10 {
		l.Write(chunk)
		if cap(l.buf) > 2*maxLogLine {
			t.Fatalf("the buffer holds %d bytes for an endless line", cap(l.buf))
		}
	}
	l.Write([]byte("tail\nthree\n"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "p: one" || lines[1] != "p: two" || lines[3] != "p: three" {
		t.Fatalf("lines %q", lines)
	}
	if want := "p: " + strings.Repeat("x", maxLogLine) + " [line cut at 16384 bytes]"; lines[2] != want {
		t.Errorf("the long line is %d bytes: %.40q...", len(lines[2]), lines[2])
	}
}
