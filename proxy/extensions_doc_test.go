package proxy_test

// extensions_doc_test.go keeps EXTENSIONS.md in step with the code: every
// command id, result field and user-facing error it documents must exist.

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
)

func TestExtensionsDocInStep(t *testing.T) {
	b, err := os.ReadFile("EXTENSIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := []string{repairfeat.CommandRepairHunk, repairfeat.CommandApplyPatch, repairfeat.MsgNoCandidate, repairfeat.MsgDocumentChanged,
		string(repairfeat.RepairActionKind), proxy.DataKey, "Repair with Repilot"}
	for _, typ := range []reflect.Type{reflect.TypeOf(repairfeat.RepairPatch{}), reflect.TypeOf(repairfeat.RepairResult{}), reflect.TypeOf(repairfeat.RepairArgs{}),
		reflect.TypeOf(repairfeat.ApplyPatchArgs{}), reflect.TypeOf(repairfeat.ApplyPatchResult{})} {
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			want = append(want, `"`+name+`"`)
		}
	}
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("EXTENSIONS.md does not mention %s", w)
		}
	}
	// Every error message in the table appears in the code.
	src := ""
	for _, f := range []string{"feature/repairfeat/repairfeat.go", "feature/repairfeat/apply.go", "command.go", "supervise.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src += string(b)
	}
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.Contains(cells[3], "`") {
			continue
		}
		for _, part := range strings.Split(cells[3], "`")[1:] {
			if part = strings.TrimSpace(part); part == "" || strings.HasPrefix(part, "/") || strings.HasPrefix(part, "(") {
				continue
			}
			if !strings.Contains(src, strings.TrimSuffix(part, " ")) {
				t.Errorf("EXTENSIONS.md documents the message %q, which the code does not produce", part)
			}
			break
		}
	}
}
