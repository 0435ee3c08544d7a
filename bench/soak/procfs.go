package soak

// procfs.go reads what the soak measures about processes from Linux's /proc
// (proc(5)): the process tree below the proxy, each process's resident set
// (VmRSS) and thread count, and its start time, which with the pid names a
// process uniquely (pids are reused).

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procID names one process: its pid and its start time in clock ticks after
// boot (/proc/PID/stat field 22), so that a reused pid is not mistaken for
// the process seen before.
type procID struct {
	PID   int
	Start uint64
}

// procInfo is what /proc/PID/stat and /proc/PID/status say about a process.
type procInfo struct {
	ID      procID
	PPID    int
	State   string // one letter: R, S, D, Z, ...
	RSSKiB  int64  // VmRSS in KiB (0 for a zombie or a kernel thread)
	Threads int
	Cmdline string // arguments joined by spaces
	Comm    string // the executable's name (/proc/PID/comm), e.g. "java"
}

// parseStat reads the parent pid, state and start time from the text of
// /proc/PID/stat. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from its last ')'.
func parseStat(s string) (ppid int, state string, start uint64, err error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", 0, fmt.Errorf("no ')' in stat line %q", s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 20 {
		return 0, "", 0, fmt.Errorf("stat line has %d fields after the name, want >= 20", len(f))
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, "", 0, fmt.Errorf("stat ppid %q: %w", f[1], err)
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, "", 0, fmt.Errorf("stat starttime %q: %w", f[19], err)
	}
	return ppid, f[0], start, nil
}

// parseStatus reads VmRSS (KiB) and Threads from the text of
// /proc/PID/status; a missing VmRSS (zombies, kernel threads) reads 0.
func parseStatus(s string) (rssKiB int64, threads int) {
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			rssKiB, _ = strconv.ParseInt(f[0], 10, 64)
		case "Threads":
			threads, _ = strconv.Atoi(f[0])
		}
	}
	return rssKiB, threads
}

// readProc reads one process from procRoot ("/proc" outside tests). ok is
// false when it has gone (or never existed).
func readProc(procRoot string, pid int) (procInfo, bool) {
	dir := fmt.Sprintf("%s/%d", procRoot, pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	ppid, state, start, err := parseStat(string(stat))
	if err != nil {
		return procInfo{}, false
	}
	info := procInfo{ID: procID{pid, start}, PPID: ppid, State: state}
	if st, err := os.ReadFile(dir + "/status"); err == nil {
		info.RSSKiB, info.Threads = parseStatus(string(st))
	}
	if c, err := os.ReadFile(dir + "/comm"); err == nil {
		info.Comm = strings.TrimSpace(string(c))
	}
	if cl, err := os.ReadFile(dir + "/cmdline"); err == nil {
		info.Cmdline = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
	}
	return info, true
}

// allProcs reads every process under procRoot.
func allProcs(procRoot string) []procInfo {
	ents, _ := os.ReadDir(procRoot)
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(procRoot, pid); ok {
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
func alive(procRoot string, id procID) bool {
	p, ok := readProc(procRoot, id.PID)
	return ok && p.ID.Start == id.Start && p.State != "Z"
}

// loadAvg1 returns the 1-minute load average from procRoot/loadavg, or -1.
func loadAvg1(procRoot string) float64 {
	b, err := os.ReadFile(procRoot + "/loadavg")
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
