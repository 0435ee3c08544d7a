package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestPrintReport: the report is printed as indented JSON or as text, and
// the run's error (an interruption) comes back, joined in JSON mode with an
// error encoding the report.
func TestPrintReport(t *testing.T) {
	rep := struct {
		Queries int `json:"queries"`
	}{3}
	text := func(w io.Writer) { io.WriteString(w, "3 queries\n") }
	var out bytes.Buffer
	if err := printReport(&out, true, rep, text, nil); err != nil || out.String() != "{\n  \"queries\": 3\n}\n" {
		t.Errorf("json: %q, %v", out.String(), err)
	}
	out.Reset()
	if err := printReport(&out, false, rep, text, context.Canceled); !errors.Is(err, context.Canceled) || out.String() != "3 queries\n" {
		t.Errorf("text, interrupted: %q, %v", out.String(), err)
	}
	out.Reset()
	err := printReport(&out, true, func() {}, text, context.Canceled)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "unsupported type") {
		t.Errorf("json of a report that cannot be encoded, interrupted: %v", err)
	}
}
