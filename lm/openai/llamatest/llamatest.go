// Package llamatest starts a real llama.cpp llama-server for integration tests
// and benchmarks: the binary built by scripts/install-llama.sh and the tiny
// random-weight model made by scripts/models/make-random.sh, on a free
// loopback port.
//
// Test rule (the team's, for real peers): when llama-server is missing the
// test fails with a message saying to run scripts/install-llama.sh, unless
// REPILOT_SKIP_LLAMA=1, in which case it is skipped with that reason. Nothing
// here builds llama.cpp: a unit test never compiles C++.
package llamatest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/cachedir"
	"github.com/repilot-lsp/repilot-lsp/internal/proc"
	"github.com/repilot-lsp/repilot-lsp/internal/realpart"
)

// Version is the node-llama-cpp release whose llama.cpp install-llama.sh
// builds by default (the cache path is keyed by it).
const Version = "3.21.1"

// ServerPath returns the llama-server binary: $REPILOT_LLAMA_SERVER, else
// the one scripts/install-llama.sh caches under $REPILOT_CACHE (default
// ~/.cache/repilot-lsp). An error says how to build it.
func ServerPath() (string, error) {
	if p := os.Getenv("REPILOT_LLAMA_SERVER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("REPILOT_LLAMA_SERVER=%s: %w", p, err)
		}
		return p, nil
	}
	dest := filepath.Join(cachedir.Root(), "llama.cpp", "node-llama-cpp-"+Version)
	bin := filepath.Join(dest, "src", "build", "bin", "llama-server")
	if _, err := os.Stat(filepath.Join(dest, ".complete")); err != nil {
		return "", fmt.Errorf("llama-server is not built (no %s): run scripts/install-llama.sh (about 10 minutes once; cached)", bin)
	}
	return bin, nil
}

// Require returns the llama-server path or ends the test as the rule says;
// under go test -short it skips (realpart.Llama.Short).
func Require(t testing.TB) string {
	t.Helper()
	realpart.Llama.Short(t)
	p, err := ServerPath()
	if err != nil {
		if os.Getenv("REPILOT_SKIP_LLAMA") == "1" {
			t.Skipf("REPILOT_SKIP_LLAMA=1 and no llama-server: %v", err)
		}
		t.Fatalf("this integration test needs llama.cpp's llama-server: %v (or set REPILOT_SKIP_LLAMA=1 to skip)", err)
	}
	return p
}

// repoRoot finds the module root (the directory with go.mod) above the
// working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// RandomModel returns the path of the random-weight test model for a
// tokenizer ("deepseek-coder": FIM tokens) and shape ("tiny": 4.2M
// parameters; "small": 59M), making it once with
// scripts/models/make-random.sh (10-20 s; cached). Call it only after
// Require: the script would otherwise build llama.cpp.
func RandomModel(vocab, shape string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "models", "make-random.sh"), vocab, shape)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/models/make-random.sh %s: %w\n%s", vocab, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Options start a server.
type Options struct {
	Binary  string // llama-server (ServerPath)
	Model   string // GGUF file
	Ctx     int    // context size in tokens (default 8192)
	Threads int    // CPU threads (default 2)
	Slots   int    // parallel slots (default 1: every request reuses one prompt cache)
	Args    []string
	LogFile string // where the server's output goes (default: discarded); removed by Close, kept when the server does not start
}

// Server is a running llama-server.
type Server struct {
	URL   string // API base, "http://127.0.0.1:PORT/v1"
	Root  string // "http://127.0.0.1:PORT"
	Model string // the GGUF file it serves (Options.Model)
	cmd   *exec.Cmd
	done  chan error
	log   string // Options.LogFile, removed by Close
}

// Start runs llama-server on a free loopback port and waits until /health
// answers 200 (bounded by ctx).
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Ctx <= 0 {
		o.Ctx = 8192
	}
	if o.Threads <= 0 {
		o.Threads = 2
	}
	if o.Slots <= 0 {
		o.Slots = 1
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"-m", o.Model, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-c", strconv.Itoa(o.Ctx), "-t", strconv.Itoa(o.Threads), "-np", strconv.Itoa(o.Slots)}
	args = append(args, o.Args...)
	cmd := exec.Command(o.Binary, args...)
	// Its own process group, and a parent-death signal: a test process
	// that ends without its clean-up (a -timeout panic, SIGKILL, a Ctrl-C
	// that the server's group does not get) takes the server with it.
	proc.Tie(cmd)
	// The llama.cpp build runs its worker threads on OpenMP, whose idle
	// threads spin by default: on a loaded machine -t 2 then costs about 2.7
	// times the CPU of -t 1 per request (search/README.md, "Embedding
	// speed"). Passive waiting gives the same results at less CPU, which the
	// tests running beside the server need. A value already set is kept.
	cmd.Env = os.Environ()
	if os.Getenv("OMP_WAIT_POLICY") == "" {
		cmd.Env = append(cmd.Env, "OMP_WAIT_POLICY=passive")
	}
	if o.LogFile != "" {
		f, err := os.Create(o.LogFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", o.Binary, err)
	}
	s := &Server{
		Root:  fmt.Sprintf("http://127.0.0.1:%d", port),
		Model: o.Model,
		cmd:   cmd,
		done:  make(chan error, 1),
		log:   o.LogFile,
	}
	s.URL = s.Root + "/v1"
	go func() { s.done <- cmd.Wait() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("llama-server exited before it was ready (%v); see %s", err, o.LogFile)
		case <-ctx.Done():
			s.log = "" // kept for the error below
			s.Close()
			return nil, fmt.Errorf("llama-server not ready: %w (its output: %s)", ctx.Err(), o.LogFile)
		case <-tick.C:
			resp, err := http.Get(s.Root + "/health")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return s, nil
				}
			}
		}
	}
}

// Close stops the server (SIGTERM, then SIGKILL after 5 s) and removes its
// log file (Options.LogFile).
func (s *Server) Close() error {
	if s == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	if s.log != "" {
		_ = os.Remove(s.log)
	}
	return nil
}

// Kill ends the server at once (SIGKILL: no clean shutdown, connections in
// flight are cut) and waits for it to exit, as a crash would; Close
// afterwards only removes the log file. It is for tests of a server that
// dies mid-request.
func (s *Server) Kill() {
	if s == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	err := <-s.done
	s.done <- err // for Close
}

// StartRandom starts a llama-server of the test's own (not Shared's) on
// RandomModel(vocab, shape), with o's settings (o.Binary and o.Model are
// filled in here), and stops it when the test ends (t.Cleanup). It applies
// Require's rule first, so a missing llama-server fails the test, or skips it
// with REPILOT_SKIP_LLAMA=1; it fails the test when the model cannot be made
// or the server is not ready within ctx.
func StartRandom(ctx context.Context, t testing.TB, vocab, shape string, o Options) *Server {
	t.Helper()
	o.Binary = Require(t)
	srv, err := startRandom(ctx, vocab, shape, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// startRandom makes RandomModel(vocab, shape) and starts o.Binary on it.
func startRandom(ctx context.Context, vocab, shape string, o Options) (*Server, error) {
	model, err := RandomModel(vocab, shape)
	if err != nil {
		return nil, err
	}
	o.Model = model
	srv, err := Start(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("starting llama-server on %s: %w", model, err)
	}
	return srv, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
	took time.Duration
}

// Shared returns one server per test binary, started on first use with the
// deepseek-coder random model of shape $REPILOT_LLAMA_SHAPE (default "tiny";
// log in the temp directory); Shutdown stops it. It applies Require's rule.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin := Require(t)
	shared.once.Do(func() {
		began := time.Now()
		shape := os.Getenv("REPILOT_LLAMA_SHAPE")
		if shape == "" {
			shape = "tiny"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		log := filepath.Join(os.TempDir(), fmt.Sprintf("repilot-llamatest-%d.log", os.Getpid()))
		shared.srv, shared.err = startRandom(ctx, "deepseek-coder", shape, Options{Binary: bin, LogFile: log})
		shared.took = time.Since(began)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// SharedStartTime is how long Shared took to make the model and start the
// server (0 before it ran).
func SharedStartTime() time.Duration { return shared.took }

// Shutdown stops the shared server, if one was started (call from TestMain).
func Shutdown() {
	if shared.srv != nil {
		shared.srv.Close()
	}
}
