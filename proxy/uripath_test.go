package proxy_test

import (
	"strings"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/proxy"
)

// TestURIPathAbsoluteOnly: a file URI names an absolute path (RFC 8089);
// an opaque "file:A.java" is an error, not the path "" or "A.java".
func TestURIPathAbsoluteOnly(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///work/p/A.java":      "/work/p/A.java",
		"file:///work/p/My%20A.java": "/work/p/My A.java",
		"file:A.java":                "",
		"file:":                      "",
		"untitled:Untitled-1":        "",
	} {
		got, err := proxy.URIPath(uri)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("URIPath(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
}

// TestRelativeRootIgnored: an initialize whose only root is a relative
// rootPath (or an opaque file URI) has no project root, rather than one
// read from the proxy's working folder.
func TestRelativeRootIgnored(t *testing.T) {
	log := &logBuf{t: t}
	e := startEditor(t, harness{mutate: func(o *proxy.Options) { o.Log = log }})
	e.request("initialize", map[string]any{"processId": nil, "rootPath": "../..",
		"capabilities": clientCaps(false)})
	e.server().expectMethod("initialize")
	if !strings.Contains(log.String(), `initialize: root ""`) {
		t.Errorf("the proxy took a relative root:\n%s", log.String())
	}
}
