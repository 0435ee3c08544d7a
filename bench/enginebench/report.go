package enginebench

// report.go prints a Report as text tables.

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Print writes r as text: the pruning table per kind, the soundness line,
// the speed table (when measured) and the notes; verbose adds every mutant.
func (r *Report) Print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "engine benchmark: %d fixtures, seed %d", r.Fixtures, r.Seed)
	if r.Startup > 0 {
		fmt.Fprintf(w, ", JDT LS ready in %v", r.Startup.Round(100*time.Millisecond))
	}
	switch {
	case r.Interrupted && r.Finished < r.Fixtures:
		fmt.Fprintf(w, " (interrupted: %d of %d fixtures, no speed measurement)", r.Finished, r.Fixtures)
	case r.Interrupted:
		fmt.Fprintf(w, " (interrupted in the speed measurement: %d of 2 modes)", len(r.Speed))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\npruning power (mutants that do not compile, forced token by token; pruned = some token infeasible)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tsites\tmutants\tpruned\trate\tpruned early\tskipped: compiled\tskipped: name exists\tskipped: compile check failed\tsites without mutant\t")
	row := func(k KindResult) {
		rate := "-"
		if k.Mutants > 0 {
			rate = fmt.Sprintf("%.1f%%", 100*k.Rate())
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n", k.Kind, k.Sites, k.Mutants, k.Pruned, rate, k.Early, k.Compiled, k.OtherError, k.CompileFailed, k.NoMutant)
	}
	for _, k := range r.Kinds {
		row(k)
	}
	row(r.Member)
	tw.Flush()
	s := r.Soundness
	fmt.Fprintf(w, "\nsoundness (unmutated): %d hunks, %d token checks (%d proven feasible) and %d end checks, %d pruned\n", s.Hunks, s.Checks, s.Feasible, s.Ends, s.Pruned)
	for _, p := range s.PrunedAt {
		fmt.Fprintf(w, "  PRUNED %s\n", p)
	}
	if len(r.Speed) > 0 {
		fmt.Fprintln(w, "\nspeed (every fix forced as whole tokens, then 3-byte chunks, on a warm JDT LS; a fresh engine per mode)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "mode\tdecisions\tmedian\tp90\tstrict decisions\tstrict median\tJDT LS requests\trequests/token\ttotal\t")
		for _, sp := range r.Speed {
			fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%d\t%v\t%d\t%.3f\t%v\t\n", sp.Mode, sp.Decisions, sp.Median.Round(time.Microsecond),
				sp.P90.Round(time.Microsecond), sp.Strict, sp.StrictMedian.Round(time.Microsecond), sp.Requests, sp.RequestsPerToken,
				sp.Total.Round(time.Millisecond))
		}
		tw.Flush()
		if len(r.Speed) == 2 && r.Speed[0].Median > 0 && r.Speed[0].Requests > 0 {
			fmt.Fprintf(w, "no cache / cache: median %.1fx, strict median %.1fx, requests %.1fx, total %.1fx\n",
				ratio(r.Speed[1].Median, r.Speed[0].Median), ratio(r.Speed[1].StrictMedian, r.Speed[0].StrictMedian),
				float64(r.Speed[1].Requests)/float64(r.Speed[0].Requests), ratio(r.Speed[1].Total, r.Speed[0].Total))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if verbose {
		fmt.Fprintln(w, "\nmutants:")
		for _, m := range r.Mutants {
			verdict := "kept"
			switch {
			case m.Early:
				verdict = "PRUNED EARLY at " + fmt.Sprintf("%q", m.Token)
			case m.Pruned:
				verdict = "pruned at " + fmt.Sprintf("%q", m.Token)
			}
			fmt.Fprintf(w, "  %-28s %-17s %s -> %s: %s (compile error: %s)\n", m.Bug, m.Kind, m.Orig, m.Repl, verdict, m.Error)
		}
	}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
