// Package realpart applies the team's rule for integration tests that need a
// real part of the system that a script or package installs (JDT LS, the
// JDK's src.zip): when the part is missing the test fails with a message
// saying how to install it, unless the part's REPILOT_SKIP_* environment
// variable is "1", in which case the test is skipped with that reason. A
// missing part is never skipped silently.
//
// Under go test -short every test that needs a real part skips, saying so,
// whether the part is installed or not: `go test -short ./...` is the quick
// inner loop (seconds), the full run is the suite.
//
// It imports no package of the module, so that any package's own tests
// (jdtls's included) can use it.
package realpart

import (
	"os"
	"testing"
)

// Part names a real part that integration tests need.
type Part struct {
	Name    string // what the test needs, as the messages say it: "JDT LS"
	Install string // how to install it: "run scripts/install-jdtls.sh"
	SkipEnv string // the variable that, set to "1", turns the failure into a skip
}

// JDTLS is Eclipse JDT LS, found by jdtls.ResolveHome.
var JDTLS = Part{Name: "JDT LS", Install: "run scripts/install-jdtls.sh", SkipEnv: "REPILOT_SKIP_JDTLS"}

// JDKSource is the JDK's source archive src.zip, found by
// ngram.FindJDKSrcZip ($JAVA_HOME/lib/src.zip or /usr/lib/jvm/*/lib/src.zip).
var JDKSource = Part{Name: "JDK src.zip", Install: "install openjdk-17-source", SkipEnv: "REPILOT_SKIP_JDK_SRC"}

// Llama is llama.cpp's llama-server, found by llamatest.ServerPath (its own
// Require applies the same rule).
var Llama = Part{Name: "llama.cpp's llama-server", Install: "run scripts/install-llama.sh", SkipEnv: "REPILOT_SKIP_LLAMA"}

// Short skips the test under go test -short, naming the part it needs;
// otherwise it does nothing. Require calls it first; a test that finds its
// part some other way calls it before starting the part.
func (p Part) Short(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: skipping an integration test that needs %s (run without -short for it)", p.Name)
	}
}

// Require skips the test under -short (Short). Otherwise it does nothing
// when err is nil. Otherwise err says why the part was
// not found, and Require ends the test: with t.Skipf when p.SkipEnv is "1",
// else with t.Fatalf naming the part, how to install it and the variable
// that skips instead. Both messages include err.
func (p Part) Require(t testing.TB, err error) {
	t.Helper()
	p.Short(t)
	if err == nil {
		return
	}
	if os.Getenv(p.SkipEnv) == "1" {
		t.Skipf("%s=1 and no %s: %v", p.SkipEnv, p.Name, err)
	}
	t.Fatalf("this integration test needs %s: %s (or set %s=1 to skip): %v", p.Name, p.Install, p.SkipEnv, err)
}
