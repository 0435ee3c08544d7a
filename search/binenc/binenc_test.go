package binenc

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRoundTripAndFiles: what Encoder writes, Decoder reads back, from a
// file read or mapped; a short read is ErrBad, not a panic.
func TestRoundTripAndFiles(t *testing.T) {
	var buf bytes.Buffer
	e := &Encoder{W: bufio.NewWriter(&buf)}
	e.Uvarint(1 << 40)
	e.Int(7)
	e.I32(-5)
	e.F32(1.5)
	e.F64(-2.25)
	e.Bool(true)
	e.Str("héllo")
	e.Strs([]string{"a", "", "bc"})
	e.I32s([]int32{3, -1})
	if err := e.W.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) (string, error){"ReadFile": ReadFile, "MapFile": MapFile} {
		s, err := read(path)
		if err != nil || s != buf.String() {
			t.Fatalf("%s: %q, %v", name, s, err)
		}
		d := &Decoder{S: s}
		if v := d.Uvarint(); v != 1<<40 {
			t.Errorf("%s: Uvarint %d", name, v)
		}
		if d.Int() != 7 || d.I32() != -5 || d.F32() != 1.5 || d.F64() != -2.25 || !d.Bool() || d.Str() != "héllo" {
			t.Errorf("%s: scalars read back wrong", name)
		}
		if ss := d.Strs(); len(ss) != 3 || ss[0] != "a" || ss[1] != "" || ss[2] != "bc" {
			t.Errorf("%s: Strs %q", name, ss)
		}
		if n := d.Count(4); n != 2 || d.I32() != 3 || d.I32() != -1 {
			t.Errorf("%s: I32s read back wrong", name)
		}
		if d.Err != nil || d.Rest() != "" {
			t.Errorf("%s: err %v, rest %q", name, d.Err, d.Rest())
		}
		if d.I32(); d.Err != ErrBad {
			t.Errorf("%s: a read past the end gave %v, want ErrBad", name, d.Err)
		}
	}
	// A length larger than the bytes left is an error, not an allocation.
	d := &Decoder{S: "\xff\xff\xff\xff\x0f"}
	if n := d.Count(1); n != 0 || d.Err != ErrBad {
		t.Errorf("huge count: %d, %v", n, d.Err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	if s, err := MapFile(empty); s != "" || err != nil {
		t.Errorf("empty file: %q, %v", s, err)
	}
}

// TestUnseal: what a Summer wrote unseals to the bytes before the
// trailer; any single flipped bit, a truncation or an empty file is ErrBad.
func TestUnseal(t *testing.T) {
	var buf bytes.Buffer
	s := NewSummer(&buf)
	w := bufio.NewWriter(s)
	w.WriteString("repilot-lsp unit cache\nclass JSONDecodeError(ValueError)")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Trailer(); err != nil {
		t.Fatal(err)
	}
	data := buf.String()
	body, err := Unseal(data)
	if err != nil || body != data[:len(data)-SumLen] {
		t.Fatalf("Unseal = %q, %v", body, err)
	}
	for i := 0; i < len(data); i++ {
		for bit := 0; bit < 8; bit++ {
			b := []byte(data)
			b[i] ^= 1 << bit
			if _, err := Unseal(string(b)); err != ErrBad {
				t.Fatalf("bit %d of byte %d flipped: err %v", bit, i, err)
			}
		}
	}
	for n := 0; n < len(data); n++ {
		if _, err := Unseal(data[:n]); err != ErrBad {
			t.Fatalf("truncated to %d bytes: err %v", n, err)
		}
	}
}

// TestMapFileSurvivesTruncation: another process that truncates a mapped
// file waits (Linux: the read lease) instead of making the next read of
// the mapping kill this process with SIGBUS; where no lease is taken the
// file was read into memory, which truncation cannot touch.
func TestMapFileSurvivesTruncation(t *testing.T) {
	if _, err := exec.LookPath("truncate"); err != nil {
		t.Skip("no truncate command")
	}
	path := filepath.Join(t.TempDir(), "cache.bin")
	want := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB: many pages
	if err := os.WriteFile(path, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := MapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "truncate", "-s", "0", path).CombinedOutput()
	t.Logf("truncate: %v %s", err, out)
	if got != want { // reads every page
		t.Fatal("the mapped content changed")
	}
}
