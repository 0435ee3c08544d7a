package proxy

// initialize.go handles the initialize handshake and capability registration:
// it remembers the editor's initialize params (for restarts and for the
// extensions' Client), starts JDT LS, and merges the proxy's command ids and
// code actions into JDT LS's answer, statically or in JDT LS's dynamic
// registrations, whichever JDT LS uses for this editor.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// handleInitialize remembers the params, starts JDT LS and forwards the
// request with a hook that merges the result.
func (p *proxy) handleInitialize(m *jsonrpc.Message) {
	if !m.IsRequest() {
		p.log.Printf("dropping an initialize notification (initialize is a request)")
		return
	}
	p.mu.Lock()
	again := p.state != stateNew
	p.mu.Unlock()
	if again {
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidRequest, "initialize was already received"))
		return
	}
	var ip initializeParams
	if err := json.Unmarshal(m.Params, &ip); err != nil {
		p.replyError(m.ID, Errorf(jsonrpc.CodeInvalidParams, "initialize: bad params: %v", err))
		return
	}
	// JDT LS watches the process named by processId and exits when it has
	// gone. That must be the proxy, not the editor: a proxy that dies while
	// the editor lives on would otherwise leave JDT LS running for as long
	// as the editor does. (On Linux the parent-death signal, proc.Tie, ends
	// it sooner; elsewhere this is the only guard.)
	if raw, params, err := withProcessID(m, os.Getpid()); err == nil {
		m.Raw, m.Params = raw, params
	} else {
		p.log.Printf("bug: cannot set processId in initialize: %v", err)
	}
	if raw, params, paths, err := withSourcePaths(m, workspaceDirs(&ip)); err != nil {
		p.log.Printf("bug: cannot set java.project.sourcePaths in initialize: %v", err)
	} else if paths != nil {
		m.Raw, m.Params = raw, params
		p.log.Printf("initialize: java.project.sourcePaths %v (inferred from the package declarations; the editor set none)", paths)
	}
	p.initRaw = m.Params
	c := &ip.Capabilities
	p.caps = ClientCapabilities{
		DocumentChanges:    c.Workspace.WorkspaceEdit.DocumentChanges,
		ApplyEdit:          c.Workspace.ApplyEdit,
		WorkDoneProgress:   c.Window.WorkDoneProgress,
		CodeActionLiterals: len(c.TextDocument.CodeAction.CodeActionLiteralSupport) > 0 && string(c.TextDocument.CodeAction.CodeActionLiteralSupport) != "null",
	}
	p.dynExec = c.Workspace.ExecuteCommand.DynamicRegistration
	p.dynCode = c.TextDocument.CodeAction.DynamicRegistration
	p.root = rootOf(&ip)
	p.stateDir = p.opts.StateDir
	if p.stateDir == "" {
		key := p.root
		if key == "" {
			key = "no-root"
		}
		p.stateDir = StateDirFor(key)
	}
	st, err := lockEditorState(p.stateDir)
	switch {
	case err != nil:
		p.log.Printf("cannot lock JDT LS's state folder in %s (%v): using %s unlocked", p.stateDir, err, filepath.Join(p.stateDir, "jdtls"))
		st = &editorState{dir: filepath.Join(p.stateDir, "jdtls")}
	case st.private:
		p.log.Printf("another process uses JDT LS's state folder in %s: this one's JDT LS keeps its state in %s", p.stateDir, st.dir)
	}
	p.mu.Lock()
	p.edState = st
	p.mu.Unlock()
	p.log.Printf("initialize: root %q, dynamic registration executeCommand=%v codeAction=%v, workDoneProgress=%v",
		p.root, p.dynExec, p.dynCode, p.caps.WorkDoneProgress)

	s, err := p.launch(1)
	if err != nil {
		p.mu.Lock()
		p.state = stateDead
		p.deadReason = fmt.Sprintf("it could not be started: %v", err)
		p.mu.Unlock()
		p.log.Printf("cannot start JDT LS: %v", err)
		p.replyError(m.ID, Errorf(jsonrpc.CodeRequestFailed, "repilot-lsp cannot start JDT LS: %v", err))
		return
	}
	p.mu.Lock()
	p.srv, p.gen, p.state = s, 1, stateReady
	p.mu.Unlock()
	p.startLoop(s)
	p.forward(m, p.mergeInitialize)
}

// rootOf picks the project root: the first workspace folder, else rootUri,
// else rootPath when it is absolute (a relative one would be read from the
// proxy's working folder); "" when none names an absolute path.
func rootOf(ip *initializeParams) string {
	for _, f := range ip.WorkspaceFolders {
		if path, err := URIPath(f.URI); err == nil {
			return path
		}
	}
	if ip.RootURI != "" {
		if path, err := URIPath(ip.RootURI); err == nil {
			return path
		}
	}
	if ip.RootPath != "" && filepath.IsAbs(ip.RootPath) {
		return filepath.Clean(ip.RootPath)
	}
	return ""
}

// handleInitialized remembers the params, forwards them, and starts the
// extensions' Initialized hooks, once.
func (p *proxy) handleInitialized(m *jsonrpc.Message) {
	p.mu.Lock()
	again := p.gotInit
	p.gotInit = true
	if !again {
		p.initialized = m.Params
		if len(p.initialized) == 0 || string(p.initialized) == "null" {
			// Replayed to a restarted JDT LS, which needs it as much.
			p.initialized = json.RawMessage("{}")
		}
	}
	p.mu.Unlock()
	if again {
		// LSP 3.17 sends initialized once; a second one would start every
		// feature again (semantic search would index twice).
		p.log.Printf("dropping a second initialized notification")
		return
	}
	p.forward(m, nil)
	for _, e := range p.exts {
		if in, ok := e.(Initializer); ok {
			go func() {
				defer p.recoverBug(e, "Initialized")
				in.Initialized(p.ctx, &reqClient{p: p})
			}()
		}
	}
}

// mergeInitialize adds the proxy's capabilities to JDT LS's InitializeResult
// (LSP 3.17 "ServerCapabilities") without replacing anything of JDT LS's:
//
//   - executeCommandProvider: when JDT LS declares it statically, our command
//     ids are appended; when it does not and the editor supports dynamic
//     registration of workspace/executeCommand, JDT LS will register its
//     commands with client/registerCapability and ours are injected there
//     (declaring them statically as well would register them twice, which
//     VS Code rejects); otherwise we declare ours statically.
//   - codeActionProvider: kept when JDT LS declares it (adding "quickfix" to
//     a codeActionKinds list that lacks it); left to JDT LS's dynamic
//     registration when the editor supports that; otherwise set to true.
//     Why not static as well, for clients that "need the static
//     capability": a client that sets textDocument.codeAction.
//     dynamicRegistration has said it honours client/registerCapability,
//     and JDT LS 1.20 then always registers textDocument/codeAction
//     dynamically (after initialized) and never statically. The LSP 3.17
//     specification ("Register Capability") says a server must not register
//     the same capability both statically and dynamically for the same
//     document selector, and VS Code shows why: vscode-languageclient makes
//     one provider per registration (static or dynamic), and VS Code asks
//     every provider of a language and merges the results
//     (languages.registerCodeActionsProvider), so both would mean every
//     codeAction request sent twice and JDT LS's quick fixes listed twice.
//     Neovim keys by method, so a registration either way gives it one
//     provider; which branch it takes follows the dynamicRegistration of
//     its vim.lsp.protocol.make_client_capabilities(). A client that
//     declares dynamic registration and ignores it is broken for JDT LS
//     alone as well, so the proxy does not work around it.
//   - the capabilities of the features' request handlers (Method.Capability,
//     e.g. workspaceSymbolProvider, inlineCompletionProvider): set where JDT
//     LS does not declare them (mergeFeatureCapabilities).
//
// A JDT LS error, or a result that is not an object, is passed on unchanged.
func (p *proxy) mergeInitialize(resp *jsonrpc.Message) []byte {
	if resp.Error != nil || len(p.exts) == 0 {
		return resp.Raw
	}
	var result map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &result); err != nil || result == nil {
		p.log.Printf("JDT LS's initialize result is not an object; passing it on unchanged")
		return resp.Raw
	}
	caps := map[string]json.RawMessage{}
	if raw, ok := result["capabilities"]; ok {
		if err := json.Unmarshal(raw, &caps); err != nil || caps == nil {
			p.log.Printf("JDT LS's capabilities are not an object; passing the initialize result on unchanged")
			return resp.Raw
		}
	}
	ours := p.ourCommands()

	route := ""
	func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if opts, cmds, ok := commandOptions(caps["executeCommandProvider"]); ok {
			p.noteJDTCommandsLocked(cmds)
			opts["commands"] = mustJSON(appendNew(cmds, ours))
			caps["executeCommandProvider"] = mustJSON(opts)
			route = "static, appended to JDT LS's"
		} else if p.dynExec {
			p.cmdDynamic = true
			route = "dynamic, injected into JDT LS's workspace/executeCommand registration"
		} else if len(ours) > 0 {
			caps["executeCommandProvider"] = mustJSON(map[string]any{"commands": ours})
			route = "static, declared by the proxy"
		}
	}()

	caRoute := "JDT LS's static provider"
	if raw, ok := caps["codeActionProvider"]; ok && !isNullOrFalse(raw) {
		if fixed, changed := ensureKinds(raw, "quickfix"); changed {
			caps["codeActionProvider"] = fixed
		}
	} else if p.dynCode {
		caRoute = "JDT LS's dynamic registration"
	} else {
		caps["codeActionProvider"] = json.RawMessage("true")
		caRoute = "static, declared by the proxy"
	}
	added := p.mergeFeatureCapabilities(caps)
	p.log.Printf("initialize: commands %v: %s; code actions: %s; features' capabilities set: %v", ours, route, caRoute, added)
	result["capabilities"] = mustJSON(caps)
	body, err := responseBody(resp.ID, result)
	if err != nil {
		p.log.Printf("bug: cannot encode the merged initialize result: %v", err)
		return resp.Raw
	}
	return body
}

// handleRegister forwards JDT LS's client/registerCapability, with two
// changes:
//   - our command ids are injected into the first live workspace/executeCommand
//     registration when that is the route chosen at initialize;
//   - after a restart, registrations for methods the editor already has from
//     an earlier JDT LS are answered by the proxy (and their new ids aliased
//     to the old ones), so the editor never gets duplicate providers.
func (p *proxy) handleRegister(s *backendProc, m *jsonrpc.Message) {
	var params registrationParams
	if err := json.Unmarshal(m.Params, &params); err != nil {
		p.log.Printf("JDT LS #%d sent client/registerCapability with bad params (%v); forwarding it unchanged", s.gen, err)
		p.forwardServerRequest(s, m, m.Raw)
		return
	}
	ours := p.ourCommands()
	changed := false
	var keep []registration
	func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, r := range params.Registrations {
			if old := p.claimRegistrationLocked(r.Method, s.gen); old != "" {
				p.regAlias[r.ID] = old
				changed = true
				p.log.Printf("JDT LS #%d re-registered %s; the editor has it already (id %s), answering myself", s.gen, r.Method, old)
				continue
			}
			switch r.Method {
			case "workspace/executeCommand":
				opts, cmds, ok := commandOptions(r.RegisterOptions)
				if !ok {
					opts = map[string]json.RawMessage{}
				}
				p.noteJDTCommandsLocked(cmds)
				if p.cmdDynamic && p.cmdRegID == "" && len(ours) > 0 {
					opts["commands"] = mustJSON(appendNew(cmds, ours))
					r.RegisterOptions = mustJSON(opts)
					p.cmdRegID = r.ID
					changed = true
					p.log.Printf("injected %v into JDT LS's workspace/executeCommand registration %s", ours, r.ID)
				}
			case "textDocument/codeAction":
				if fixed, ch := ensureKinds(r.RegisterOptions, "quickfix"); ch {
					r.RegisterOptions = fixed
					changed = true
				}
			}
			p.regs[r.ID] = &regInfo{method: r.Method, gen: s.gen}
			keep = append(keep, r)
		}
	}()
	if len(keep) == 0 {
		b, _ := responseBody(m.ID, nil)
		s.write(b)
		return
	}
	body := m.Raw
	if changed {
		params.Registrations = keep
		b, err := requestBody(m.ID, m.Method, mustJSON(params))
		if err != nil {
			p.log.Printf("bug: cannot encode registrations: %v", err)
		} else {
			body = b
		}
	}
	p.forwardServerRequest(s, m, body)
}

// claimRegistrationLocked finds a registration for method that the editor
// got from an earlier JDT LS generation, hands it to gen and returns its id;
// "" when there is none.
func (p *proxy) claimRegistrationLocked(method string, gen int) string {
	ids := make([]string, 0, len(p.regs))
	for id := range p.regs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := p.regs[id]
		if r.method == method && r.gen < gen {
			r.gen = gen
			return id
		}
	}
	return ""
}

// handleUnregister forwards client/unregisterCapability, translating the ids
// of re-registrations the proxy answered itself to the ids the editor knows.
func (p *proxy) handleUnregister(s *backendProc, m *jsonrpc.Message) {
	var params unregistrationParams
	if err := json.Unmarshal(m.Params, &params); err != nil {
		p.forwardServerRequest(s, m, m.Raw)
		return
	}
	changed := false
	p.mu.Lock()
	for i := range params.Unregisterations {
		u := &params.Unregisterations[i]
		if old, ok := p.regAlias[u.ID]; ok {
			delete(p.regAlias, u.ID)
			u.ID = old
			changed = true
		}
		if u.ID == p.cmdRegID {
			p.cmdRegID = "" // our commands go with it; the next registration carries them
			p.log.Printf("JDT LS unregistered the workspace/executeCommand registration that carried our commands")
		}
		delete(p.regs, u.ID)
	}
	p.mu.Unlock()
	body := m.Raw
	if changed {
		if b, err := requestBody(m.ID, m.Method, mustJSON(params)); err == nil {
			body = b
		}
	}
	p.forwardServerRequest(s, m, body)
}

// noteJDTCommandsLocked records commands JDT LS advertises.
func (p *proxy) noteJDTCommandsLocked(cmds []string) {
	for _, c := range cmds {
		if _, ours := p.cmds[c]; !ours {
			p.jdtCommands[c] = true
		}
	}
}

// commandOptions decodes ExecuteCommandOptions / registration options; ok is
// false for a missing, null or false value.
func commandOptions(raw json.RawMessage) (map[string]json.RawMessage, []string, bool) {
	if len(raw) == 0 || isNullOrFalse(raw) {
		return nil, nil, false
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil || opts == nil {
		return nil, nil, false
	}
	var cmds []string
	_ = json.Unmarshal(opts["commands"], &cmds)
	return opts, cmds, true
}

// ensureKinds adds kind to a CodeActionOptions' codeActionKinds list when the
// list exists and lacks it; options without a list (or true) allow any kind.
func ensureKinds(raw json.RawMessage, kind string) (json.RawMessage, bool) {
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil || opts == nil {
		return raw, false
	}
	var kinds []string
	if err := json.Unmarshal(opts["codeActionKinds"], &kinds); err != nil || kinds == nil || slices.Contains(kinds, kind) {
		return raw, false
	}
	opts["codeActionKinds"] = mustJSON(append(kinds, kind))
	return mustJSON(opts), true
}

func isNullOrFalse(raw json.RawMessage) bool {
	s := string(raw)
	return s == "null" || s == "false"
}

// appendNew appends the elements of b missing from a.
func appendNew(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// mustJSON marshals values that cannot fail to marshal (maps of raw JSON,
// strings, bools).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bug: marshalling %T: %v", v, err))
	}
	return b
}

// withProcessID returns initialize request m's body and params with
// "processId" set to pid (LSP 3.17 "InitializeParams": the parent process,
// which the server watches). Other members are kept as they came.
func withProcessID(m *jsonrpc.Message, pid int) (body, params json.RawMessage, err error) {
	var pm map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &pm); err != nil {
		return nil, nil, err
	}
	if pm == nil {
		pm = map[string]json.RawMessage{}
	}
	pm["processId"] = json.RawMessage(strconv.Itoa(pid))
	if params, err = json.Marshal(pm); err != nil {
		return nil, nil, err
	}
	var bm map[string]json.RawMessage
	if err := json.Unmarshal(m.Raw, &bm); err != nil {
		return nil, nil, err
	}
	bm["params"] = params
	body, err = json.Marshal(bm)
	return body, params, err
}

// workspaceDirs are the editor's workspace folders as paths, else its root
// (rootOf's fallbacks).
func workspaceDirs(ip *initializeParams) []string {
	var out []string
	for _, f := range ip.WorkspaceFolders {
		if path, err := URIPath(f.URI); err == nil {
			out = append(out, path)
		}
	}
	if len(out) == 0 {
		if r := rootOf(ip); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// withSourcePaths returns m's body and params with
// initializationOptions.settings.java.project.sourcePaths set to the source
// folders jdtls.InferSourcePathsAll finds in dirs, and those folders; paths
// is nil (and body and params too) when the editor's settings set it or none
// is inferred. JDT LS 1.60 infers a plain folder's source folder wrongly
// (jdtls/sourcepaths.go); the setting overrides its inference.
func withSourcePaths(m *jsonrpc.Message, dirs []string) (body, params json.RawMessage, paths []any, err error) {
	var pm map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &pm); err != nil {
		return nil, nil, nil, err
	}
	var opts map[string]json.RawMessage
	if raw := pm["initializationOptions"]; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &opts); err != nil {
			return nil, nil, nil, nil // not an object: left as the editor sent it
		}
	}
	if opts == nil {
		opts = map[string]json.RawMessage{}
	}
	var settings map[string]any
	if raw := opts["settings"]; len(raw) > 0 && string(raw) != "null" {
		// UseNumber: the editor's numbers go to JDT LS as it wrote them
		// (an integer past 2^53 would be rounded through float64).
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&settings); err != nil {
			return nil, nil, nil, nil
		}
	}
	if settings == nil {
		settings = map[string]any{}
	}
	if jdtls.SetsSourcePaths(settings) {
		return nil, nil, nil, nil
	}
	java, ok := settings["java"].(map[string]any)
	if _, there := settings["java"]; there && !ok {
		return nil, nil, nil, nil
	}
	paths = jdtls.InferSourcePathsAll(dirs)
	if paths == nil {
		return nil, nil, nil, nil
	}
	if java == nil {
		java = map[string]any{}
		settings["java"] = java
	}
	project, ok := java["project"].(map[string]any)
	if _, there := java["project"]; there && !ok {
		return nil, nil, nil, nil
	}
	if project == nil {
		project = map[string]any{}
		java["project"] = project
	}
	project["sourcePaths"] = paths
	if opts["settings"], err = json.Marshal(settings); err != nil {
		return nil, nil, nil, err
	}
	if pm["initializationOptions"], err = json.Marshal(opts); err != nil {
		return nil, nil, nil, err
	}
	if params, err = json.Marshal(pm); err != nil {
		return nil, nil, nil, err
	}
	var bm map[string]json.RawMessage
	if err := json.Unmarshal(m.Raw, &bm); err != nil {
		return nil, nil, nil, err
	}
	bm["params"] = params
	body, err = json.Marshal(bm)
	return body, params, paths, err
}
