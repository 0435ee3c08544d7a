package main

// fault_test.go runs the built repilot-lsp binary with a real JDT LS and ends
// it the ways crashing editors, careless users and the out-of-memory killer
// do, then checks that no process it started outlives it by more than 5 s:
//
//   - kill -9 of the proxy (the parent-death signal, internal/proc);
//   - the editor's pipes closing (no death by SIGPIPE; normal shutdown);
//   - SIGTERM, or the editor going, while a repair is starting its JDT LS
//     (the start is cancelled).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
	"github.com/repilot-lsp/repilot-lsp/internal/testtree"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
)

// grace is how long every process may take to go after the fault.
const grace = 5 * time.Second

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "repilot-fault-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "repilot-lsp")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building repilot-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needJDTLS(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs JDT LS")
	}
	_, err := jdtls.ResolveHome("")
	realpart.JDTLS.Require(t, err)
}

func project(t *testing.T) string {
	return testtree.New(t, map[string]string{
		"src/A.java": "class A {\n  int f() {\n    return 1;\n  }\n}\n",
	})
}

// proxyCmd returns the command for `repilot-lsp args...` with state and
// cache in temporary folders and no model server.
func proxyCmd(t *testing.T, args ...string) (*exec.Cmd, *logBuffer) {
	cache := cacheDir(t)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "REPILOT_MODEL_BASE_URL=", "REPILOT_CACHE="+cache)
	stderr := &logBuffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// cacheDir shares JDT LS's install (found through REPILOT_JDTLS_HOME) but
// keeps the state of the processes under test apart.
func cacheDir(t *testing.T) string {
	home, err := jdtls.ResolveHome("")
	if err == nil {
		t.Setenv(jdtls.EnvHome, home)
	}
	return t.TempDir()
}

// logBuffer collects a process's stderr; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// descendants returns the live processes below pid, from /proc.
func descendants(pid int) []int {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, state, ok := statOf(p); ok && state != "Z" {
			kids[pp] = append(kids[pp], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			out = append(out, k)
			walk(k)
		}
	}
	walk(pid)
	return out
}

// statOf reads the parent pid and state of pid from /proc/pid/stat.
func statOf(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0], true
}

func alive(pid int) bool {
	_, state, ok := statOf(pid)
	return ok && state != "Z"
}

// javaOf returns the java processes among pids.
func javaOf(pids []int) []int {
	var out []int
	for _, p := range pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && strings.Contains(string(b), "java") {
			out = append(out, p)
		}
	}
	return out
}

// waitGone waits up to grace for every pid to end; it fails naming the
// survivors (and kills them, so that the test run leaks nothing).
func waitGone(t *testing.T, what string, pids []int) {
	t.Helper()
	deadline := time.Now().Add(grace)
	for {
		var left []int
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("%s: processes %v still alive %v later", what, left, grace)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// editor speaks LSP to a started `repilot-lsp serve`.
type editor struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   io.ReadCloser
	r     *jsonrpc.Reader
	w     *jsonrpc.Writer
	waitc chan error
}

func startServe(t *testing.T, root string) (*editor, *logBuffer) {
	t.Helper()
	cmd, stderr := proxyCmd(t, "serve", "--state-dir", t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &editor{t: t, cmd: cmd, in: in, out: out, r: jsonrpc.NewReader(out), w: jsonrpc.NewWriter(in), waitc: make(chan error, 1)}
	go func() { e.waitc <- cmd.Wait() }()
	t.Cleanup(func() {
		pids := descendants(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	params := fmt.Sprintf(`{"processId":%d,"rootUri":%q,"capabilities":{}}`, os.Getpid(), jdtls.FileURI(root))
	if err := e.w.WriteBody([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		for {
			m, err := e.r.Read()
			if err != nil {
				got <- err
				return
			}
			if m.IsResponse() && string(m.ID) == "1" {
				if m.Error != nil {
					got <- m.Error
				} else {
					got <- nil
				}
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("initialize: %v\nstderr:\n%s", err, stderr)
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("no initialize response in 3 minutes\nstderr:\n%s", stderr)
	}
	// Keep draining what JDT LS says, as an editor does.
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return e, stderr
}

// TestKill9LeavesNoJava: a proxy killed with SIGKILL (or by the
// out-of-memory killer) runs no code; its JDT LS must still end.
func TestKill9LeavesNoJava(t *testing.T) {
	needJDTLS(t)
	e, _ := startServe(t, project(t))
	java := javaOf(descendants(e.cmd.Process.Pid))
	if len(java) == 0 {
		t.Fatal("no java process below the proxy after initialize")
	}
	if err := e.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-e.waitc
	waitGone(t, "after kill -9 of the proxy", java)
}

// TestEditorPipesClosedEndsAll: an editor that crashes closes both pipes;
// the proxy must stop through its shutdown (not die of SIGPIPE leaving JDT
// LS behind) and everything must be gone within 5 s.
func TestEditorPipesClosedEndsAll(t *testing.T) {
	needJDTLS(t)
	e, stderr := startServe(t, project(t))
	all := descendants(e.cmd.Process.Pid)
	if len(javaOf(all)) == 0 {
		t.Fatal("no java process below the proxy after initialize")
	}
	_ = e.out.Close()
	_ = e.in.Close()
	select {
	case err := <-e.waitc:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Errorf("the proxy was killed by %v instead of shutting down\nstderr:\n%s", ws.Signal(), stderr)
			}
		}
	case <-time.After(grace):
		t.Fatalf("the proxy still runs %v after the editor's pipes closed\nstderr:\n%s", grace, stderr)
	}
	waitGone(t, "after the editor's pipes closed", all)
}

// TestSIGTERMDuringEngineStart: SIGTERM while `repair` starts its JDT LS
// cancels the start; the command and its JDT LS are gone within 5 s.
func TestSIGTERMDuringEngineStart(t *testing.T) {
	needJDTLS(t)
	root := project(t)
	cmd, stderr := proxyCmd(t, "repair", "--project", root, "--file", "src/A.java", "--lines", "3",
		"--state-dir", t.TempDir(), "--samples", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var java []int
	for deadline := time.Now().Add(time.Minute); len(java) == 0; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-waitc:
			t.Fatalf("repair ended (%v) before starting JDT LS\nstderr:\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no java process below repair after a minute\nstderr:\n%s", stderr)
		}
		java = javaOf(descendants(cmd.Process.Pid))
	}
	// JDT LS has just been spawned: its start takes seconds more.
	time.Sleep(500 * time.Millisecond)
	all := descendants(cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waitc:
	case <-time.After(grace):
		for _, p := range all {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("repair still runs %v after SIGTERM during the engine start\nstderr:\n%s", grace, stderr)
	}
	if !strings.Contains(stderr.String(), "interrupted (SIGTERM)") {
		t.Errorf("stderr does not say interrupted (SIGTERM):\n%s", stderr)
	}
	waitGone(t, "after SIGTERM during the engine start", all)
}

// TestEditorGoesDuringEngineStart: the editor closes its stream while a
// repair is starting the engine's JDT LS; the start is cancelled and the
// proxy and both JDT LS processes are gone within 5 s.
func TestEditorGoesDuringEngineStart(t *testing.T) {
	needJDTLS(t)
	root := project(t)
	e, stderr := startServe(t, root)
	file := filepath.Join(root, "src", "A.java")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	uri := jdtls.FileURI(file)
	open := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"java","version":1,"text":%s}}}`,
		uri, mustQuote(string(text)))
	repair := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"repilot.repairHunk","arguments":[{"uri":%q,"range":{"start":{"line":2,"character":0},"end":{"line":3,"character":0}}}]}}`, uri)
	// Before the didOpen: serve's warm-up starts the engine on it.
	first := javaOf(descendants(e.cmd.Process.Pid))
	for _, b := range []string{`{"jsonrpc":"2.0","method":"initialized","params":{}}`, open, repair} {
		if err := e.w.WriteBody([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	var all []int
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		all = descendants(e.cmd.Process.Pid)
		if len(javaOf(all)) > len(first) {
			break // the engine's JDT LS has been spawned
		}
		if time.Now().After(deadline) {
			t.Fatalf("no engine JDT LS after a minute\nstderr:\n%s", stderr)
		}
	}
	time.Sleep(500 * time.Millisecond)
	all = descendants(e.cmd.Process.Pid)
	_ = e.in.Close()
	select {
	case <-e.waitc:
	case <-time.After(grace):
		t.Fatalf("the proxy still runs %v after the editor went during an engine start\nstderr:\n%s", grace, stderr)
	}
	waitGone(t, "after the editor went during an engine start", all)
}

func mustQuote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
