package openai

import (
	"os"
	"time"

	"github.com/repilot-lsp/repilot-lsp/internal/proc"
)

// treeCPU returns the CPU time (user + system) used so far by this process
// and every live process below it (JDT LS, llama-server), read from /proc
// (proc.ReadStat); 0 where /proc cannot be read. Children that have exited
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
	by := map[string]time.Duration{}
	for _, pid := range append([]int{os.Getpid()}, proc.Descendants(os.Getpid())...) {
		if st, err := proc.ReadStat(pid); err == nil {
			by[st.Name] += st.CPU
		}
	}
	return by
}
