package soak

// check.go holds the run's checks: the agreement of JDT LS's view of each
// document with the editor's text (between edits, after each restart, at
// the end), and, after shutdown and exit, that the proxy and every process
// it started are gone.

import (
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"
)

// agreeWithin bounds how long one check waits for JDT LS to show the
// editor's latest text (it may be restarting and re-opening).
const agreeWithin = 3 * time.Minute

// check compares, for every open document, JDT LS's documentSymbol with
// the symbols the editor's text implies (Doc.Expected): every name, kind,
// range and selection range. JDT LS computes these from its own copy of the
// text, so an edit lost, applied twice or out of order, or a document
// re-opened with other text after a restart, moves or renames something:
// the soak's methods are one line each and their range ends at the
// closing brace, so even one character lost inside one changes a range
// end, and a lost or extra newline moves every symbol below it.
func (s *session) check(reason string) {
	began := time.Now()
	c := Check{T: time.Since(s.start).Seconds(), Reason: reason, OK: true}
	for _, d := range s.docs {
		want := d.Expected()
		c.Symbols += len(want)
		deadline := time.Now().Add(agreeWithin)
		for tries := 1; ; tries++ {
			c.Tries = max(c.Tries, tries)
			syms, err := s.symbols(d)
			var missing, extra []symLine
			if err == nil {
				missing, extra = Diff(flatten(syms), want)
				if len(missing) == 0 && len(extra) == 0 {
					break
				}
			}
			if time.Now().After(deadline) {
				c.OK = false
				if err != nil {
					c.Detail = append(c.Detail, fmt.Sprintf("%s: documentSymbol failed: %v", d.Rel, err))
				}
				for i, m := range missing {
					if i == 8 {
						c.Detail = append(c.Detail, fmt.Sprintf("%s: ... %d more missing", d.Rel, len(missing)-8))
						break
					}
					c.Detail = append(c.Detail, fmt.Sprintf("%s: missing in JDT LS: %s", d.Rel, m))
				}
				for i, x := range extra {
					if i == 8 {
						c.Detail = append(c.Detail, fmt.Sprintf("%s: ... %d more unexpected", d.Rel, len(extra)-8))
						break
					}
					c.Detail = append(c.Detail, fmt.Sprintf("%s: JDT LS has, the editor's text lacks: %s", d.Rel, x))
				}
				break
			}
			time.Sleep(time.Second)
		}
	}
	c.Took = time.Since(began).Seconds()
	s.log("check (%s): ok=%v, %d symbols, %d tries, %.1fs", reason, c.OK, c.Symbols, c.Tries, c.Took)
	for _, l := range c.Detail {
		s.log("  %s", l)
	}
	s.mu.Lock()
	s.checks = append(s.checks, c)
	s.mu.Unlock()
}

// finish waits for the requests in flight, makes the final check, shuts
// the proxy down and checks that nothing it started is left, then fills
// rep and its failures.
func (s *session) finish(rep *Report) {
	s.cancelCaret()
	// An editor that closes cancels the repair it waits for; the repair
	// must still answer.
	s.mu.Lock()
	rp := s.repair
	s.mu.Unlock()
	s.cancel(rp)
	s.log("editing over; waiting for %d requests in flight", len(s.sem))
	s.wg.Wait()
	if !s.closed() {
		s.check("final")
	}

	// shutdown, exit, and the proxy's end.
	if !s.closed() {
		if _, err := s.cl.callSync("shutdown", nil, time.Minute); err != nil {
			rep.Failures = append(rep.Failures, fmt.Sprintf("shutdown: %v", err))
		}
	}
	s.cl.mu.Lock()
	for _, c := range s.cl.pending {
		rep.Pending = append(rep.Pending, fmt.Sprintf("%s (id %s, sent %.0f s in)", c.method, c.id, c.sent.Sub(s.start).Seconds()))
	}
	s.cl.mu.Unlock()
	sort.Strings(rep.Pending)
	s.mu.Lock()
	seen := make(map[procID]string, len(s.seen))
	for k, v := range s.seen {
		seen[k] = v
	}
	s.mu.Unlock()
	for _, k := range descendants(allProcs(), s.cmd.Process.Pid) {
		seen[k.ID] = k.Cmdline
	}
	exitAt := time.Now()
	_ = s.cl.notify("exit", nil)
	waitc := make(chan error, 1)
	go func() {
		// Wait closes the stdout pipe: read it to its end first.
		<-s.cl.closed
		waitc <- s.cmd.Wait()
	}()
	select {
	case err := <-waitc:
		rep.ProxyExitSeconds = time.Since(exitAt).Seconds()
		if err != nil {
			rep.ProxyExitErr = err.Error()
		}
	case <-time.After(10 * time.Second):
		rep.ProxyExitSeconds = -1
		rep.Failures = append(rep.Failures, "the proxy did not exit within 10 s of exit; killed")
		_ = s.cmd.Process.Kill()
		for _, k := range descendants(allProcs(), s.cmd.Process.Pid) {
			_ = syscall.Kill(k.ID.PID, syscall.SIGKILL)
		}
		<-waitc
	}

	// Orphans: every process ever seen below the proxy must be gone within
	// 5 s of exit, and no process may name our temporary folder.
	var left []procID
	for time.Since(exitAt) < 5*time.Second {
		left = left[:0]
		for id := range seen {
			if alive(id) {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, id := range left {
		rep.Orphans = append(rep.Orphans, fmt.Sprintf("pid %d alive 5 s after exit: %.120s", id.PID, seen[id]))
		_ = syscall.Kill(id.PID, syscall.SIGKILL)
	}
	for _, p := range allProcs() {
		if p.State != "Z" && strings.Contains(p.Cmdline, s.tmp) && p.ID.PID != s.cmd.Process.Pid {
			if _, known := seen[p.ID]; !known {
				rep.Orphans = append(rep.Orphans, fmt.Sprintf("pid %d names the soak's folder: %.120s", p.ID.PID, p.Cmdline))
				_ = syscall.Kill(p.ID.PID, syscall.SIGKILL)
			}
		}
	}
	rep.ProcessesSeen = len(seen)

	// The report.
	s.mu.Lock()
	defer s.mu.Unlock()
	rep.Samples = s.samples
	rep.Methods = s.sortedMethods()
	rep.Checks = s.checks
	rep.Notes = s.notes
	rep.MaxJDTLS = s.maxJDTLS
	rep.LoadMin, rep.LoadMax = s.loadMin, s.loadMax
	rep.Restarts = len(s.restarts)
	for i := range s.kills {
		k := &s.kills[i]
		at := s.start.Add(time.Duration(k.T * float64(time.Second)))
		for _, r := range s.restarts {
			if r.After(at) {
				k.RestartedAfter = r.Sub(at).Seconds()
				break
			}
		}
	}
	rep.Kills = s.kills
	t := s.typist
	rep.Edits = Edits{Actions: s.actions, Typed: t.Typed, Deleted: t.Deleted, Retyped: t.Retyped, Typos: t.Typos,
		DidChange: s.changes, MultiChange: t.MultiChange}
	for _, d := range s.edited {
		rep.Edits.Members += len(d.members)
	}
	s.cl.mu.Lock()
	rep.UnknownResponses, rep.DuplicateResponses = s.cl.unknown, s.cl.duplicate
	readErr := s.cl.readErr
	s.cl.mu.Unlock()

	// Invariants.
	fail := func(format string, args ...any) { rep.Failures = append(rep.Failures, fmt.Sprintf(format, args...)) }
	if s.gaveUp != "" {
		fail("JDT LS was not restarted: %s", s.gaveUp)
	}
	for _, c := range rep.Checks {
		if !c.OK {
			fail("at %.0f s (%s) JDT LS's text disagreed with the editor's: %s", c.T, c.Reason, strings.Join(c.Detail, "; "))
		}
	}
	if len(rep.Checks) == 0 {
		fail("no agreement check ran")
	}
	for _, m := range rep.Methods {
		if m.Unanswered > 0 {
			fail("%d %s requests were never answered", m.Unanswered, m.Method)
		}
	}
	if len(rep.Pending) > 0 {
		fail("%d requests had no answer when shutdown was answered: %s", len(rep.Pending), strings.Join(rep.Pending, ", "))
	}
	if len(rep.UnknownResponses) > 0 || len(rep.DuplicateResponses) > 0 {
		fail("responses to no request %v, second responses %v", rep.UnknownResponses, rep.DuplicateResponses)
	}
	for i, k := range rep.Kills {
		if k.RestartedAfter < 0 {
			fail("kill #%d (pid %d at %.0f s) was not followed by a restart", i+1, k.PID, k.T)
		}
	}
	if rep.MaxJDTLS > 2 {
		fail("%d JDT LS processes at once below the proxy (the editor's and the repair engine's make 2)", rep.MaxJDTLS)
	}
	if rep.ProxyExitSeconds > 5 {
		fail("the proxy took %.1f s to exit after exit (limit 5 s)", rep.ProxyExitSeconds)
	}
	if len(rep.Orphans) > 0 {
		fail("orphan processes: %s", strings.Join(rep.Orphans, "; "))
	}
	if readErr != nil {
		fail("reading the proxy's output: %v", readErr)
	}
	if rep.Failed() {
		rep.ProxyLogTail = s.logTail(40)
	}
}

// closed reports whether the proxy's output has ended.
func (s *session) closed() bool {
	select {
	case <-s.cl.closed:
		return true
	default:
		return false
	}
}
