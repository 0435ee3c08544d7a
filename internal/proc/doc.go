// Package proc ties the processes repilot-lsp starts (JDT LS, test commands)
// to its own life, so that none outlives it however it ends: on Linux each
// child gets a parent-death signal and a process group of its own, and
// KillGroup ends the group. A test command runs under a supervisor
// (Supervise, supervise_linux.go): this binary again, as a child subreaper
// that ends everything below it, wherever it went, when the command exits
// or when we die.
//
// The parent-death signal is delivered when the OS thread that forked the
// child exits. The Go runtime keeps its threads for the life of the process
// (a thread ends only with a goroutine that called runtime.LockOSThread and
// returned without unlocking, which no caller of Tie does), so in practice
// the signal comes when the process dies.
package proc
