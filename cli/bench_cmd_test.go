package cli

// bench_cmd_test.go: "bench" with a name that is no benchmark is an error,
// not its help with exit status 0.

import (
	"bytes"
	"strings"
	"testing"
)

// runRoot runs the root command with args and returns its error, stdout
// and stderr.
func runRoot(t *testing.T, args ...string) (error, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	Root.SetArgs(args)
	Root.SetOut(&out)
	Root.SetErr(&errb)
	defer func() {
		Root.SetArgs(nil)
		Root.SetOut(nil)
		Root.SetErr(nil)
	}()
	err := Root.Execute()
	return err, out.String(), errb.String()
}

func TestBenchUnknownSubcommand(t *testing.T) {
	err, out, _ := runRoot(t, "bench", "repiar")
	if err == nil || !strings.Contains(err.Error(), `unknown command "repiar"`) {
		t.Errorf("bench repiar: err = %v; want unknown command", err)
	}
	if strings.Contains(out, "Available Commands") {
		t.Errorf("bench repiar printed the help as if it were asked for:\n%s", out)
	}
	// "bench" alone still lists the benchmarks, without an error.
	err, out, _ = runRoot(t, "bench")
	if err != nil || !strings.Contains(out, "Available Commands") || !strings.Contains(out, "repair") {
		t.Errorf("bench: err = %v, output %q; want the help listing the benchmarks", err, out)
	}
}

// TestBadFlagSaysWhereTheHelpIs: "unknown flag: --bogus" alone left the user
// to guess which --help lists the flags.
func TestBadFlagSaysWhereTheHelpIs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--bogus", "x"}, "Run 'repilot-lsp search --help' for usage."},
		{[]string{"repair", "--seed", "x"}, "Run 'repilot-lsp repair --help' for usage."},
		{[]string{"bench", "inline", "--bogus"}, "Run 'repilot-lsp bench inline --help' for usage."},
	} {
		err, _, _ := runRoot(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v; want it to end %q", c.args, err, c.want)
		}
	}
}
