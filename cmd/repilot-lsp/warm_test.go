package main

// warm_test.go: serve's warm-up through the real binary. A didOpen of a Java
// file, with no repair asked, starts the project's engine JDT LS; shutdown
// and exit while it starts stop it, and everything is gone within 5 s.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

func TestDidOpenWarmsEngineAndExitStopsIt(t *testing.T) {
	needJDTLS(t)
	root := project(t)
	e, stderr := startServe(t, root)
	file := filepath.Join(root, "src", "A.java")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first := javaOf(descendants(e.cmd.Process.Pid))
	open := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"java","version":1,"text":%s}}}`,
		jdtls.FileURI(file), mustQuote(string(text)))
	for _, b := range []string{`{"jsonrpc":"2.0","method":"initialized","params":{}}`, open} {
		if err := e.w.WriteBody([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	var all []int
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		all = descendants(e.cmd.Process.Pid)
		if len(javaOf(all)) > len(first) {
			break // the warm-up has spawned the engine's JDT LS
		}
		if time.Now().After(deadline) {
			t.Fatalf("no engine JDT LS a minute after didOpen\nstderr:\n%s", stderr)
		}
	}
	time.Sleep(500 * time.Millisecond)
	all = descendants(e.cmd.Process.Pid)
	for _, b := range []string{`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`} {
		if err := e.w.WriteBody([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-e.waitc:
	case <-time.After(grace):
		t.Fatalf("the proxy still runs %v after exit during the warm-up\nstderr:\n%s", grace, stderr)
	}
	waitGone(t, "after exit during the warm-up", all)
}
