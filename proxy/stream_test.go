package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/proxy/feature/repairfeat"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// streamingRepairer validates its result's patches one by one through
// Request.OnPatch, as repair.Service does, then returns the result.
type streamingRepairer struct{ result *repair.Result }

func (r *streamingRepairer) Repair(ctx context.Context, req repair.Request, progress repair.Progress) (*repair.Result, error) {
	for _, p := range r.result.Patches {
		if req.OnPatch != nil {
			req.OnPatch(p)
		}
	}
	return r.result, nil
}

// TestRepairStreamsPatches: each validated patch reaches the editor as a
// repilot/patchFound notification before the command's result.
func TestRepairStreamsPatches(t *testing.T) {
	e := startEditor(t, harness{repairer: &streamingRepairer{result: onePatch()}})
	e.initialize(false)
	e.open(javaURI, greeter, 1)
	id := e.request("workspace/executeCommand", repairCmd(javaURI, 5, 4, 6, 0, 1))
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, create.ID))
	var found []repairfeat.PatchFoundParams
	for len(found) < 2 {
		m := e.expectMethod(repairfeat.NotifyPatchFound)
		var p repairfeat.PatchFoundParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		found = append(found, p)
	}
	r := e.response(id)
	if r.Error != nil {
		t.Fatalf("repair: %v", r.Error)
	}
	first := found[0]
	if first.URI != javaURI || first.Version != 1 || first.Patch.Hunk != onePatch().Patches[0].Hunk ||
		!first.Patch.Plausible || first.Patch.Title != "Repilot patch found: for (int i = 0; i < s.length(); i++) {" ||
		len(first.Patch.Edit.DocumentChanges) != 1 {
		t.Errorf("first streamed patch %+v", first)
	}
	if found[1].Patch.Hunk != onePatch().Patches[1].Hunk {
		t.Errorf("second streamed patch %+v", found[1])
	}
}
