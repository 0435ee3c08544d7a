package soak

// procfs.go reads what the soak measures about processes from Linux's /proc
// (proc(5), through proc.ReadStat): the process tree below the proxy, each
// process's resident set and thread count, and its start time, which with
// the pid names a process uniquely (pids are reused).

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
)

// procID names one process: its pid and its start time in clock ticks after
// boot (/proc/PID/stat field 22), so that a reused pid is not mistaken for
// the process seen before.
type procID struct {
	PID   int
	Start uint64
}

// procInfo is what /proc/PID/stat (proc.Stat) and /proc/PID/cmdline say
// about a process.
type procInfo struct {
	ID      procID
	PPID    int
	State   string // one letter: R, S, D, Z, ...
	RSSKiB  int64  // resident set in KiB (0 for a zombie or a kernel thread)
	Threads int
	Cmdline string // arguments joined by spaces
	Comm    string // the executable's name (comm), e.g. "java"
}

// readProc reads one process: /proc/PID/stat through proc.ReadStat, and
// its command line. ok is false when it has gone (or never existed).
func readProc(pid int) (procInfo, bool) {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return procInfo{}, false
	}
	info := procInfo{ID: procID{pid, st.Start}, PPID: st.PPID, State: st.State, RSSKiB: st.RSS / 1024,
		Threads: st.Threads, Comm: st.Name}
	if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		info.Cmdline = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
	}
	return info, true
}

// allProcs reads every process in /proc.
func allProcs() []procInfo {
	ents, _ := os.ReadDir("/proc")
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// descendants returns the live (not zombie) processes below root in procs,
// depth first.
func descendants(procs []procInfo, root int) []procInfo {
	kids := map[int][]procInfo{}
	for _, p := range procs {
		if p.State != "Z" {
			kids[p.PPID] = append(kids[p.PPID], p)
		}
	}
	var out []procInfo
	var walk func(int)
	walk = func(pid int) {
		for _, k := range kids[pid] {
			out = append(out, k)
			walk(k.ID.PID)
		}
	}
	walk(root)
	return out
}

// alive reports whether the process id names is still running (not a
// zombie): same pid, same start time.
func alive(id procID) bool {
	p, ok := readProc(id.PID)
	return ok && p.ID.Start == id.Start && p.State != "Z"
}

// loadAvg1 returns the 1-minute load average from /proc/loadavg, or -1.
func loadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
