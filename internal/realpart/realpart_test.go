package realpart

// realpart_test.go checks the three outcomes of Require: nothing when the
// part was found, a failure naming the script when it was not, a skip only
// when the part's REPILOT_SKIP_* variable is "1".

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how Require ended the test.
type recorder struct {
	testing.TB
	how, msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.how, r.msg = "skip", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.how, r.msg = "fail", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// require runs p.Require(err) as a test would and reports how it ended
// ("" when it returned).
func require(p Part, err error) (how, msg string) {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Require(r, err)
	}()
	<-done
	return r.how, r.msg
}

// setShort sets -short for the rest of the test.
func setShort(t *testing.T, on bool) {
	was := testing.Short()
	if err := flag.Set("test.short", fmt.Sprint(on)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.short", fmt.Sprint(was)) })
}

func TestRequire(t *testing.T) {
	setShort(t, false) // the outcomes without -short, also in a -short run
	missing := errors.New("no JDT LS under /nowhere")
	for _, tc := range []struct {
		name, env string
		err       error
		how       string
		says      []string
	}{
		{"found", "", nil, "", nil},
		{"found, skip set", "1", nil, "", nil},
		{"missing", "", missing, "fail", []string{"JDT LS", "run scripts/install-jdtls.sh", "REPILOT_SKIP_JDTLS=1", "/nowhere"}},
		{"missing, skip not 1", "true", missing, "fail", []string{"scripts/install-jdtls.sh"}},
		{"missing, skip set", "1", missing, "skip", []string{"REPILOT_SKIP_JDTLS=1", "JDT LS", "/nowhere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("REPILOT_SKIP_JDTLS", tc.env)
			how, msg := require(JDTLS, tc.err)
			if how != tc.how {
				t.Fatalf("ended with %q (%s), want %q", how, msg, tc.how)
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
		})
	}
}

// TestShortSkipsEvenWhenFound: under -short a test needing a real part
// skips, saying so, whether the part was found or not.
func TestShortSkipsEvenWhenFound(t *testing.T) {
	setShort(t, true)
	for _, err := range []error{nil, errors.New("no JDT LS under /nowhere")} {
		how, msg := require(JDTLS, err)
		if how != "skip" || !strings.Contains(msg, "-short") || !strings.Contains(msg, "JDT LS") {
			t.Errorf("part error %v under -short: ended with %q (%s), want a skip naming -short and JDT LS", err, how, msg)
		}
	}
}
