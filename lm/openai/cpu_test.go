package openai

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's utime and
// stime: 100 per second on every architecture Go supports.
const clockTick = 10 * time.Millisecond

// treeCPU returns the CPU time (user + system) used so far by this process
// and every live process below it (JDT LS, llama-server), read from
// /proc/PID/stat; 0 where /proc cannot be read. Children that have exited
// are not counted, so compare it across spans in which none exits.
func treeCPU() time.Duration {
	var total time.Duration
	for _, d := range treeCPUByName() {
		total += d
	}
	return total
}

// treeCPUByName is treeCPU by process: the CPU time of each live process in
// the tree, summed by its command name ("java", "llama-server", and this
// test binary's name).
func treeCPUByName() map[string]time.Duration {
	type proc struct {
		ppid int
		name string
		cpu  time.Duration
	}
	procs := map[int]proc{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited since the glob
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		// After the name: state ppid pgrp session tty_nr tpgid flags
		// minflt cminflt majflt cmajflt utime stime (fields 3-15).
		fs := strings.Fields(s[i+1:])
		if len(fs) < 13 {
			continue
		}
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		ppid, err2 := strconv.Atoi(fs[1])
		ut, err3 := strconv.ParseInt(fs[11], 10, 64)
		st, err4 := strconv.ParseInt(fs[12], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		name := s[strings.IndexByte(s, '(')+1 : i]
		procs[pid] = proc{ppid, name, time.Duration(ut+st) * clockTick}
	}
	below := func(pid int) bool {
		for n := 0; pid > 1 && n < 64; n++ {
			if pid == os.Getpid() {
				return true
			}
			pid = procs[pid].ppid
		}
		return false
	}
	by := map[string]time.Duration{}
	for pid, p := range procs {
		if below(pid) {
			by[p.name] += p.cpu
		}
	}
	return by
}
