package proxy

// routes.go is the proxy's method table: every client method the proxy
// looks at before (or instead of) forwarding it, with the forwarder's own
// handling and the handlers the features registered (Extension.Commands,
// MethodHandler.Methods). The one table drives dispatch (fromClient), the
// list of intercepted methods in the log, and the capabilities merged into
// JDT LS's initialize result (mergeInitialize), so that the three cannot
// drift; TestMethodTable checks it over the wire. Everything not in the
// table is forwarded unchanged.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// coreHandler is the forwarder's own handling of a client method.
type coreHandler struct {
	handle     func(p *proxy, m *jsonrpc.Message)
	beforeInit bool   // runs before initialize; otherwise requests before it get ServerNotInitialized
	why        string // for the log
}

// coreHandlers returns the methods the forwarder itself handles, whether or
// not any feature is present.
func coreHandlers() map[string]coreHandler {
	return map[string]coreHandler{
		"initialize":                     {(*proxy).handleInitialize, true, "remember the params; merge the features' capabilities into the result"},
		"exit":                           {(*proxy).handleExit, true, "lifecycle"},
		"initialized":                    {(*proxy).handleInitialized, false, "remember the params for a restart; start the features"},
		"shutdown":                       {(*proxy).handleShutdown, false, "lifecycle"},
		"textDocument/didOpen":           {(*proxy).handleDocSync, false, "document mirror"},
		"textDocument/didChange":         {(*proxy).handleDocSync, false, "document mirror"},
		"textDocument/didClose":          {(*proxy).handleDocSync, false, "document mirror"},
		"textDocument/codeAction":        {(*proxy).handleCodeAction, false, "add the features' code actions to JDT LS's"},
		"codeAction/resolve":             {(*proxy).handleCodeActionResolve, false, "answer for the features' code actions"},
		"workspace/executeCommand":       {(*proxy).handleExecuteCommand, false, "run the features' commands; reject unknown ones"},
		"$/cancelRequest":                {(*proxy).handleCancelRequest, false, "cancel the proxy's own requests"},
		"window/workDoneProgress/cancel": {(*proxy).handleProgressCancel, false, "cancel the proxy's own progress"},
	}
}

// route is one row of the table.
type route struct {
	method   string
	core     *coreHandler    // nil: forward to JDT LS unless a feature answers
	features []featureMethod // in extension order
}

// featureMethod is a Method with the extension that registered it.
type featureMethod struct {
	ext Extension
	Method
}

// buildRoutes makes the table from the core handlers and the extensions'
// Methods. A feature may observe any notification, but may not answer a
// request the forwarder handles itself (its commands and code actions have
// their own registration): such a Method is logged as a bug and left out.
func (p *proxy) buildRoutes() {
	p.routes = map[string]*route{}
	for name, h := range coreHandlers() {
		p.routes[name] = &route{method: name, core: &h}
	}
	for _, e := range p.exts {
		mh, ok := e.(MethodHandler)
		if !ok {
			continue
		}
		for _, m := range mh.Methods() {
			if m.Name == "" || (m.Request == nil && m.Notify == nil) {
				p.log.Printf("bug: extension %s registered a method with no name or no handler; ignored", e.Name())
				continue
			}
			r := p.routes[m.Name]
			if r == nil {
				r = &route{method: m.Name}
				p.routes[m.Name] = r
			}
			if m.Request != nil && r.core != nil {
				p.log.Printf("bug: extension %s wants to answer %s, which the proxy handles itself; ignored", e.Name(), m.Name)
				continue
			}
			r.features = append(r.features, featureMethod{ext: e, Method: m})
		}
	}
}

// intercepted describes the table for the log in one short line: how
// many methods the proxy handles itself, which requests features answer,
// and how many notifications only features observe. table is the whole
// table, one method a line with who handles it (logged with Trace).
func (p *proxy) intercepted() (short, table string) {
	var own int
	var answered, observed []string
	var b strings.Builder
	for _, n := range p.routeNames() {
		r := p.routes[n]
		var who []string
		if r.core != nil {
			own++
			who = append(who, r.core.why)
		}
		answers := false
		for _, f := range r.features {
			if f.Request != nil {
				answers = true
				answered = append(answered, n+" by "+f.ext.Name())
				who = append(who, f.ext.Name()+" answers")
			} else {
				who = append(who, f.ext.Name()+" observes")
			}
		}
		if r.core == nil && !answers {
			observed = append(observed, n)
		}
		fmt.Fprintf(&b, "\n  %s: %s", n, strings.Join(who, ", "))
	}
	short = fmt.Sprintf("%d methods (%d the proxy's own", len(p.routes), own)
	if len(answered) > 0 {
		short += "; answered: " + strings.Join(answered, ", ")
	}
	if len(observed) > 0 {
		short += "; observed only by features: " + strings.Join(observed, ", ")
	}
	return short + ")", b.String()
}

// dispatch handles one client request or notification after initialize:
// a feature that claims a request answers it (off the read loop), else the
// forwarder's handler, else JDT LS; a notification then reaches the
// features that observe it, after the document mirror has been updated.
func (p *proxy) dispatch(m *jsonrpc.Message) {
	r := p.routes[m.Method]
	switch {
	case r == nil:
		p.forward(m, nil)
		return
	case m.IsRequest() && p.serveFeature(r, m):
	case r.core != nil:
		r.core.handle(p, m)
	default:
		p.forward(m, nil)
	}
	if m.IsNotification() {
		p.notifyFeatures(r, m)
	}
}

// serveFeature runs the first feature handler that claims request m and
// reports whether one did.
func (p *proxy) serveFeature(r *route, m *jsonrpc.Message) bool {
	for _, f := range r.features {
		if f.Request == nil {
			continue
		}
		claims := f.Claims == nil
		if !claims {
			func() {
				defer p.recoverBug(f.ext, m.Method+" Claims")
				claims = f.Claims(m.Params)
			}()
		}
		if !claims {
			continue
		}
		var tok struct {
			WorkDoneToken json.RawMessage `json:"workDoneToken"`
		}
		_ = json.Unmarshal(m.Params, &tok)
		serve := f.Request
		p.runOwn(m, tok.WorkDoneToken, m.Method+" "+f.ext.Name(), func(ctx context.Context, c Client) (any, error) {
			return serve(ctx, c, m.Params)
		})
		return true
	}
	return false
}

// notifyFeatures passes notification m to the features that observe it.
func (p *proxy) notifyFeatures(r *route, m *jsonrpc.Message) {
	for _, f := range r.features {
		if f.Notify == nil {
			continue
		}
		func() {
			defer p.recoverBug(f.ext, m.Method)
			f.Notify(&reqClient{p: p}, m.Params)
		}()
	}
}

// mergeFeatureCapabilities sets the ServerCapabilities members the
// features' request handlers advertise, where JDT LS declares none (or null
// or false) of its own. It returns the members set.
func (p *proxy) mergeFeatureCapabilities(caps map[string]json.RawMessage) []string {
	var set []string
	for _, name := range p.routeNames() {
		for _, f := range p.routes[name].features {
			if f.Request == nil || f.Capability == "" {
				continue
			}
			v := json.RawMessage("true")
			if f.Advertise != nil {
				func() {
					defer p.recoverBug(f.ext, "Advertise "+f.Capability)
					v = f.Advertise(p.initRaw)
				}()
			}
			if len(v) == 0 {
				continue
			}
			if raw, ok := caps[f.Capability]; ok && !isNullOrFalse(raw) {
				continue
			}
			caps[f.Capability] = v
			set = append(set, f.Capability)
		}
	}
	return set
}

// routeNames returns the table's methods, sorted.
func (p *proxy) routeNames() []string {
	names := make([]string, 0, len(p.routes))
	for n := range p.routes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
