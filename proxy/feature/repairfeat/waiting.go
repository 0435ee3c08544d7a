package repairfeat

import (
	"fmt"
	"sync"
	"time"

	"github.com/repilot-lsp/repilot-lsp/proxy"
	"github.com/repilot-lsp/repilot-lsp/repair"
)

// A repair whose project's backends are still starting (the warm-up that
// began when the file was opened, 35-110 s for JDT LS at high load) or busy
// with another request waits in the backend pool before the Repairer
// reports anything: its progress stood at its title, "repairing Cart.java
// line 30", while the warm-up's own progress ("preparing repair: JDT LS
// still starting") went on beside it. From defaultWaitFirst after the start until
// the Repairer's first report, the repair's progress says it waits and for
// how long, every defaultWaitEvery: "waiting for JDT LS (7s)" (Options.WaitFirst
// and WaitEvery set them).
const (
	defaultWaitFirst = 2 * time.Second
	defaultWaitEvery = 5 * time.Second
)

// waitMessage is the report of a repair that has waited d for its backends.
func waitMessage(d time.Duration) string {
	return fmt.Sprintf("waiting for JDT LS (%s)", d.Round(time.Second))
}

// waitNotices forwards the Repairer's reports to pr and, until the first of
// them, reports waitMessage(time since began) after first and then every
// every. stop ends the notices and returns once none can come any more;
// report may be called after stop (it then only forwards).
func waitNotices(pr proxy.Progress, began time.Time, first, every time.Duration) (report repair.Progress, stop func()) {
	var mu sync.Mutex
	heard := false
	stop = repair.Periodic(first, every, func() bool {
		mu.Lock()
		defer mu.Unlock()
		if heard {
			return false
		}
		pr.Report(waitMessage(time.Since(began)), -1)
		return true
	})
	report = func(msg string, pct int) {
		mu.Lock()
		heard = true
		pr.Report(msg, pct)
		mu.Unlock()
	}
	return report, stop
}
