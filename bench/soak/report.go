package soak

// report.go prints a Report as text: the samples over time, the requests
// per method, the kills and checks, and the invariants.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Print writes r as text to w.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "soak: seed %d, %.0f s of editing in %s (edited %s; %d documents open); load average %.1f-%.1f\n\n",
		r.Seed, r.Duration, r.Project, strings.Join(r.Edited, ", "), len(r.Files), r.LoadMin, r.LoadMax)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "t (s)\tproxy RSS MiB\tgoroutines\tGo heap MiB\tthreads\ttree RSS MiB\tJDT LS\tchildren\tanswered\tdidChange\tload1\t")
	for _, s := range r.Samples {
		fmt.Fprintf(tw, "%.0f\t%.1f\t%s\t%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%.1f\t\n", s.T, s.ProxyRSSMiB, orUnknown(s.Goroutines),
			orUnknownF(s.GoHeapMiB), s.ProxyThreads, s.TreeRSSMiB, s.JDTLS, s.Children, s.Answered, s.Changes, s.Load1)
	}
	tw.Flush()
	if len(r.Samples) > 0 {
		rss, gor := r.Trend(func(s Sample) float64 { return s.ProxyRSSMiB }), r.Trend(func(s Sample) float64 { return float64(s.Goroutines) })
		tree := r.Trend(func(s Sample) float64 { return s.TreeRSSMiB })
		fmt.Fprintf(w, "\nproxy RSS MiB start/peak/end %.1f/%.1f/%.1f; goroutines %.0f/%.0f/%.0f; tree RSS MiB %.0f/%.0f/%.0f\n",
			rss[0], rss[1], rss[2], gor[0], gor[1], gor[2], tree[0], tree[1], tree[2])
	}

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tsent\tok\terrors\tcancelled\tunanswered\tskipped\tp50 ms\tp95 ms\tmax ms\t")
	for _, m := range r.Methods {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t\n", m.Method, m.Sent, m.OK, fmtErrors(m.Errors),
			m.Cancelled, m.Unanswered, m.Skipped, m.P50ms, m.P95ms, m.Maxms)
	}
	tw.Flush()
	e := r.Edits
	fmt.Fprintf(w, "\nedits: %d actions (%d methods typed, %d deleted, %d values retyped, %d typos), %d didChange (%d with several changes), %d soak methods at the end\n",
		e.Actions, e.Typed, e.Deleted, e.Retyped, e.Typos, e.DidChange, e.MultiChange, e.Members)
	fmt.Fprintf(w, "JDT LS kills: %d, restarts seen: %d", len(r.Kills), r.Restarts)
	for i, k := range r.Kills {
		fmt.Fprintf(w, "; #%d at %.0f s back after %.1f s", i+1, k.T, k.RestartedAfter)
	}
	fmt.Fprintln(w)
	ok, worst := 0, 0.0
	tries := 0
	for _, c := range r.Checks {
		if c.OK {
			ok++
		}
		worst = max(worst, c.Took)
		tries = max(tries, c.Tries)
	}
	fmt.Fprintf(w, "agreement checks: %d of %d agreed (longest %.1f s, at most %d documentSymbol rounds)\n", ok, len(r.Checks), worst, tries)
	fmt.Fprintf(w, "exit: the proxy ended %.2f s after exit (%s); %d processes seen below it, orphans: %d; at most %d JDT LS at once\n",
		r.ProxyExitSeconds, orOK(r.ProxyExitErr), r.ProcessesSeen, len(r.Orphans), r.MaxJDTLS)
	var notes []string
	for k, v := range r.Notes {
		notes = append(notes, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(notes)
	fmt.Fprintf(w, "from the proxy: %s\n", strings.Join(notes, ", "))
	if r.KeptDir != "" {
		fmt.Fprintf(w, "kept: %s\n", r.KeptDir)
	}
	if !r.Failed() {
		fmt.Fprintln(w, "\nPASS: every invariant held")
		return
	}
	fmt.Fprintln(w, "\nFAIL:")
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  - %s\n", f)
	}
	if len(r.ProxyLogTail) > 0 {
		fmt.Fprintln(w, "the proxy's log ends:")
		for _, l := range r.ProxyLogTail {
			fmt.Fprintf(w, "  | %s\n", l)
		}
	}
}

// Trend returns start, peak and end of f over the samples (start: the
// first sample; -1s, for unknown goroutine counts, are left out).
func (r *Report) Trend(f func(Sample) float64) [3]float64 {
	var out [3]float64
	first := true
	for _, s := range r.Samples {
		v := f(s)
		if v < 0 {
			continue
		}
		if first {
			out[0], first = v, false
		}
		out[1] = max(out[1], v)
		out[2] = v
	}
	return out
}

func orUnknown(v int64) string {
	if v < 0 {
		return "?"
	}
	return fmt.Sprint(v)
}

func orUnknownF(v float64) string {
	if v < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f", v)
}

func orOK(s string) string {
	if s == "" {
		return "status 0"
	}
	return s
}

// fmtErrors writes error counts as "code×n" sorted by code.
func fmtErrors(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
