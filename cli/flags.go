package cli

// flags.go registers the flags that several subcommands share (--jdtls,
// --state-dir, and the sampling flags of repair and bench repair), so that
// each says the same thing everywhere: what it is, its default, and its
// environment variable.

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// cacheNote says what <cache> means in the flag help below (jdtls.CacheDir).
const cacheNote = "<cache> is $REPILOT_CACHE or ~/.cache/repilot-lsp"

// addJDTLSFlag registers --jdtls, the JDT LS install directory (resolved by
// jdtls.ResolveHome: the flag, else $REPILOT_JDTLS_HOME, else
// jdtls.DefaultHome).
func addJDTLSFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "jdtls", "", "JDT LS install directory (env "+jdtls.EnvHome+
		"; default <cache>/jdtls-1.20.0, where scripts/install-jdtls.sh installs it; "+cacheNote+")")
}

// addStateDirFlag registers --state-dir. withEditor is true for serve, whose
// directory also holds the editor-facing JDT LS's data (proxy.Options.StateDir);
// repair and bench repair only start the repair engine's JDT LS
// (backend.EngineStateDir).
func addStateDirFlag(fs *pflag.FlagSet, p *string, withEditor bool) {
	usage := "state directory: the repair engine's JDT LS keeps its data in <dir>/engine/<root hash> " +
		"(no env var; default <cache>/state/<root hash>/engine; " + cacheNote + ")"
	if withEditor {
		usage = "state directory: the editor's JDT LS keeps its data in <dir>/jdtls, the repair engine's " +
			"JDT LS in <dir>/engine/<root hash> (no env var; default <cache>/state/<root hash>, the engine's " +
			"in <cache>/state/<root hash>/engine; " + cacheNote + ")"
	}
	fs.StringVar(p, "state-dir", "", usage)
}

// samplingFlags are the sampling flags of repair and bench repair; their
// defaults are repair.DefaultOptions'.
type samplingFlags struct {
	samples     int
	seed        int64
	temperature float64
	topP        float64
	maxTokens   int
}

// defaultSampling is repair.DefaultOptions as sampling flags.
func defaultSampling() samplingFlags {
	d := repair.DefaultOptions()
	return samplingFlags{samples: d.Samples, seed: d.Seed, temperature: d.Temperature, topP: d.TopP, maxTokens: d.MaxTokens}
}

// addSamplingFlags registers --samples, --seed, --temperature, --top-p and
// --max-tokens on fs, bound to f. samplesUsage says what --samples counts
// (per hunk or per bug).
func addSamplingFlags(fs *pflag.FlagSet, f *samplingFlags, samplesUsage string) {
	d := defaultSampling()
	fs.IntVar(&f.samples, "samples", d.samples, samplesUsage)
	fs.Int64Var(&f.seed, "seed", d.seed, "sampling seed: equal seeds give equal patches")
	fs.Float64Var(&f.temperature, "temperature", d.temperature, "sampling temperature (0: greedy)")
	fs.Float64Var(&f.topP, "top-p", d.topP, "nucleus sampling: sample only among the most likely tokens whose probabilities add up to this, in (0,1] (1: all tokens)")
	fs.IntVar(&f.maxTokens, "max-tokens", d.maxTokens, "tokens per hunk; longer candidates are discarded")
}

// apply checks the sampling flags and sets them on o. Errors: --samples or
// --max-tokens below 1, --temperature below 0 or not finite, --top-p outside
// (0,1].
func (f samplingFlags) apply(o *repair.Options) error {
	if f.samples < 1 {
		return fmt.Errorf("--samples %d: want at least 1", f.samples)
	}
	if f.maxTokens < 1 {
		return fmt.Errorf("--max-tokens %d: want at least 1", f.maxTokens)
	}
	if !(f.temperature >= 0) || math.IsInf(f.temperature, 1) {
		return fmt.Errorf("--temperature %g: want a finite number, at least 0", f.temperature)
	}
	if !(f.topP > 0 && f.topP <= 1) {
		return fmt.Errorf("--top-p %g: want a value in (0,1]", f.topP)
	}
	o.Samples, o.Seed, o.MaxTokens = f.samples, f.seed, f.maxTokens
	o.Temperature, o.TopP = f.temperature, f.topP
	return nil
}
