package proxy

// codeaction.go adds the extensions' code actions to JDT LS's answer to
// textDocument/codeAction, and answers codeAction/resolve for them.

import (
	"bytes"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// dataKey marks the "data" of the proxy's code actions with the extension's
// name, so that codeAction/resolve for them is answered here, not by JDT LS.
const dataKey = "repilotExtension"

// handleCodeAction asks the extensions for their (cheap) code actions on the
// read loop, at the document version the request was made for, then forwards
// the request; the hook appends ours to JDT LS's result. When JDT LS fails or
// answers null, the editor still gets ours.
func (p *proxy) handleCodeAction(m *jsonrpc.Message) {
	if !m.IsRequest() {
		p.forward(m, nil)
		return
	}
	var params protocol.CodeActionParams
	if err := json.Unmarshal(m.Params, &params); err != nil {
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidParams, "textDocument/codeAction: bad params: %v", err))
		return
	}
	ours := p.extensionActions(&params)
	if len(ours) == 0 {
		p.forward(m, nil)
		return
	}
	p.forward(m, func(resp *jsonrpc.Message) []byte { return p.mergeCodeActions(resp, ours) })
}

// extensionActions collects the extensions' actions as JSON elements, kind
// filtered by context.only, as Commands for editors without
// codeActionLiteralSupport.
func (p *proxy) extensionActions(params *protocol.CodeActionParams) []json.RawMessage {
	var doc *Document
	if d, ok := p.mirror.get(params.TextDocument.URI); ok {
		doc = &d
	}
	var out []json.RawMessage
	for _, e := range p.exts {
		var acts []protocol.CodeAction
		func() {
			defer p.recoverBug(e, "CodeActions")
			acts = e.CodeActions(doc, params)
		}()
		for _, a := range acts {
			if !kindMatches(a.Kind, params.Context.Only) {
				continue
			}
			var v any = a
			if !p.caps.CodeActionLiterals {
				if a.Command == nil {
					continue
				}
				v = a.Command
			} else if a.Data == nil {
				a.Data = map[string]string{dataKey: e.Name()}
				v = a
			}
			b, err := json.Marshal(v)
			if err != nil {
				p.log.Printf("bug: extension %s returned a code action that does not encode: %v", e.Name(), err)
				continue
			}
			out = append(out, b)
		}
	}
	return out
}

// mergeCodeActions appends ours to JDT LS's (Command | CodeAction)[] result,
// keeping JDT LS's bytes (its "data" is needed for codeAction/resolve).
func (p *proxy) mergeCodeActions(resp *jsonrpc.Message, ours []json.RawMessage) []byte {
	parts := make([][]byte, len(ours))
	for i, o := range ours {
		parts[i] = o
	}
	joined := bytes.Join(parts, []byte(","))
	if resp.Error != nil {
		p.log.Printf("JDT LS's codeAction failed (%s); answering with the proxy's actions only", resp.Error.Message)
		return rawResponse(resp.ID, append(append([]byte("["), joined...), ']'))
	}
	res := bytes.TrimSpace(resp.Result)
	if len(res) == 0 || string(res) == "null" {
		return rawResponse(resp.ID, append(append([]byte("["), joined...), ']'))
	}
	if res[0] != '[' || res[len(res)-1] != ']' {
		p.log.Printf("JDT LS's codeAction result is not an array; passing it on unchanged")
		return resp.Raw
	}
	merged := append([]byte(nil), res[:len(res)-1]...)
	if len(bytes.TrimSpace(res[1:len(res)-1])) > 0 {
		merged = append(merged, ',')
	}
	merged = append(merged, joined...)
	merged = append(merged, ']')
	return rawResponse(resp.ID, merged)
}

// handleCodeActionResolve answers codeAction/resolve for the proxy's own
// actions (they are complete already) and forwards the rest.
func (p *proxy) handleCodeActionResolve(m *jsonrpc.Message) {
	if m.IsRequest() {
		var a struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if json.Unmarshal(m.Params, &a) == nil {
			if _, ours := a.Data[dataKey]; ours {
				p.writeClient(rawResponse(m.ID, m.Params))
				return
			}
		}
	}
	p.forward(m, nil)
}
