package cli

// flags_bad_test.go: nonsense numbers on repair's command line are refused
// with a message naming the flag, before any JDT LS starts, instead of being
// replaced by a default (a negative --test-timeout ran with 2 minutes, a
// negative --model-timeout with 1 minute, --model-concurrency 0 put 4
// requests in flight) or passed on (--temperature NaN sampled with NaN).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/backend"
	"github.com/repilot-lsp/repilot-lsp/lm/openai"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

func TestRepairRefusesNonsenseNumbers(t *testing.T) {
	old := newRepairer
	newRepairer = func(backend.Config) (repair.Repairer, error) {
		t.Error("the repair service (JDT LS) was built for a refused flag")
		return nil, context.Canceled
	}
	defer func() { newRepairer = old }()
	// A closed port: the model flags are checked only with a server set, and
	// a case that got as far as the server check would fail without naming
	// its flag.
	t.Setenv(EnvModelBaseURL, "http://127.0.0.1:1/v1")
	root := writeProject(t)
	good := func() repairFlags {
		return repairFlags{project: root, file: "src/A.java", lines: "3", variant: "full", keep: 1,
			sampling: samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1},
			model:    modelFlags{apiKeyEnv: openai.EnvAPIKey, timeout: time.Minute, concurrency: 1, retries: 3}}
	}
	cases := []struct {
		flag string
		set  func(*repairFlags)
	}{
		{"--temperature", func(f *repairFlags) { f.sampling.temperature = math.NaN() }},
		{"--temperature", func(f *repairFlags) { f.sampling.temperature = math.Inf(1) }},
		{"--test-timeout", func(f *repairFlags) { f.testTimeout = -time.Second }},
		{"--test-time-factor", func(f *repairFlags) { f.testFactor = -1 }},
		{"--test-time-factor", func(f *repairFlags) { f.testFactor = math.NaN() }},
		{"--test-time-factor", func(f *repairFlags) { f.testFactor = math.Inf(1) }},
		{"--test-time-floor", func(f *repairFlags) { f.testFloor = -time.Second }},
		{"--model-timeout", func(f *repairFlags) { f.model.timeout = -time.Second }},
		{"--model-timeout", func(f *repairFlags) { f.model.timeout = 0 }},
		{"--model-concurrency", func(f *repairFlags) { f.model.concurrency = 0 }},
		{"--model-concurrency", func(f *repairFlags) { f.model.concurrency = -4 }},
		{"--model-retries", func(f *repairFlags) { f.model.retries = -1 }},
		{"--model-retries", func(f *repairFlags) { f.model.retries = 1000 }},
		{"--model-concurrency", func(f *repairFlags) { f.model.concurrency = 1 << 20 }},
		{"--variant", func(f *repairFlags) { f.variant = "fancy" }},
		{"--keep 0", func(f *repairFlags) { f.keep = 0 }},
	}
	for _, c := range cases {
		f := good()
		c.set(&f)
		var out, errb bytes.Buffer
		err := runRepair(context.Background(), f, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: err = %v; want an error naming %s", c.flag, err, c.flag)
		}
	}
	// The hunk bounds' variables: before, a value that was not a positive
	// integer ("16k", "0") was dropped without a word for the default.
	for _, env := range []struct{ name, val string }{
		{repair.EnvMaxHunkBytes, "16k"}, {repair.EnvMaxHunkBytes, "0"}, {repair.EnvMaxHunkLines, "-1"},
	} {
		t.Run(env.name+"="+env.val, func(t *testing.T) {
			t.Setenv(env.name, env.val)
			var out, errb bytes.Buffer
			err := runRepair(context.Background(), good(), nil, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), env.name) || !strings.Contains(err.Error(), env.val) {
				t.Errorf("err = %v; want an error naming $%s and its value", err, env.name)
			}
		})
	}
}

func TestModelFlagsRefuseNonsense(t *testing.T) {
	// serve and bench repair go through resolve too; with a server set the
	// values reach the HTTP client, which used to replace them silently.
	env := envOf(map[string]string{EnvModelBaseURL: "http://127.0.0.1:1/v1"})
	for _, f := range []modelFlags{
		{timeout: -time.Second, concurrency: 1},
		{timeout: time.Second, concurrency: 0},
		{timeout: time.Second, concurrency: 1, retries: -2},
		{timeout: time.Second, concurrency: 1, retries: 11},
		{timeout: time.Second, concurrency: 257},
	} {
		if _, err := f.resolve(env); err == nil {
			t.Errorf("resolve(%+v) = nil error; want the bad flag refused", f)
		}
	}
	// An unknown FIM template: the message named neither the flag nor
	// "infill", which the flag's help and the README offer.
	for _, c := range []struct {
		flag string
		env  func(string) string
	}{
		{"bogus", env},
		{"", envOf(map[string]string{EnvModelBaseURL: "http://127.0.0.1:1/v1", EnvModelFIM: "bogus"})},
	} {
		f := modelFlags{timeout: time.Second, concurrency: 1, fim: c.flag}
		source := "$" + EnvModelFIM // where the value came from
		if c.flag != "" {
			source = "--fim-template"
		}
		if _, err := f.resolve(c.env); err == nil || !strings.Contains(err.Error(), source) || !strings.Contains(err.Error(), "infill") {
			t.Errorf("unknown FIM template: err = %v; want one naming %s and infill", err, source)
		}
	}
	// A base URL that is no http(s) URL: the message named neither the flag
	// nor its variable ("lm/openai: base URL ... is not an http(s) URL").
	for _, u := range []string{"not a url", "ftp://x/v1", "127.0.0.1:8080/v1", "http:///v1"} {
		_, err := (modelFlags{timeout: time.Second, concurrency: 1, baseURL: u}).resolve(envOf(nil))
		if err == nil || !strings.HasPrefix(err.Error(), "--model-base-url ") {
			t.Errorf("--model-base-url %q: err = %v; want one naming the flag", u, err)
		}
	}
	for _, name := range []string{"infill", "Qwen", "deepseek-coder", ""} {
		if _, err := (modelFlags{timeout: time.Second, concurrency: 1, fim: name}).resolve(env); err != nil {
			t.Errorf("--fim-template %q refused: %v", name, err)
		}
	}
	// Without a model server (the embedded n-gram model) a bad value is
	// refused too, naming its flag or variable: it used to be accepted and
	// ignored, so a typo went unnoticed until a server was set.
	for _, c := range []struct {
		f    modelFlags
		env  map[string]string
		name string
	}{
		{modelFlags{timeout: time.Second, concurrency: 1, fim: "bogus"}, nil, "--fim-template"},
		{modelFlags{timeout: time.Second, concurrency: 1}, map[string]string{EnvModelFIM: "bogus"}, "$" + EnvModelFIM},
		{modelFlags{timeout: time.Second, concurrency: 1, context: "12"}, nil, "--model-context"},
		{modelFlags{timeout: time.Second, concurrency: 1, dialect: "tgi"}, nil, "--model-dialect"},
		{modelFlags{timeout: time.Second, concurrency: 1, retries: 11}, nil, "--model-retries"},
		{modelFlags{timeout: time.Second, concurrency: 0}, nil, "--model-concurrency"},
		{modelFlags{timeout: 0, concurrency: 1}, nil, "--model-timeout"},
	} {
		if _, err := c.f.resolve(envOf(c.env)); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("no model server, %s bad: err = %v; want one naming %s", c.name, err, c.name)
		}
	}
	if _, err := (modelFlags{timeout: time.Second, concurrency: 256, retries: 10}).resolve(env); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
	if _, err := (modelFlags{timeout: time.Second, concurrency: 1}).resolve(env); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
}

// TestModelSettingsNameTheirSource: a bad base URL or FIM template names
// the flag or the environment variable it came from (the editor plugins set
// the variables: "--model-base-url" would send their users to a flag they
// never wrote), and never the URL's password.
func TestModelSettingsNameTheirSource(t *testing.T) {
	cases := []struct {
		flags modelFlags
		env   map[string]string
		want  string
	}{
		{modelFlags{}, map[string]string{EnvModelBaseURL: "localhost:8080"}, "$" + EnvModelBaseURL},
		{modelFlags{}, map[string]string{EnvModelBaseURL: "ftp://u:secret@h/v1"}, "$" + EnvModelBaseURL},
		{modelFlags{baseURL: "http://[::1"}, nil, "--model-base-url"},
		{modelFlags{}, map[string]string{EnvModelBaseURL: "http://127.0.0.1:1/v1", EnvModelFIM: "bogus"}, "$" + EnvModelFIM},
		{modelFlags{fim: "bogus"}, map[string]string{EnvModelBaseURL: "http://127.0.0.1:1/v1"}, "--fim-template"},
	}
	for _, c := range cases {
		f := c.flags
		f.timeout, f.concurrency, f.retries = time.Second, 1, 3
		_, err := f.resolve(envOf(c.env))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v %v: err = %v; want an error naming %s (and no password)", c.flags, c.env, err, c.want)
		}
	}
	for _, fim := range []string{"", "infill", "qwen"} {
		f := modelFlags{timeout: time.Second, concurrency: 1, fim: fim}
		if _, err := f.resolve(envOf(map[string]string{EnvModelBaseURL: "https://u:p@example.com/v1/"})); err != nil {
			t.Errorf("good settings (fim %q) refused: %v", fim, err)
		}
	}
}

// TestInterruptedCountsCompileChecked: candidates whose compile check passed
// but whose tests were interrupted are listed as "compilable, tests
// interrupted"; the first line must not say none of them was checked
// ("0 of 4 candidates validated" above three such patches confused a reader).
func TestInterruptedCountsCompileChecked(t *testing.T) {
	res := partialResult()
	p := res.Patches[0]
	p.Unvalidated, p.Hunk = true, "    return 4;\n" // compiled, tests interrupted
	ps := []repair.Patch{res.Patches[0], p, res.Patches[1]}
	res.Patches, res.Candidates = ps, ps
	out, _ := runInterrupted(t, res, false)
	first, _, _ := strings.Cut(out, "\n")
	if want := "# interrupted after 7 of 20 samples; 1 of 3 candidates validated (1 more compile-checked, its tests interrupted)"; first != want {
		t.Fatalf("first line %q, want %q; output:\n%s", first, want, out)
	}
}

// TestStatsLineNamesItsClock: the summary's time counted from when JDT LS
// and the model were ready (1m6.6s) while the "found a plausible patch
// after 1m19.7s" lines above it count from the command's start, so the
// whole repair looked shorter than the time of a patch it found.
func TestStatsLineNamesItsClock(t *testing.T) {
	line := statsLine(repair.Stats{Samples: 20, Duration: 66633 * time.Millisecond}, 91*time.Second)
	for _, want := range []string{"repair 1m6.6s once JDT LS and the model were ready", "1m31s in all"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}

// TestSamplingFlagsNameTheBadOne: a bad --samples or --max-tokens is named
// alone, with its value (both were once named whichever was wrong).
func TestSamplingFlagsNameTheBadOne(t *testing.T) {
	good := samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1}
	for _, c := range []struct {
		set       func(*samplingFlags)
		want, not string
	}{
		{func(f *samplingFlags) { f.samples = 0 }, "--samples 0: want at least 1", "--max-tokens"},
		{func(f *samplingFlags) { f.maxTokens = -3 }, "--max-tokens -3: want at least 1", "--samples"},
	} {
		f := good
		c.set(&f)
		err := f.apply(&repair.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("err = %v; want %q, without %s", err, c.want, c.not)
		}
	}
	if err := good.apply(&repair.Options{}); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
}

// TestBenchInlineRefusesNonsenseNumbers: bench inline names a bad count,
// budget or temperature before it resolves JDT LS (here a missing one, so
// that a case that got past the check fails without naming its flag):
// --per-file -1 panicked, --samples 0 ran one sample under a row named
// "0 samples", a negative budget meant none, NaN reached the sampler.
func TestBenchInlineRefusesNonsenseNumbers(t *testing.T) {
	root := writeProject(t)
	good := func() benchInlineFlags {
		return benchInlineFlags{project: root, jdtls: filepath.Join(t.TempDir(), "no-jdtls"), requests: 5, perFile: 4, seed: 1,
			budget: time.Second, invokedB: time.Second, samples: 2}
	}
	cases := []struct {
		flag string
		set  func(*benchInlineFlags)
	}{
		{"--requests 0", func(f *benchInlineFlags) { f.requests = 0 }},
		{"--requests -3", func(f *benchInlineFlags) { f.requests = -3 }},
		{"--per-file -1", func(f *benchInlineFlags) { f.perFile = -1 }},
		{"--per-file 0", func(f *benchInlineFlags) { f.perFile = 0 }},
		{"--samples 0", func(f *benchInlineFlags) { f.samples = 0 }},
		{"--compare-samples -2", func(f *benchInlineFlags) { f.compare = -2 }},
		{"--budget -1s", func(f *benchInlineFlags) { f.budget = -time.Second }},
		{"--invoked-budget -1s", func(f *benchInlineFlags) { f.invokedB = -time.Second }},
		{"--compare-temperature NaN", func(f *benchInlineFlags) { f.compareT = math.NaN() }},
		{"--compare-temperature -0.5", func(f *benchInlineFlags) { f.compareT = -0.5 }},
		{"--compare-temperature +Inf", func(f *benchInlineFlags) { f.compareT = math.Inf(1) }},
	}
	for _, c := range cases {
		f := good()
		c.set(&f)
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = runBenchInline(context.Background(), f, io.Discard, io.Discard)
		}()
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: err = %v; want an error naming %s", c.flag, err, c.flag)
		}
	}
	if err := good().check(); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
}

// TestBenchRepairRefusesTimeoutsOfZero: --request-timeout and
// --compile-timeout of 0 or less timed every engine request and compile
// check out at once (the benchmark ran unguided and compiled nothing); they
// are refused, named, before the corpus is read (a missing one here, so
// that a case that got past the check fails without naming its flag).
func TestBenchRepairRefusesTimeoutsOfZero(t *testing.T) {
	for _, c := range []struct {
		flag      string
		req, comp time.Duration
	}{
		{"--request-timeout 0s", 0, time.Minute},
		{"--request-timeout -1s", -time.Second, time.Minute},
		{"--compile-timeout 0s", time.Minute, 0},
		{"--compile-timeout -2m0s", time.Minute, -2 * time.Minute},
	} {
		f := benchRepairFlags{corpus: corpusFlags{dir: filepath.Join(t.TempDir(), "no-corpus")}, variants: []string{"full"},
			sampling: samplingFlags{samples: 1, maxTokens: 8, temperature: 1, topP: 1}, requestTimeout: c.req, compileTimeout: c.comp}
		err := runBenchRepair(context.Background(), f, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: err = %v; want an error naming %s", c.flag, err, c.flag)
		}
	}
}

// TestBenchInlineNamesAMissingProjectOrCorpus: a --project or --corpus that
// is not there is named by its flag, before JDT LS is looked for (a missing
// JDT LS here). Before: "lstat /nope: no such file or directory", "zip: not
// a valid zip file", or JDT LS's absence first.
func TestBenchInlineNamesAMissingProjectOrCorpus(t *testing.T) {
	notZip := filepath.Join(t.TempDir(), "src.zip")
	if err := os.WriteFile(notZip, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		project, corpus, want string
	}{
		{project: "/nonexistent/project", want: "--project /nonexistent/project is not a directory"},
		{project: notZip, want: "is not a directory"},
		{corpus: "/nonexistent/src.zip", want: "--corpus /nonexistent/src.zip is not a file"},
		{corpus: t.TempDir(), want: "is not a file"},
	} {
		f := benchInlineFlags{project: c.project, corpus: c.corpus, jdtls: filepath.Join(t.TempDir(), "no-jdtls"), requests: 5, perFile: 4, seed: 1,
			budget: time.Second, invokedB: time.Second, samples: 2}
		err := runBenchInline(context.Background(), f, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--project %q --corpus %q: %v; want %q", c.project, c.corpus, err, c.want)
		}
	}
}
