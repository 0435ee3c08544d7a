package engine

// arraymembers.go answers the member list after "x." without a request
// where x is a variable of an array type (issue 14: on ringbuffer-length-typo
// half of the engine's JDT LS requests were "buf." in one context or
// another, each 45-160 ms on a quiet machine).
//
// Why it may prune (soundness): the list is a superset of every member
// name that can follow "x." in a program that compiles.
//   - x means the variable declared before the hunk: the site has a type
//     key (typekey.go), whose guards say the generated text cannot have
//     rebound x (no declaration, parameter or pattern binding named x, no
//     local type, no block of the prefix closed) and that the hunk starts at
//     a statement boundary of a block, where the scope list was asked.
//   - That variable's type is an array type: the hunk's scope list, asked
//     twice (both answers merged, simple.go scopeList with verify), lists
//     x as a variable only, with one declared type ending in "[]" or
//     "..." (JDT LS's "x : double[]" labels; a class name cannot contain
//     "[" or "."). A variable of an array type has exactly the members of
//     JLS 10.7: the field length, the public method clone, and the members
//     inherited from Object (equals, getClass, hashCode, notify, notifyAll,
//     toString, wait; and finalize, protected, listed because code in
//     package java.lang may reach it).
//   - "x." may also start a package or type name where the grammar wants a
//     type (a local variable's type at a statement's start, a cast, a class
//     literal, a catch parameter: JLS 6.5.1 classifies x as a
//     PackageOrTypeName there, and the variable is not considered). That
//     needs a package whose first segment, or a type, named x exactly:
//     the project's type index (typeindex.go, a superset of what the
//     project can name, TestTypeIndexAgreesWithJDTLS) and the file's own
//     type names and type parameters (fileTypes) must have none, else the
//     list is not made and JDT LS is asked as before.
// The list carries no arities and no declared types (a call's argument
// count and "x.length[" stay unknown), and it is Local: Algorithm 3 never
// completes from it (Complete).

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// arrayMemberNames are the members of an array type (JLS 10.7) with their
// kinds, finalize included (see the file comment).
var arrayMemberNames = map[string]uint8{
	"length": kindValue, "clone": kindMethod, "equals": kindMethod, "finalize": kindMethod,
	"getClass": kindMethod, "hashCode": kindMethod, "notify": kindMethod, "notifyAll": kindMethod,
	"toString": kindMethod, "wait": kindMethod,
}

// arrayMembers returns the member list after "x." for the receiver x (a
// site with a type key whose receiver is the simple name x alone) when x
// is a variable of an array type that no package or type shares its name
// with (see the file comment), else nil: JDT LS is asked. It may ask the
// scope list's second answer (once per hunk) and the project's type index,
// which the session's simple names use as well.
func (s *jdtSession) arrayMembers(ctx context.Context, x string) (*memberList, error) {
	// The scope list's first answer (typeKey asked it), then its second,
	// only for an array variable.
	if !s.scopeTried || !isArrayVar(s.scope, x) {
		return nil, nil
	}
	verifying := s.verifying
	s.verifying = true // the scope list's second answer, counted as such
	sc, err := s.scopeList(ctx, true)
	s.verifying = verifying
	if err != nil || sc == nil || !sc.Verified || !sc.ScopeComplete || !isArrayVar(sc, x) {
		return nil, err
	}
	idx := s.typeIndex(ctx)
	if idx == nil || slices.Contains(idx.types(x), x) || slices.Contains(idx.packages(x), x) || slices.Contains(s.fileTypes(), x) {
		return nil, nil
	}
	ml := &memberList{Local: true, Verified: true}
	for n, k := range arrayMemberNames {
		ml.add(n, k)
	}
	sort.Strings(ml.Names)
	if traceRequests {
		fmt.Fprintf(os.Stderr, "engine trace: members of %q from its array type (JLS 10.7)\n", x)
	}
	return ml, nil
}

// isArrayVar reports whether the scope list sc lists x as a variable only,
// whose declared type is an array type ("double[]", "String...").
func isArrayVar(sc *memberList, x string) bool {
	if sc == nil || sc.Kinds[x] != kindValue {
		return false
	}
	t := sc.Types[x]
	return strings.HasSuffix(t, "[]") || strings.HasSuffix(t, "...")
}

// typeIndex returns the session's type index (typeindex.go), fetched at
// the session's first need, or nil when there is none.
func (s *jdtSession) typeIndex(ctx context.Context) *typeIndex {
	if !s.indexTried {
		s.indexTried = true
		began := time.Now()
		s.index = s.e.typeIndexFor(ctx, s.h.URI)
		if s.e.indexOf == nil && s.e.client != nil {
			s.count("project-facts", 2, time.Since(began)) // getSettings, getClasspaths
		}
	}
	return s.index
}
