package engine

// lock_test.go: a request waiting for the engine (JDT.mu, held by another
// request's compile check or completion) stops waiting when its context
// ends, instead of waiting for the holder (ghost text's "superseded work
// stops", issue 15).

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/repilot-lsp/repilot-lsp/jdtls"
)

// returnsWhileHeld runs call with a context it cancels while e.mu is held by
// the test, and fails unless call returns context.Canceled while the lock is
// still held. The wait for the result is bounded only so that a broken
// build fails instead of hanging: with the lock held, a call that waits for
// it never returns.
func returnsWhileHeld(t *testing.T, e *JDT, call func(ctx context.Context) error) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call still waits for the engine's lock after its context was cancelled")
	}
}

func TestCheckStopsWaitingForEngineOnCancel(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	returnsWhileHeld(t, s.e, func(ctx context.Context) error {
		_, err := s.Check(ctx, ind+"int mid = lo + ", "hi") // needs the scope list: a request
		return err
	})
	if got := f.requests(); len(got) != 0 {
		t.Errorf("requests %v sent after the cancellation", got)
	}
	// The lock is free again and the session still answers.
	checkAll(t, s, []checkCase{{ind + "int mid = lo + ", "hi", Feasible}})
}

func TestCompileErrorsAndOpenStopWaitingForEngineOnCancel(t *testing.T) {
	e := NewJDT(&jdtls.Client{})
	returnsWhileHeld(t, e, func(ctx context.Context) error {
		_, err := e.CompileErrors(ctx, "file:///demo/A.java", "class A {}")
		return err
	})
	returnsWhileHeld(t, e, func(ctx context.Context) error {
		_, err := e.Open(ctx, Hunk{URI: "file:///demo/A.java", Prefix: "class A {", Suffix: "}"})
		return err
	})
	if len(e.open) != 0 {
		t.Errorf("open documents %v after cancelled calls", e.open)
	}
}

func TestCtxMutex(t *testing.T) {
	var m ctxMutex
	if err := m.lockCtx(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.lockCtx(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("lockCtx on a held mutex with an ended context: %v", err)
	}
	m.Unlock()
	if err := m.lockCtx(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("lockCtx with an ended context took a free mutex: %v", err)
	}
	m.Lock() // free: an ended context took nothing
	m.Unlock()
	defer func() {
		if recover() == nil {
			t.Error("Unlock of an unlocked mutex did not panic")
		}
	}()
	m.Unlock()
}

// TestSessionCloseDoesNotWaitForEngine: a session closed while another
// request holds the engine (a compile check waits up to CompileTimeout)
// returns at once; its document is released once the engine is free.
func TestSessionCloseDoesNotWaitForEngine(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	e := s.e
	e.mu.Lock()
	e.open[s.h.URI] = &shadowDoc{sessions: 1, pending: true}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		e.mu.Unlock()
		t.Fatal("Session.Close waits for the engine held by another request")
	}
	if _, ok := e.open[s.h.URI]; !ok {
		t.Fatal("the document was released without the engine's lock")
	}
	e.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		e.mu.Lock()
		_, open := e.open[s.h.URI]
		e.mu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the closed session's document was never released once the engine was free")
		}
	}
	// Free engine: released at once.
	s2 := fakeSession(t, f)
	s2.e.open[s2.h.URI] = &shadowDoc{sessions: 1, pending: true}
	s2.Close()
	if _, ok := s2.e.open[s2.h.URI]; ok {
		t.Error("Session.Close on a free engine did not release its document at once")
	}
}
