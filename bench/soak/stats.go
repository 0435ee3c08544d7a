package soak

// stats.go is the proxy's side of the goroutine measurement: with
// REPILOT_DEBUG_STATS=FILE in its environment, a repilot-lsp process
// rewrites FILE once a second with its goroutine count and Go memory (from
// runtime/metrics), which the soak reads at each sample. /proc does not
// know goroutines; nothing else in the proxy reports them.

import (
	"encoding/json"
	"os"
	"runtime/metrics"
	"time"
)

// EnvDebugStats names the file a repilot-lsp process writes its Stats to,
// once a second; unset or empty: nothing is written.
const EnvDebugStats = "REPILOT_DEBUG_STATS"

// Stats is one reading of a Go process's runtime.
type Stats struct {
	UnixMilli  int64  `json:"unix_ms"`
	Goroutines int64  `json:"goroutines"`
	HeapBytes  uint64 `json:"heap_bytes"`  // /memory/classes/heap/objects:bytes: live and unswept objects
	GoTotal    uint64 `json:"total_bytes"` // /memory/classes/total:bytes: all memory the Go runtime mapped
}

// ReadStats reads the current process's Stats.
func ReadStats() Stats {
	s := []metrics.Sample{{Name: "/sched/goroutines:goroutines"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	out := Stats{UnixMilli: time.Now().UnixMilli()}
	if s[0].Value.Kind() == metrics.KindUint64 {
		out.Goroutines = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		out.HeapBytes = s[1].Value.Uint64()
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		out.GoTotal = s[2].Value.Uint64()
	}
	return out
}

// StartStatsWriter writes ReadStats to $REPILOT_DEBUG_STATS every second
// (through a temporary file and a rename, so a reader never sees half a
// file) until the process ends. It does nothing when the variable is unset.
// The goroutine it starts is counted in the figures it writes.
func StartStatsWriter() {
	path := os.Getenv(EnvDebugStats)
	if path == "" {
		return
	}
	go func() {
		for {
			if b, err := json.Marshal(ReadStats()); err == nil {
				tmp := path + ".tmp"
				if os.WriteFile(tmp, b, 0o644) == nil {
					_ = os.Rename(tmp, path)
				}
			}
			time.Sleep(time.Second)
		}
	}()
}

// readStatsFile reads the Stats a process wrote to path; ok is false when
// the file is missing, unreadable, or older than maxAge.
func readStatsFile(path string, maxAge time.Duration) (Stats, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stats{}, false
	}
	var s Stats
	if json.Unmarshal(b, &s) != nil {
		return Stats{}, false
	}
	if time.Since(time.UnixMilli(s.UnixMilli)) > maxAge {
		return Stats{}, false
	}
	return s, true
}
