package engine

// simple.go asks JDT LS which names are visible at a simple name (an
// identifier not after a dot): locals, fields, methods, types (JDK types not
// yet imported included: JDT LS offers them with an auto-import, and the
// engine counts them as feasible), and packages. Lists are fetched with the
// identifier typed, so that JDT LS filters them and they stay small, and
// cached per site: a list fetched for prefix "fo" answers later checks of
// "foo" and "fooBar" at the same site locally. At the hunk start, the list
// is built from the hunk's scope list and the project's type index
// (localNames, typeindex.go) where both are complete, without a request.

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// simpleNames returns the names JDT LS lists for the simple name ss (whose
// identifier lies in Prefix+cur), or nil for unknown. A list is complete for
// every identifier that extends the prefix it was fetched with. An empty
// answer is replaced by the answer for the identifier's first character at
// the same place, filtered, and is unknown when that one is empty too (JDT
// LS is not working there).
//
// Where the hunk's scope allows (inHunkScope) and the generated text before
// the name declares nothing the name may become, the list is the one of the
// hunk start, fetched once per hunk and identifier prefix and shared by every
// site and sample; otherwise it is fetched at the site itself.
func (s *jdtSession) simpleNames(ctx context.Context, cur string, ss simpleSite) (*memberList, error) {
	s.confirm = true // a prune on a simple-name list rests on two answers (Check)
	full := s.h.Prefix + cur
	identEnd := ss.IdentStart + len(ss.Ident)
	if ss.IdentStart < len(s.h.Prefix) || identEnd > len(full) || ss.Ident == "" {
		return nil, nil // the name starts in the prefix: not this hunk's to judge
	}
	gen := full[len(s.h.Prefix):ss.IdentStart]
	if decls, ok := s.inHunkScope(gen); ok && !hasExtension(decls, ss.Ident) {
		ml, err := s.hunkNames(ctx, ss.Ident)
		return ml, err
	}
	return s.siteNames(ctx, full, ss, gen)
}

// hunkScoped reports whether the simple name ss after the generated text
// (whose identifier lies in Prefix+cur) is judged from the hunk start's
// lists: the condition under which simpleNames calls hunkNames.
func (s *jdtSession) hunkScoped(cur string, ss simpleSite) bool {
	full := s.h.Prefix + cur
	identEnd := ss.IdentStart + len(ss.Ident)
	if ss.IdentStart < len(s.h.Prefix) || identEnd > len(full) || ss.Ident == "" {
		return false
	}
	decls, ok := s.inHunkScope(full[len(s.h.Prefix):ss.IdentStart])
	return ok && !hasExtension(decls, ss.Ident)
}

// scopeFor returns the part of the hunk's scope list (scopeNames) whose
// names start with ss's identifier, where ss is judged from the hunk start's
// lists (hunkScoped); nil when it is not, when that part is empty, or when
// JDT LS gave no scope list. The list is partial (Incomplete): it may prove
// a name feasible, never infeasible.
func (s *jdtSession) scopeFor(ctx context.Context, cur string, ss simpleSite) (*memberList, error) {
	if !s.hunkScoped(cur, ss) {
		return nil, nil
	}
	sc, err := s.scopeNames(ctx)
	if err != nil || sc == nil {
		return nil, err
	}
	if f := sc.filter(ss.Ident); !f.empty() {
		return f, nil
	}
	return nil, nil
}

// scopeNames returns the names JDT LS lists at the hunk start for an empty
// identifier (the caret at the hunk start, then ";"): the variables and
// methods in scope there. JDT LS lists types and packages only for a typed
// prefix (the file's own class alone, in a probe on testdata/project), so
// the list is marked Incomplete: it proves names feasible (they are in
// scope), never infeasible. One request per hunk ("simple-hunk-scope"),
// cached; nil when JDT LS failed or listed nothing. It saves the request per
// identifier for the locals, fields and methods a sample names, and
// witnesses that JDT LS answers at the hunk start (namesAt).
func (s *jdtSession) scopeNames(ctx context.Context) (*memberList, error) {
	return s.scopeList(ctx, false)
}

// scopeList is scopeNames; with verify set, the list is asked a second time
// (once per hunk) and merged with the first and marked Verified, for a
// prune that rests on its completeness (localNames): one per hunk where
// every prune of a name used to rest on two answers of its own.
func (s *jdtSession) scopeList(ctx context.Context, verify bool) (*memberList, error) {
	if s.scopeTried && (!verify || s.scope == nil || s.scope.Verified) {
		return s.scope, nil
	}
	key := s.id + "\x00scope"
	if s.e.sites != nil {
		if ml, ok := s.e.sites.Get(key); ok && (!verify || ml.Verified) {
			s.hits.Add(1)
			s.scope, s.scopeTried = ml, true
			return ml, nil
		}
	}
	caret := len(s.h.Prefix)
	text := s.h.Prefix + ";" + s.suffixAfterCaret()
	m := textpos.New(text)
	list, err := s.request(ctx, "simple-hunk-scope", text, m.Position(caret))
	if err != nil {
		if rerr := s.requestError(ctx, err); rerr != nil {
			return nil, rerr
		}
		s.scopeTried = true // not asked again in this session
		return nil, nil
	}
	ml, ok := newSimpleList(list, text, m, caret, caret)
	if s.scopeTried && s.scope != nil {
		// Verifying (above): the second answer, merged with the first. A
		// failed or empty second answer leaves the first, unverified.
		if !ok || ml.empty() {
			return s.scope, nil
		}
		complete := !ml.Incomplete && s.scope.ScopeComplete
		ml = s.scope.union(ml) // Incomplete, as the first
		ml.ScopeComplete, ml.Verified = complete, true
		s.scope = ml
		if s.e.sites != nil {
			s.e.sites.Add(key, ml)
		}
		return ml, nil
	}
	s.scopeTried = true
	if !ok {
		s.errs.Add(1)
		return nil, nil
	}
	if ml.empty() {
		return nil, nil
	}
	ml.ScopeComplete = !ml.Incomplete
	ml.Incomplete = true
	s.scope = ml
	if s.e.sites != nil {
		s.e.sites.Add(key, ml)
	}
	return ml, nil
}

// hasExtension reports whether some name starts with ident.
func hasExtension(names []string, ident string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, ident) {
			return true
		}
	}
	return false
}

// siteNames is simpleNames' list for the site itself: fetched with the
// generated text before the name, cached per site.
func (s *jdtSession) siteNames(ctx context.Context, full string, ss simpleSite, gen string) (*memberList, error) {
	base := s.id + "\x00s\x00" + strconv.Itoa(ss.IdentStart) + "\x00" + ss.Mode.String() + "\x00" + gen + "\x00"
	return s.namesAt(ctx, full, ss, base)
}

// hunkNames is simpleNames' list at the hunk start (the caret after ident
// right after Prefix): localNames' where it can be built, else JDT LS's,
// cached per hunk under the identifier prefix it was fetched with.
func (s *jdtSession) hunkNames(ctx context.Context, ident string) (*memberList, error) {
	if ml, err := s.localNames(ctx, ident); err != nil || ml != nil {
		return ml, err
	}
	hs := simpleSite{Mode: simplePrefix, IdentStart: len(s.h.Prefix), Ident: ident, HunkStart: true}
	return s.namesAt(ctx, s.h.Prefix+ident, hs, s.id+"\x00h\x00")
}

// inHunkScope reports whether a simple name after the generated text gen
// sees the names visible at the hunk start plus those gen declares, and
// returns the names gen may declare (declNames). It holds when
//   - the hunk starts at a statement boundary in a block (stmtStart, as for
//     typekey.go), where JDT LS lists every variable, method, type and
//     package in scope;
//   - gen does not start with "else" (which may bring a pattern binding of
//     "if (!(o instanceof T x)) ...;" into scope);
//   - gen closes no brace it did not open: the blocks of the prefix, their
//     locals, and whether the code is static stay as at the hunk start
//     (names of blocks gen opens and closes are gen's own);
//   - gen declares no class, interface, enum or record, whose bodies may
//     inherit names. Anonymous class and lambda bodies, where names may be
//     inherited or bound, are never judged (simplePosition), and lambda
//     parameters are visible only there.
//
// Every other name visible at the site was visible at the hunk start, or is
// declared in gen; names visible at the hunk start and no longer at the site
// (locals of a block gen closed) can only make the list longer, never prune
// a feasible name.
func (s *jdtSession) inHunkScope(gen string) (decls []string, ok bool) {
	if !s.stmtStart || s.e.sites == nil {
		return nil, false
	}
	genStart := len(s.win.Text)
	toks := codeTokens(javalex.Lex(s.win.Text + gen))
	depth, first := 0, true
	for i, t := range toks {
		if t.Start < genStart {
			continue
		}
		if first && isKw(t, "else") {
			return nil, false
		}
		first = false
		switch {
		case isOp(t, "{"):
			depth++
		case isOp(t, "}"):
			if depth--; depth < 0 {
				return nil, false
			}
		case isKw(t, "class") || isKw(t, "interface") || isKw(t, "enum") || isWord(t, "record"):
			return nil, false
		case t.Kind == javalex.Ident && i > 0 && declName(toks, i):
			decls = append(decls, t.Text)
		}
	}
	return decls, true
}

// declName reports whether the identifier toks[i] (i > 0) may be the name a
// declaration introduces: one after a type ("T x", "int x", "List<T> x",
// "int[] x", "Map<K, List<V>> x" of a local, a catch or for variable, a
// resource or a pattern binding), or after "," as a further declarator
// ("int a, b = 2;", followed by "=", "," or ";"). Lambda parameters are
// left out: they are visible only in the lambda's body, where simple names
// are never judged.
func declName(toks []javalex.Token, i int) bool {
	p := toks[i-1]
	switch {
	case p.Kind == javalex.Ident:
		return true
	case p.Kind == javalex.Keyword:
		switch p.Text {
		case "int", "long", "short", "byte", "char", "boolean", "float", "double":
			return true
		}
	case isOp(p, ">") || isOp(p, ">>") || isOp(p, ">>>") || isOp(p, "]") || isOp(p, "..."):
		return true
	case isOp(p, ","):
		return i+1 >= len(toks) || isOp(toks[i+1], "=") || isOp(toks[i+1], ",") || isOp(toks[i+1], ";")
	}
	return false
}

// minNameQuery is the shortest identifier prefix whose names namesAt asks
// JDT LS for; a shorter identifier (one character) is unknown unless a list
// already cached answers it. JDT LS matches a typed prefix against type
// names case-insensitively, so the list for one character holds every type
// with that initial (470-740 items), and it is asked twice where it prunes
// (Check's second answer). On six fixtures (bench/README.md, sixth pass)
// those 22 requests took 352 of the engine's 463 s (load average 8-25) and
// made 24 of its 337 prunes: the model's "while (i <" or "lo = p;" with no
// i or p in scope, and the followers of one-letter locals ("s(", "s[").
// A name in scope is still proven by the scope list (scopeFor) and a type
// by cuTypes without a request; not asking is always sound: the decision
// is unknown. Where localNames answers (hunkNames), no request is made
// for a name of any length, and one-letter names are judged there.
const minNameQuery = 2

// namesAt fetches (or finds cached under base) the names at ss, whose
// identifier lies in full. An identifier shorter than minNameQuery is not
// asked for.
func (s *jdtSession) namesAt(ctx context.Context, full string, ss simpleSite, base string) (*memberList, error) {
	for k := len(ss.Ident); k >= 1; k-- {
		if ml, ok := s.cachedList(base+ss.Ident[:k], ""); ok && (k == len(ss.Ident) || !ml.Incomplete) {
			if ml.empty() {
				if ml.Verified && !ml.Incomplete {
					return ml, nil // two empty answers (below): no name extends it
				}
				break // re-confirm below (the probe may be cached too)
			}
			if traceRequests {
				fmt.Fprintf(os.Stderr, "engine trace: names of %q from the list of %q (%d names)\n", ss.Ident, ss.Ident[:k], len(ml.Names))
			}
			return ml.filter(ss.Ident), nil
		}
	}
	if len(ss.Ident) < minNameQuery {
		return nil, nil // unknown, without the type search (minNameQuery)
	}
	ml, err := s.fetchSimple(ctx, full, ss, ss.Ident, base)
	if err != nil || ml == nil {
		return nil, err
	}
	if ml.empty() && !ml.Incomplete && ss.HunkStart {
		// At the hunk start the scope list (scopeNames) witnesses that JDT
		// LS answers there, in place of the probe below (a list of every
		// JDK type with the initial: 10-20 s each under load): the empty
		// answer is the answer. It prunes only on two (Check's verifying
		// pass asks again); the second is cached, verified, for every
		// later sample that names the same identifier.
		sc, err := s.scopeNames(ctx)
		if err != nil {
			return nil, err
		}
		if sc != nil {
			if s.verifying {
				return s.storeList(base+ss.Ident, ml), nil
			}
			return ml, nil
		}
		// No scope list (JDT LS failed or listed nothing there): the
		// probe below decides, as at any other site.
	}
	if ml.empty() && !ml.Incomplete && len(ss.Ident) > minNameQuery {
		// The answer for the identifier's first minNameQuery characters
		// must list something (JDT LS is working here) and, since it
		// includes every name the full identifier's answer would, it is
		// the answer: JDT LS 1.60 once answered a freshly opened file with
		// an empty list that lacked a statically imported method the next
		// request listed. (The probe used to be the first character alone:
		// every JDK type of that initial, 5-20 s under load.)
		probe, err := s.fetchSimple(ctx, full, ss, ss.Ident[:minNameQuery], base)
		if err != nil || probe == nil || probe.empty() || probe.Incomplete {
			return nil, err
		}
		return probe.filter(ss.Ident), nil
	} else if ml.empty() {
		return nil, nil
	}
	return ml, nil
}

// fetchSimple asks JDT LS for the names at ss with the identifier cut to q
// (a prefix of it), caches the answer under base+q and returns it; nil when
// JDT LS failed or answered for another text.
func (s *jdtSession) fetchSimple(ctx context.Context, full string, ss simpleSite, q, base string) (*memberList, error) {
	if ml, ok := s.cachedList(base+q, ""); ok {
		return ml, nil
	}
	caret := ss.IdentStart + len(q)
	text := full[:caret]
	if ss.Mode == simpleNewType {
		// JDT LS 1.20 lists nothing after "new" (isIncomplete, no items);
		// with "new" blanked the same place is an expression, where every
		// visible type and package is listed (with variables and methods
		// too: more names can only mean less pruning).
		text = text[:ss.NewStart] + "   " + text[ss.NewStart+3:]
	}
	kind := "simple"
	if ss.HunkStart {
		// "name;": a statement, where JDT LS lists every name in scope.
		// Without the ";", "name" followed by the next statement's first
		// name reads as a declaration's type, where it lists types only.
		text += ";"
		kind = "simple-hunk"
	}
	text += s.suffixAfterCaret()
	m := textpos.New(text)
	if q != ss.Ident {
		kind += "-probe"
	}
	list, err := s.request(ctx, kind, text, m.Position(caret))
	if err != nil {
		return nil, s.requestError(ctx, err)
	}
	ml, ok := newSimpleList(list, text, m, ss.IdentStart, caret)
	if !ok {
		s.errs.Add(1)
		return nil, nil
	}
	if ml.empty() {
		// Not cached: an empty answer proves nothing on its own (see
		// namesAt), and a list of the hunk start serves every sample; one
		// JDT LS gave while still indexing must not stand for all of them.
		return ml, nil
	}
	return s.storeList(base+q, ml), nil
}

// newSimpleList reads a simple-name completion list: each item's name is
// the identifier its edit inserts at the identifier's start ("java" for the
// package item "java.util", "greet" for "greet()"). ok is false when an
// item's edit does not replace exactly [identStart, caret): an answer for
// another text or caret proves nothing.
func newSimpleList(l *jdtls.CompletionList, text string, m *textpos.Mapper, identStart, caret int) (*memberList, bool) {
	ml := &memberList{Incomplete: l.IsIncomplete}
	for _, it := range l.Items {
		if it.Kind == jdtls.KindSnippet || it.Kind == jdtls.KindKeyword {
			continue
		}
		name := it.Name
		if it.Edit != nil {
			start, err1 := m.Offset(it.Edit.Range.Start)
			end, err2 := m.Offset(it.Edit.Range.End)
			if err1 != nil || err2 != nil || end != caret || start != identStart {
				return nil, false
			}
			name = leadingIdent(it.Edit.NewText)
		}
		if name == "" {
			continue
		}
		bits := kindBits(it.Kind, it.Label)
		ml.add(name, bits)
		// A method's parameter count, for simple-name calls' arity
		// (arity.go, simpleArity); any other item makes its name's arity
		// unknown.
		n, varargs, ok := methodParams(name, it.Label)
		ml.addArity(name, n, varargs, ok && bits == kindMethod)
		if bits == kindValue {
			ml.addType(name, valueType(it.Label))
		}
	}
	sort.Strings(ml.Names)
	return ml, true
}

func (ml *memberList) empty() bool { return len(ml.Names) == 0 }

// filter returns the part of ml whose names start with ident (ml itself when
// all do).
func (ml *memberList) filter(ident string) *memberList {
	i := sort.SearchStrings(ml.Names, ident)
	j := i
	for j < len(ml.Names) && strings.HasPrefix(ml.Names[j], ident) {
		j++
	}
	if i == 0 && j == len(ml.Names) {
		return ml
	}
	out := &memberList{Incomplete: ml.Incomplete, Packages: ml.Packages, Kinds: map[string]uint8{}}
	for _, n := range ml.Names[i:j] {
		out.Names = append(out.Names, n)
		out.Kinds[n] = ml.Kinds[n]
		if t, ok := ml.Types[n]; ok {
			out.addType(n, t)
		}
		if a, ok := ml.Arity[n]; ok {
			if out.Arity == nil {
				out.Arity = map[string]arity{}
			}
			out.Arity[n] = a
		}
	}
	return out
}

// leadingIdent returns the Java identifier s starts with ("" if none).
func leadingIdent(s string) string {
	for i, r := range s {
		if i == 0 && !javalex.IsIdentStart(r) || i > 0 && !javalex.IsIdentPart(r) {
			return s[:i]
		}
	}
	return s
}

// localNames is hunkNames' list built without a request for ident: the
// variables and methods of the hunk's scope list (scopeNames) that extend
// ident, with the types and packages of the project's type index
// (typeindex.go) and the types and type parameters the file declares
// (fileTypes) that do. It is complete, as JDT LS's list for ident at the
// hunk start is: that list holds the variables and methods in scope, which
// the scope list lists for the empty identifier when JDT LS does not mark it
// isIncomplete (ScopeComplete), and types and packages, of which the index
// and the file's declarations hold a superset (a name listed here that JDT
// LS would not list only costs a prune). nil (ask JDT LS) without a complete
// scope list or an index. A prune on it rests on two answers for the scope
// list (asked again, once per hunk, while Check verifies: scopeList) and
// on the index; TestTypeIndexAgreesWithJDTLS compares it with JDT LS's
// lists. One-letter names are judged here too: no type search is made.
func (s *jdtSession) localNames(ctx context.Context, ident string) (*memberList, error) {
	sc, err := s.scopeList(ctx, false)
	if err != nil || sc == nil || !sc.ScopeComplete {
		return nil, err
	}
	x := s.typeIndex(ctx)
	if x == nil {
		return nil, nil
	}
	if s.verifying {
		if sc, err = s.scopeList(ctx, true); err != nil || sc == nil || !sc.Verified || !sc.ScopeComplete {
			return nil, err // no second answer for the scope list: JDT LS's own lists decide
		}
	}
	loc := &memberList{}
	for _, n := range x.types(ident) {
		loc.add(n, kindType)
	}
	for _, n := range withPrefix(s.fileTypes(), ident) {
		loc.add(n, kindType)
	}
	for _, n := range x.packages(ident) {
		loc.add(n, kindPackage)
	}
	for _, n := range loc.Names {
		loc.addArity(n, 0, false, false) // a type or package: no arity
	}
	sort.Strings(loc.Names)
	ml := sc.filter(ident).union(loc)
	ml.Incomplete = false
	ml.Verified = sc.Verified
	if traceRequests {
		fmt.Fprintf(os.Stderr, "engine trace: names of %q from the scope list and the type index (%d names)\n", ident, len(ml.Names))
	}
	return ml, nil
}

// fileTypes returns, sorted, the names the hunk's file (Prefix and Suffix)
// declares as types at any depth, and every identifier there that may
// declare a type parameter (indexBuilder.addSourceText); computed once per
// session.
func (s *jdtSession) fileTypes() []string {
	if s.fileTypeNames == nil {
		b := newIndexBuilder()
		b.addSourceText(s.h.Prefix+"\n"+s.h.Suffix, true)
		s.fileTypeNames = b.index().Types
		if s.fileTypeNames == nil {
			s.fileTypeNames = []string{}
		}
	}
	return s.fileTypeNames
}
