package engine

import (
	"context"
	"slices"
	"testing"
)

// TestCuTypeNames: the types a file names everywhere are java.lang's, its
// single-type imports and its top-level types; not static or on-demand
// imports, nested types, or a qualified name's last part.
func TestCuTypeNames(t *testing.T) {
	text := `package demo;

import java.util.List;
import java.util.*;
import static java.lang.Math.max;
import org.apache.commons.lang3.StringUtils;
import broken.;

public class Top {
    class Inner {}
    enum Mode { A }
    Class<?> c = List.class;
}
record Point(int x, int y) {}
enum Color { RED }
interface Shape {}
`
	got := cuTypeNames(text)
	for _, want := range []string{"List", "StringUtils", "Top", "Point", "Color", "Shape", "String", "System"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q missing from %v", want, got)
		}
	}
	for _, not := range []string{"Inner", "Mode", "max", "Math.max", "util", "broken", "java", ""} {
		if not != "Math" && slices.Contains(got, not) {
			t.Errorf("%q should not be in the list", not)
		}
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Error("the list is not sorted without duplicates")
	}
}

// TestFileTypesWithoutRequest: a simple name that is (a prefix of) a type
// the whole file sees (java.lang's String, the file's own class Search) is
// proven feasible, its followers are judged as a list naming it as a type judges them, and Algorithm 3 has nothing to
// add to it, all without a request; a made-up name is still asked for.
func TestFileTypesWithoutRequest(t *testing.T) {
	f := newFakePeer()
	s := fakeSession(t, f)
	checkAll(t, s, []checkCase{
		{ind + "lo = 1 + ", "String", Feasible},
		{ind + "lo = 1 + ", "Str", Feasible},
		{ind + "Object o = new ", "Search", Feasible},
		{ind + "lo = Search", ";", Feasible},
		{ind + "Object o = new String", "(", Feasible},
	})
	c, err := s.Complete(context.Background(), ind+"lo = 1 + String")
	if err != nil || c.Known {
		t.Errorf("Complete(String) = %+v, %v; want unknown", c, err)
	}
	if got := f.requests(); len(got) != 0 {
		t.Errorf("requests %v, want none", got)
	}
	// "(" after a type asks whether a method shares its name (typeCalled).
	checkAll(t, s, []checkCase{{ind + "lo = String", "(", Infeasible}})
	if got := f.requests(); !slices.Contains(got, "simple:String") {
		t.Errorf("requests %v, want the list for String", got)
	}
	checkAll(t, s, []checkCase{{ind + "lo = 1 + ", "Strnig", Infeasible}})
	if got := f.requests(); !slices.Contains(got, "simple:Strnig") {
		t.Errorf("requests %v, want the list for Strnig", got)
	}
}
