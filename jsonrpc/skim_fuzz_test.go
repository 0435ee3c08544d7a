package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSkimAgreesWithDecode: on a JSON object that encoding/json reads (no
// escapes, nesting and values within skim's bounds), skim finds the same
// id, method and params.textDocument.uri as decoding the whole body does.
// Repeated keys are left out: their meaning is undefined (RFC 8259, 4), and
// skim keeps a URI a later "params" does not repeat.
// It guards the object and array loops (skim.go, members), which were two
// copies of one loop before they were made one.
func FuzzSkimAgreesWithDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a/B.java","version":3},"contentChanges":[{"text":"x"}]}}`,
		`{"params":{"contentChanges":[[],{},[1,[2,{"a":[]}]]],"textDocument":{"version":3,"uri":"file:///C.java"}},"method":"m","id":"s"}`,
		` { "id" : "a" , "result" : [1, 2.5e3, true, null, {"x": "y"}] } `,
		`{"id":{"a":1},"method":"m","params":[]}`,
		`{}`, `[]`, `{"a":[],"b":{},"id":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || bytes.IndexByte(b, '\\') >= 0 || bytes.Count(b, []byte("["))+
			bytes.Count(b, []byte("{")) > maxSkimDepth || len(b) > maxSkimField {
			return
		}
		for _, k := range []string{`"id"`, `"method"`, `"params"`, `"textDocument"`, `"uri"`} {
			if bytes.Count(b, []byte(k)) > 1 {
				return
			}
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(b, &top) != nil {
			return
		}
		// Maps, not structs: encoding/json matches a struct's field names
		// case-insensitively, skim (like LSP) exactly.
		var method, uri string
		var params, doc map[string]json.RawMessage
		if raw, ok := top["params"]; ok && json.Unmarshal(raw, &params) != nil {
			return // not an object: skim does not look inside
		}
		if raw, ok := params["textDocument"]; ok && json.Unmarshal(raw, &doc) != nil {
			return
		}
		if raw, ok := top["method"]; ok && json.Unmarshal(raw, &method) != nil {
			method = ""
		}
		if raw, ok := doc["uri"]; ok && json.Unmarshal(raw, &uri) != nil {
			uri = ""
		}
		id, sm, su, err := skimBody(bufio.NewReader(bytes.NewReader(b)), int64(len(b)))
		if err != nil {
			t.Fatalf("skim %s: %v", b, err)
		}
		wantID := ""
		if raw := top["id"]; ValidID(raw) {
			wantID = CanonicalID(raw)
		}
		gotID := ""
		if len(id) > 0 {
			gotID = CanonicalID(id)
		}
		if gotID != wantID || sm != method || su != uri {
			t.Errorf("skim %s: id %q method %q uri %q; decoded %q %q %q", b, gotID, sm, su, wantID, method, uri)
		}
	})
}
