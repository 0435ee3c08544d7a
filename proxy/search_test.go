package proxy_test

// search_test.go drives the semantic search extension through the proxy with
// the fake editor and fake JDT LS of fake_test.go, on a real project folder.

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/proxy/feature/searchfeat"
	"github.com/repilot-lsp/repilot-lsp/search"
)

const shopCart = `package shop;

public class Cart {
    /** Adds an item to the cart. */
    public void addItem(String item) { items.add(item); }

    /** Computes the total price including tax. */
    public double totalWithTax(double rate) { return total * (1 + rate); }
}
`

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// searchEditor starts the proxy with the search extension on a project in a
// temporary folder and waits for the first index build.
func searchEditor(t *testing.T) (*testEditor, string) {
	t.Helper()
	root := testtree.New(t, map[string]string{
		"src/shop/Cart.java":  shopCart,
		"scripts/invoice.py":  "def render_invoice_pdf(order):\n    \"\"\"Render the invoice.\"\"\"\n    return pdf.draw(order)\n",
		"src/shop/Empty.java": "package shop;\n",
	})
	var built atomic.Pointer[search.Engine]
	// Made here, before startEditor registers the clean-up that stops the
	// proxy, so that it is removed after the proxy has stopped (clean-ups
	// run last first): made in the factory, on the proxy's goroutine, it
	// was removed first, and the index wrote its cache into it again.
	cache := filepath.Join(t.TempDir(), "cache")
	ext := searchfeat.New(func(r string) (*search.Engine, error) {
		eng, err := search.New(search.Config{Root: r, CacheDir: cache})
		if err == nil {
			built.Store(eng)
		}
		return eng, err
	})
	e := startEditor(t, harness{exts: []proxy.Extension{ext}})
	id := e.request("initialize", map[string]any{"processId": nil, "rootUri": fileURI(root),
		"capabilities": clientCaps(false), "workspaceFolders": []any{map[string]any{"uri": fileURI(root), "name": "shop"}}})
	f := e.server()
	f.expectMethod("initialize")
	if r := e.response(id); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	e.notify("initialized", map[string]any{})
	// Indexing reports work done progress: create, begin, ..., end.
	create := e.expectMethod("window/workDoneProgress/create")
	e.sendRaw(`{"jsonrpc":"2.0","id":` + string(create.ID) + `,"result":null}`)
	end := e.expect("$/progress end", func(m *jsonrpc.Message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"end"`)
	})
	if !strings.Contains(string(end.Params), "4 units indexed") {
		t.Errorf("indexing progress end: %s", end.Params)
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		if eng := built.Load(); eng != nil {
			if st := eng.Status(); !st.Indexing && st.TotalFiles > 0 && st.Files == st.TotalFiles {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the index was not built in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return e, root
}

func searchResult(t *testing.T, r *jsonrpc.Message) searchfeat.SearchResult {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("search: %v", r.Error)
	}
	var out searchfeat.SearchResult
	if err := json.Unmarshal(r.Result, &out); err != nil {
		t.Fatalf("search result %s: %v", r.Result, err)
	}
	return out
}

func TestSearchCommandActionAndSymbols(t *testing.T) {
	e, root := searchEditor(t)
	cartURI := fileURI(filepath.Join(root, "src/shop/Cart.java"))

	// The command with a query: ranked Locations with scores and snippets.
	r := searchResult(t, e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{map[string]any{"query": "total price with tax"}}})))
	if len(r.Results) == 0 {
		t.Fatal("no results")
	}
	top := r.Results[0]
	if top.Name != "Cart.totalWithTax" || string(top.Location.URI) != cartURI || top.Location.Range.Start.Line != 7 ||
		top.Location.Range.Start.Character != 4 || top.Score <= 0 || !strings.Contains(top.Snippet, "total * (1 + rate)") {
		t.Errorf("top result %+v", top)
	}
	if !r.Strong || top.Match < search.StrongMatch {
		t.Errorf("a query whose words all occur in the top result: strong %v, match %v", r.Strong, top.Match)
	}
	// A bad test policy is the caller's error.
	bad := e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{map[string]any{"query": "total", "tests": "sometimes"}}}))
	if bad.Error == nil || bad.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("bad tests policy: %s", bad.Raw)
	}
	// A bare string argument works too.
	r = searchResult(t, e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{"render invoice pdf"}})))
	if len(r.Results) == 0 || r.Results[0].Name != "render_invoice_pdf" {
		t.Errorf("string query: %+v", r.Results)
	}

	// The code action on a selection carries the range; running it searches
	// for the selected text and shows the top results.
	e.open(cartURI, shopCart, 1)
	acts := e.response(e.request("textDocument/codeAction", codeActionParams(cartURI, 3, 8, 3, 34)))
	var list []struct {
		Title   string
		Command struct {
			Command   string
			Arguments []json.RawMessage
		}
	}
	if err := json.Unmarshal(acts.Result, &list); err != nil {
		t.Fatal(err)
	}
	var args json.RawMessage
	for _, a := range list {
		if a.Title == searchfeat.SearchActionTitle && a.Command.Command == searchfeat.CommandSemanticSearch {
			args = a.Command.Arguments[0]
		}
	}
	if args == nil {
		t.Fatalf("no %q action in %s", searchfeat.SearchActionTitle, acts.Result)
	}
	r = searchResult(t, e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{args}})))
	if r.Query != "Adds an item to the cart." || len(r.Results) == 0 || r.Results[0].Name != "Cart.addItem" {
		t.Errorf("selection search: query %q results %+v", r.Query, r.Results)
	}
	msg := e.expectMethod("window/showMessage")
	if !strings.Contains(string(msg.Params), "1. Cart.addItem (Cart.java:5") {
		t.Errorf("showMessage %s", msg.Params)
	}
	// No action on an empty selection.
	acts = e.response(e.request("textDocument/codeAction", codeActionParams(cartURI, 3, 8, 3, 8)))
	if strings.Contains(string(acts.Result), searchfeat.SearchActionTitle) {
		t.Errorf("action on an empty selection: %s", acts.Result)
	}

	// workspace/symbol "?..." is ours; the JDT LS never sees it.
	sym := e.response(e.request("workspace/symbol", map[string]any{"query": "?render the invoice as pdf"}))
	var syms []struct {
		Name     string
		Kind     int
		Location struct{ URI string }
	}
	if err := json.Unmarshal(sym.Result, &syms); err != nil || len(syms) == 0 || syms[0].Name != "render_invoice_pdf" || syms[0].Kind != 12 {
		t.Errorf("symbols %s (%v)", sym.Result, err)
	}

	// Errors are answers, not crashes.
	bad = e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{map[string]any{"query": "  "}}}))
	if bad.Error == nil || bad.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("empty query: %s", bad.Raw)
	}
}

func TestSearchFollowsEdits(t *testing.T) {
	e, root := searchEditor(t)
	path := filepath.Join(root, "src/shop/Cart.java")
	uri := fileURI(path)
	find := func(q string) []searchfeat.SearchHit {
		return searchResult(t, e.response(e.request("workspace/executeCommand", map[string]any{
			"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{map[string]any{"query": q}}}))).Results
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(waitTimeout)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen in time", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// didChange (unsaved buffer): a new method becomes searchable.
	e.open(uri, shopCart, 1)
	edited := shopCart[:strings.LastIndex(shopCart, "}")] + "    public void applyDiscountCoupon(String code) { }\n}\n"
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}}})
	eventually("didChange", func() bool {
		hs := find("apply a discount coupon")
		return len(hs) > 0 && hs[0].Name == "Cart.applyDiscountCoupon"
	})
	// didClose without saving: the disk's version is back.
	e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	eventually("didClose", func() bool {
		for _, h := range find("apply a discount coupon") {
			if h.Name == "Cart.applyDiscountCoupon" {
				return false
			}
		}
		return true
	})
	// A deleted file (didChangeWatchedFiles) disappears.
	py := filepath.Join(root, "scripts/invoice.py")
	os.Remove(py)
	e.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": fileURI(py), "type": 3}}})
	eventually("deleted file", func() bool {
		for _, h := range find("render invoice pdf") {
			if h.Name == "render_invoice_pdf" {
				return false
			}
		}
		return true
	})
	// A created file is indexed.
	os.WriteFile(filepath.Join(root, "src/shop/Ship.java"), []byte("class Ship { void scheduleDelivery() {} }"), 0o644)
	e.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{
		"uri": fileURI(filepath.Join(root, "src/shop/Ship.java")), "type": 1}}})
	eventually("created file", func() bool {
		hs := find("schedule delivery")
		return len(hs) > 0 && hs[0].Name == "Ship.scheduleDelivery"
	})
}

// TestSearchQueryCutOnARuneBoundary: a query over the command's byte bound
// is cut before the character the bound falls in, never inside it (UTF-8:
// "é" is two bytes, and the bound falls in the middle of one here).
func TestSearchQueryCutOnARuneBoundary(t *testing.T) {
	e, _ := searchEditor(t)
	q := "total" + strings.Repeat("é", 2000) // 4005 bytes; the 4000-byte bound splits an é
	r := searchResult(t, e.response(e.request("workspace/executeCommand", map[string]any{
		"workDoneToken": "w", "command": searchfeat.CommandSemanticSearch, "arguments": []any{map[string]any{"query": q}}})))
	if want := "total" + strings.Repeat("é", 1997); r.Query != want {
		t.Errorf("query cut to %d bytes ending in %q, want %d bytes of whole characters", len(r.Query), r.Query[len(r.Query)-4:], len(want))
	}
}
