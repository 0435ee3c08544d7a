package proxy_test

// routes_test.go checks, over the wire, that the method table the features
// register drives both dispatch and the advertised capabilities: every
// request method a feature registers is answered by the feature (JDT LS never
// sees it) and its capability is advertised, and every capability the proxy
// adds to JDT LS's is one a feature registered.

import (
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/inlinefeat"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/searchfeat"
	"github.com/repilot-lsp/repilot-lsp/search"
)

// tableParams are params each registered request method claims; a feature
// that registers a new request method must add its params here.
var tableParams = map[string]any{
	"workspace/symbol": map[string]any{"query": "?greeting"},
	"textDocument/inlineCompletion": map[string]any{"textDocument": map[string]any{"uri": javaURI},
		"position": pos(4, 16), "context": map[string]any{"triggerKind": 1}},
}

func TestMethodTable(t *testing.T) {
	exts := []proxy.Extension{
		searchfeat.New(func(string) (*search.Engine, error) { return nil, errors.New("no engine in this test") }),
		inlinefeat.New(&fakeSuggester{}),
	}
	e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}, exts: exts})
	caps := clientCaps(false)
	caps["textDocument"].(map[string]any)["inlineCompletion"] = map[string]any{}
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + testRoot, "capabilities": caps})
	f := e.server()
	f.expectMethod("initialize")
	resp := e.response(id)
	var merged struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(resp.Result, &merged); err != nil {
		t.Fatal(err)
	}
	e.notify("initialized", map[string]any{})
	f.expectMethod("initialized")
	e.open(javaURI, greeter, 1)

	// JDT LS's own capabilities in the fake (defaultHandle, static).
	jdtCaps := []string{"hoverProvider", "textDocumentSync", "codeActionProvider", "executeCommandProvider"}
	var registered []string
	for _, x := range exts {
		mh, ok := x.(proxy.MethodHandler)
		if !ok {
			continue
		}
		for _, m := range mh.Methods() {
			if m.Request == nil {
				continue
			}
			if m.Capability != "" {
				registered = append(registered, m.Capability)
				if _, ok := merged.Capabilities[m.Capability]; !ok {
					t.Errorf("%s: %s answers %s but %s is not advertised", x.Name(), x.Name(), m.Name, m.Capability)
				}
			}
			params, ok := tableParams[m.Name]
			if !ok {
				t.Errorf("%s registers %s: add params it claims to tableParams", x.Name(), m.Name)
				continue
			}
			r := e.response(e.request(m.Name, params))
			if r.Error != nil && r.Error.Code == jsonrpc.CodeMethodNotFound {
				t.Errorf("%s: %s", m.Name, r.Raw)
			}
			f.none(t, 100*time.Millisecond, func(msg *jsonrpc.Message) bool { return msg.Method == m.Name })
		}
	}
	var added []string
	for c := range merged.Capabilities {
		if !slices.Contains(jdtCaps, c) {
			added = append(added, c)
		}
	}
	sort.Strings(added)
	sort.Strings(registered)
	if !slices.Equal(added, registered) {
		t.Errorf("capabilities the proxy added %v, the features registered %v", added, registered)
	}
}

// TestStartLogShort: the log's "proxy started" line says what the proxy
// intercepts in one short line (it was about 1,400 characters); with Trace
// the whole table follows, one method a line.
func TestStartLogShort(t *testing.T) {
	for _, trace := range []bool{false, true} {
		exts := []proxy.Extension{
			searchfeat.New(func(string) (*search.Engine, error) { return nil, errors.New("no engine in this test") }),
			inlinefeat.New(&fakeSuggester{}),
		}
		log := &logBuf{t: t}
		e := startEditor(t, harness{repairer: &fakeRepairer{result: onePatch()}, exts: exts,
			mutate: func(o *proxy.Options) { o.Log = log; o.Trace = trace }})
		e.initialize(false)
		var line string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "proxy started") {
				line = l
			}
		}
		if len(line) > 320 {
			t.Errorf("the start line has %d characters, want at most 320: %s", len(line), line)
		}
		for _, want := range []string{"textDocument/inlineCompletion by inline", "workspace/symbol by search"} {
			if !strings.Contains(line, want) {
				t.Errorf("the start line lacks %q: %s", want, line)
			}
		}
		table := strings.Contains(log.String(), "\n  workspace/executeCommand: run the features' commands")
		if table != trace {
			t.Errorf("with Trace %v the method table is logged: %v", trace, table)
		}
	}
}
