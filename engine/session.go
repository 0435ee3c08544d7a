package engine

// session.go holds jdtSession, one hunk's Session over a JDT engine: Check
// (Algorithm 2's feasibility test), Complete (Algorithm 3's query) and the
// member-list fetch they share (the site cache and one completion request).
//
// The decision procedure, in Repilot's terms (Wei, Xia, Zhang, FSE 2023):
//   - Definition 3.3 (feasible token): a token is feasible when some
//     completion of the partial program with it compiles. The engine proves
//     feasibility only at a strict site: the identifier after a member-access
//     dot is feasible iff it is a prefix of a member name JDT LS lists there;
//     a simple name in a reference position iff it is a prefix of a name JDT
//     LS lists at the caret (judged when it ends, where it may still become
//     a lambda parameter or a label).
//   - Definition 3.4 (strict completion engine): where the engine cannot be
//     sure (a declaration name, comment, literal, unresolved receiver, a
//     receiver JDT LS is known to get wrong, JDT LS error) it answers
//     unknown, so no feasible token is ever pruned.
//   - Algorithm 2 (GuidedPrune) calls Session.Check for each sampled token;
//     Infeasible prunes it.
//   - Algorithm 3 (ActivelyComplete) calls Session.Complete and appends the
//     common prefix of the names returned.

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// jdtSession is one hunk's Session.
type jdtSession struct {
	e   *JDT
	h   Hunk
	id  string // hash of URI, Prefix and Suffix: the hunk identity in site keys
	win lexWindow

	checks, requests, errs, hits atomic.Int64
	closed                       atomic.Bool
	endTime                      atomic.Int64 // ns in CheckEnd

	kindMu sync.Mutex
	byKind map[string]KindStats // Stats.ByKind

	// verifying is set while a piece judged Infeasible is judged again:
	// lists are then fetched afresh and merged with the cached ones (see
	// cachedList), so that one wrong answer cannot prune on its own.
	verifying bool

	// confirm is set while a piece is judged when its decision rests on an
	// answer that a second one must confirm before it prunes (Check): a
	// simple-name list, or a member list another site asked for (shared by
	// its type key), but not a member list answered for this very site.
	confirm bool

	syntax syntaxJudge // decides end tokens (end.go)

	// scope, scopeTried: the hunk start's scope list (simple.go,
	// scopeNames), once asked for in this session.
	scope      *memberList
	scopeTried bool

	// cuNames: cuTypes' answer, once computed (cutypes.go).
	cuNames []string

	// fileTypeNames: fileTypes' answer, once computed (simple.go).
	fileTypeNames []string

	// index, indexTried: the project's type index (typeindex.go) as of
	// the session's first need of it; nil when it cannot be built.
	index      *typeIndex
	indexTried bool

	// stmtStart: the hunk starts at a statement boundary in a block, where
	// member lists may be shared per receiver type (typekey.go).
	stmtStart bool
}

// Stats returns the session's counters.
func (s *jdtSession) Stats() Stats {
	st := Stats{Checks: s.checks.Load(), Requests: s.requests.Load(), Errors: s.errs.Load(), SiteHits: s.hits.Load(),
		EndTime: time.Duration(s.endTime.Load()), ByKind: map[string]KindStats{}}
	s.kindMu.Lock()
	for k, v := range s.byKind {
		st.ByKind[k] = v
	}
	s.kindMu.Unlock()
	return st
}

// Close releases the shadow document. With $REPILOT_ENGINE_STATS set it
// first prints the session's Stats to stderr (for bench repair's
// breakdown of JDT LS requests by kind; bench/README.md).
//
// It never waits: a cancelled request closes its session at once even
// while another request holds the engine (a compile check waits up to
// CompileTimeout); the release then runs in the background once the engine
// is free. Until then the document stays open in the shadow server, which
// nothing can observe: a session opened meanwhile on the same URI counts
// as one more user, and the count is the same in either order. The
// didClose itself is queued without waiting for the write (releaseLocked).
func (s *jdtSession) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if os.Getenv("REPILOT_ENGINE_STATS") != "" {
		fmt.Fprintln(os.Stderr, "engine stats:", s.Stats())
	}
	if s.e.mu.tryLock() {
		s.e.releaseLocked(s.h.URI, false)
		s.e.mu.Unlock()
		return nil
	}
	go func() {
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		s.e.releaseLocked(s.h.URI, false)
	}()
	return nil
}

// Check implements GuidedPrune's feasibility test (Algorithm 2) for one
// token. The token is split at identifier boundaries and each piece is
// checked where it lands:
//   - identifier characters at a member site (after a member-access dot):
//     the identifier so far must be a prefix of some member name (Feasible),
//     else Infeasible — unless it may still become this/super/class/new, or
//     the receiver may be a package (Unknown);
//   - identifier characters at a simple name where no lambda parameter,
//     label or declaration can start (an operand, an array index, the type
//     after new; context.go): the same test against the names JDT LS lists
//     at the caret, unless the name may still become a keyword;
//   - any other character right after an identifier at a member site ends
//     it: the name must be a member; a method name must be followed by "("
//     (or whitespace or a comment), and a field's by anything but "(";
//   - a character that ends a simple name in a reference position (not
//     whitespace, "-", ":", "." or "/", which may still make it a lambda
//     parameter, a label, a package or a comment) requires the name to be
//     listed, and a method if the character is "(";
//   - a character right after a member-access dot must be able to follow
//     it (an identifier start, whitespace, a comment, "<", "@", or "." of
//     an ellipsis), else Infeasible ("x.(", "x.)", "g..");
//   - a ")" or "," in the arguments of a member method call "recv.name("
//     at a strict site, or of a simple-name call "name(" whose name the
//     complete simple-name list lists only as methods, must leave an
//     argument count some overload of name accepts (arity.go), else
//     Infeasible;
//   - everything else is Unknown.
//
// The result is Infeasible if any piece is, else Feasible if some piece was
// proven, else Unknown. Errors: ctx's error, or one wrapping jdtls.ErrExited
// when the shadow server has died; a JDT LS error or timeout is Unknown.
func (s *jdtSession) Check(ctx context.Context, generated, token string) (Outcome, error) {
	s.checks.Add(1)
	if err := s.alive(); err != nil {
		return Unknown, err
	}
	proven := false
	cur := generated
	for _, p := range splitToken(token) {
		s.confirm = false
		out, err := s.checkPiece(ctx, cur, p)
		if err == nil && out == Infeasible && s.confirm {
			// Prune only on two answers where one may be wrong for this
			// site: a simple-name list (types come from JDT LS's search
			// index) and a member list shared from another site by its
			// type key (the key rests on one answer for the receiver's
			// type). A member list answered for this site's own text is
			// not asked again: the second answer was the same request on
			// the same text, and the one case seen where it differed (JDT
			// LS 1.60 missing Runnable.run) was an answer for the text a
			// document was opened with, which 63cb1d9 no longer lets
			// happen (shadowDoc; TestMemberListRepeatsOnItsText).
			s.verifying = true
			out, err = s.checkPiece(ctx, cur, p)
			s.verifying = false
		}
		if err != nil {
			return Unknown, err
		}
		cur += p.Text
		switch out {
		case Infeasible:
			if traceRequests {
				fmt.Fprintf(os.Stderr, "engine trace: pruned %q after %q\n", p.Text, tailText(cur[:len(cur)-len(p.Text)], 40))
			}
			return Infeasible, nil
		case Feasible:
			proven = true
		}
	}
	if proven {
		return Feasible, nil
	}
	return Unknown, nil
}

// checkPiece judges piece p appended to cur.
func (s *jdtSession) checkPiece(ctx context.Context, cur string, p part) (Outcome, error) {
	if p.Ident {
		return s.checkIdent(ctx, cur+p.Text)
	}
	return s.checkFollower(ctx, cur, p)
}

// cachedList returns the cached list under key: any cached list normally,
// and while verifying only one that was already verified or that JDT LS
// answered for this very site (own: the site key of the text being judged,
// memberList.Origin). A prune needs one answer from such a list (Check),
// so the verifying pass, there for the other answers the decision used (a
// simple-name list, a list shared from another site), does not ask it
// again: that was the same request on the same text, 0.05-0.6 s each on
// the 3 bugs of bench/README.md's ninth pass.
func (s *jdtSession) cachedList(key, own string) (*memberList, bool) {
	if s.e.sites == nil {
		return nil, false
	}
	ml, ok := s.e.sites.Get(key)
	if !ok || (s.verifying && !ml.Verified && (own == "" || ml.Origin != own)) {
		return nil, false
	}
	s.hits.Add(1)
	return ml, true
}

// storeList caches ml under key; while verifying, merged with the list
// cached before and marked verified.
func (s *jdtSession) storeList(key string, ml *memberList) *memberList {
	if s.e.sites == nil {
		return ml
	}
	if s.verifying {
		if old, ok := s.e.sites.Peek(key); ok {
			ml = old.union(ml)
		}
		ml.Verified = true
	}
	s.e.sites.Add(key, ml)
	return ml
}

// checkIdent judges the identifier that ends at the end of next (a member
// name or a simple name being typed).
func (s *jdtSession) checkIdent(ctx context.Context, next string) (Outcome, error) {
	st := siteAt(s.win, next)
	if st.Strict {
		ml, err := s.members(ctx, next, st)
		if err != nil {
			return Unknown, err
		}
		return verdict(ml, st.Ident, false), nil
	}
	if st.DotEnd != 0 {
		return Unknown, nil // a member site whose receiver is not trusted
	}
	ss, ok := simpleSiteAt(s.win, next, false)
	if ok && ss.Mode == simpleNever {
		return Infeasible, nil
	}
	if !ok || (ss.Mode != simplePrefix && ss.Mode != simpleNewType) {
		return Unknown, nil
	}
	if s.cuTypePrefix(ss.Ident) {
		return Feasible, nil // a prefix of a type visible in the whole file (cutypes.go)
	}
	if sc, err := s.scopeFor(ctx, next, ss); err != nil {
		return Unknown, err
	} else if sc != nil {
		return Feasible, nil // a variable or method in scope starts with it
	}
	ml, err := s.simpleNames(ctx, next, ss)
	if err != nil || ml == nil {
		return Unknown, err
	}
	if ml.hasPrefix(ss.Ident) {
		return Feasible, nil
	}
	if ml.Incomplete || anyKeywordPrefix(ss.Ident) {
		return Unknown, nil // it may still become a keyword JDT LS does not list
	}
	return Infeasible, nil
}

// checkFollower judges a piece that is not identifier characters (one
// character, or a run of whitespace) appended to cur.
func (s *jdtSession) checkFollower(ctx context.Context, cur string, p part) (Outcome, error) {
	toks, inCode := lastCode(s.win, cur)
	n := len(toks)
	if !inCode || n == 0 {
		return Unknown, nil
	}
	c := p.Text[0]
	if p.Space {
		c = ' '
	}
	last := toks[n-1]
	srcLen := len(s.win.Text) + len(cur)
	switch {
	case isOp(last, ".") && n >= 2 && memberAccessReceiver(toks, n-2, s.win.Anchor > 0):
		out := afterDot(toks[n-2], c, last.End == srcLen)
		if out == Unknown && c == '.' {
			// "T..." declares a variable-arity parameter: only in a
			// parameter list, never in a block or an expression.
			st := scan(s.win.pre.clone(), toks[:n-1])
			switch st.top() {
			case frameBlock, frameLambdaBlock, frameCallParen, frameCtrlParen, frameBracket, frameArrayInit:
				return Infeasible, nil
			}
		}
		return out, nil
	}
	if c == ')' || c == ',' {
		// the arity of the member method call it closes or continues (arity.go)
		if out, err := s.checkArity(ctx, cur, toks, c); err != nil || out == Infeasible {
			return out, err
		}
	}
	if last.Kind != javalex.Ident {
		return Unknown, nil
	}
	// The identifier last has ended (c cannot extend it).
	genEnd := last.End - len(s.win.Text)
	if genEnd <= 0 {
		return Unknown, nil // the name lies in the prefix: the hunk starts after it
	}
	upto := cur[:genEnd]
	if st := siteAt(s.win, upto); st.Strict {
		if c == ' ' && last.End != srcLen {
			return Unknown, nil // already judged when the name ended
		}
		ml, err := s.members(ctx, upto, st)
		if err != nil {
			return Unknown, err
		}
		return memberFollower(ml, st.Ident, c), nil
	} else if st.DotEnd != 0 {
		return Unknown, nil
	}
	if !settles(c) && c != '.' {
		return Unknown, nil
	}
	ss, ok := simpleSiteAt(s.win, cur, true)
	if ok && ss.Mode == simpleNever {
		return Infeasible, nil
	}
	if !ok || ss.Mode == simpleNone || isContextual(ss.Ident) {
		return Unknown, nil
	}
	if c == '.' {
		return s.checkQualifier(ctx, upto, ss)
	}
	if s.cuType(ss.Ident) && !(c == '(' && ss.Mode != simpleNewType) {
		// A type visible in the whole file (cutypes.go): judged as a list
		// that names it as a type judges it, without asking for the list
		// (simpleFollower never rules a type's follower out).
		out := simpleFollower(&memberList{Names: []string{ss.Ident}, Kinds: map[string]uint8{ss.Ident: kindType}}, ss.Ident, c)
		if out == Unknown && c == '(' && ss.Mode == simpleNewType {
			out = Feasible // new T(
		}
		return out, nil
	}
	if sc, err := s.scopeFor(ctx, upto, ss); err != nil {
		return Unknown, err
	} else if sc != nil && simpleFollower(sc, ss.Ident, c) == Feasible {
		// The scope list is partial; a complete one has at least its
		// items, and more items only make simpleFollower's answer more
		// feasible, so its Feasible stands.
		return Feasible, nil
	}
	ml, err := s.simpleNames(ctx, upto, ss)
	if err != nil || ml == nil {
		return Unknown, err
	}
	out := simpleFollower(ml, ss.Ident, c)
	if out == Unknown && c == '(' && ss.Mode == simpleNewType && ml.Kinds[ss.Ident]&kindType != 0 {
		out = Feasible // new T(
	}
	if out == Unknown && c == '(' && typeCalled(ml, ss) {
		out = Infeasible
	}
	return out, nil
}

// typeCalled reports whether "(" right after the simple name ss, whose
// visible names are ml, calls a name that is only a type: "LogRecord(" in an
// expression or statement, outside "new". Java calls methods only (JLS
// 15.12); a type name is followed by "(" only after "new" (ss.Mode
// simpleNewType, not judged here), in a record pattern (after "instanceof"
// or "case", which simplePosition never judges, or, in Java 20's preview,
// an enhanced for's header: ss.CtrlParen is left alone) and in a
// constructor's declaration (a class body, never judged). A method of the
// same name is listed as a method (Feasible before this).
func typeCalled(ml *memberList, ss simpleSite) bool {
	if ml.Incomplete || ss.CtrlParen || ss.Mode == simpleNewType {
		return false
	}
	return ml.Kinds[ss.Ident] == kindType
}

// minQualifierAtSite is the shortest name checkQualifier judges from a
// list fetched at its own site (bench inline on java.logging/: names of one
// or two characters before "." cost 18-30 s per request there).
const minQualifierAtSite = 3

// checkQualifier judges "." right after the simple name ss (complete, in a
// reference position; upto ends with it): the name must be one that a
// qualified name or a member access may start with, a variable, a type or
// a package, so a name that JDT LS's complete list of the names at the site
// lacks ("msg.length" with no msg in scope), or lists only as a method, is
// Infeasible. It rests on JDT LS listing packages by their first segment
// for a typed prefix ("java", "com", "org" in a probe on testdata/project;
// java and demo in TestCheckQualifierAndTypeCall), as well
// as the variables and types it lists for every other follower.
func (s *jdtSession) checkQualifier(ctx context.Context, upto string, ss simpleSite) (Outcome, error) {
	if s.cuType(ss.Ident) {
		return Feasible, nil // a type the whole file sees (cutypes.go)
	}
	if sc, err := s.scopeFor(ctx, upto, ss); err != nil {
		return Unknown, err
	} else if sc != nil && sc.Kinds[ss.Ident]&(kindValue|kindType|kindPackage) != 0 {
		return Feasible, nil
	}
	if len(ss.Ident) < minQualifierAtSite && !s.hunkScoped(upto, ss) {
		// At a site of its own (ghost text mid-statement) the list for a
		// short name holds every type with those initials, seconds to
		// tens of seconds each under load; such names are mostly locals.
		return Unknown, nil
	}
	ml, err := s.simpleNames(ctx, upto, ss)
	if err != nil || ml == nil {
		return Unknown, err
	}
	bits, listed := ml.Kinds[ss.Ident]
	switch {
	case bits&(kindValue|kindType|kindPackage) != 0:
		return Feasible, nil
	case ml.Incomplete || bits&kindOther != 0:
		return Unknown, nil
	case !listed || bits == kindMethod:
		return Infeasible, nil
	}
	return Unknown, nil
}

// afterDot judges character c right after a member-access dot whose
// receiver ends with recv; adjacent says no whitespace or comment separates
// them. Java allows an identifier (checked elsewhere), "<" (explicit type
// arguments: x.<T>m()), "@" (a type annotation in a qualified type:
// java.util.@NonNull List), whitespace and comments; "." only as part of
// "..." after a type name (String... args).
func afterDot(recv javalex.Token, c byte, adjacent bool) Outcome {
	switch c {
	case ' ', '/', '\\', '<', '@':
		return Unknown
	case '.':
		if adjacent && (recv.Kind == javalex.Ident || isOp(recv, "]")) {
			return Unknown // may become an ellipsis
		}
		return Infeasible
	}
	return Infeasible
}

// memberFollower judges character c after the member name ident (complete)
// at a site whose member list is ml.
func memberFollower(ml *memberList, ident string, c byte) Outcome {
	v := verdict(ml, ident, true)
	if v != Feasible || c == ' ' || c == '/' || c == '\\' {
		return v
	}
	bits := ml.Kinds[ident]
	switch {
	case bits&(kindType|kindOther) != 0:
		return Feasible
	case c == '(' && bits&kindMethod == 0:
		return Infeasible // x.field( : a field is not called
	case c == '[' && !ml.indexable(ident):
		return Infeasible // x.list[ : only arrays are indexed
	case c != '(' && bits&kindMethod != 0 && bits&(kindValue|kindPackage) == 0:
		return Infeasible // x.method followed by anything but "("
	}
	return Feasible
}

// settles reports whether character c, right after a simple name (possibly
// after whitespace), proves the name is a reference: not whitespace, and not
// "-" (x -> ...), ":" (a label), "." (a package name), "/" (a comment) or
// "\\" (a Unicode escape).
func settles(c byte) bool {
	switch c {
	case ' ', '-', ':', '.', '/', '\\':
		return false
	}
	return true
}

// simpleFollower judges character c (settles(c)) after the complete simple
// name ident in a reference position, whose visible names are ml.
func simpleFollower(ml *memberList, ident string, c byte) Outcome {
	bits, listed := ml.Kinds[ident]
	switch {
	case !listed && ml.Incomplete:
		return Unknown
	case !listed:
		return Infeasible
	case bits&kindOther != 0:
		return Feasible
	case c == '(':
		if bits&kindMethod != 0 {
			return Feasible
		}
		if bits&kindType != 0 {
			return Unknown // a constructor's name, where classification erred
		}
		return Infeasible // a variable or package is not called
	case bits == kindMethod:
		return Infeasible // a method name that is not called
	case c == '[' && !ml.indexable(ident):
		return Infeasible // list[i] : only arrays are indexed
	}
	return Feasible
}

func isContextual(ident string) bool {
	for _, k := range contextualWords {
		if k == ident {
			return true
		}
	}
	return false
}

// verdict decides one identifier against a site's member list: exact asks for
// a complete name (the identifier has ended), otherwise a prefix.
func verdict(ml *memberList, ident string, exact bool) Outcome {
	if ml == nil || len(ml.Names) == 0 {
		return Unknown // JDT LS resolved no receiver: not evidence of anything
	}
	i := sort.SearchStrings(ml.Names, ident)
	if i < len(ml.Names) && (ml.Names[i] == ident || (!exact && strings.HasPrefix(ml.Names[i], ident))) {
		return Feasible
	}
	if ml.Incomplete || ml.Packages {
		return Unknown // a package receiver: JDT LS may not list every package
	}
	if exact {
		for _, k := range afterDotKeywords {
			if k == ident {
				return Unknown
			}
		}
	} else if keywordPrefix(ident) {
		return Unknown
	}
	return Infeasible
}

// Complete implements the query of ActivelyComplete (Algorithm 3): at a
// strict site, the member names that extend the identifier typed so far
// (all members right after the dot). Known is false elsewhere, when JDT LS
// lists nothing, when the list is incomplete, or when the identifier could
// also become a keyword JDT LS does not list (this/super/class/new).
func (s *jdtSession) Complete(ctx context.Context, generated string) (Completions, error) {
	if err := s.alive(); err != nil {
		return Completions{}, err
	}
	st := siteAt(s.win, generated)
	if !st.Strict {
		if st.DotEnd != 0 {
			return Completions{}, nil
		}
		return s.completeSimple(ctx, generated)
	}
	ml, err := s.members(ctx, generated, st)
	if err != nil {
		return Completions{}, err
	}
	if ml == nil || len(ml.Names) == 0 || ml.Incomplete || ml.Local {
		return Completions{}, nil // only JDT LS's complete list completes actively
	}
	var names []string
	i := sort.SearchStrings(ml.Names, st.Ident)
	for ; i < len(ml.Names) && strings.HasPrefix(ml.Names[i], st.Ident); i++ {
		names = append(names, ml.Names[i])
	}
	if st.Ident != "" {
		for _, k := range afterDotKeywords {
			if strings.HasPrefix(k, st.Ident) && !contains(names, k) {
				return Completions{}, nil
			}
		}
	}
	return Completions{Known: true, Names: names}, nil
}

// completeSimple is Complete at a simple name being typed where every
// prefix is judged (simplePrefix, simpleNewType): the listed names that
// extend it; unknown when the name may still become a keyword, or the list
// is empty or incomplete.
func (s *jdtSession) completeSimple(ctx context.Context, generated string) (Completions, error) {
	ss, ok := simpleSiteAt(s.win, generated, false)
	if !ok || (ss.Mode != simplePrefix && ss.Mode != simpleNewType) || anyKeywordPrefix(ss.Ident) {
		return Completions{}, nil
	}
	if s.cuType(ss.Ident) {
		// The identifier is itself a visible type's name (cutypes.go):
		// as below, nothing longer is common to the names extending it.
		return Completions{}, nil
	}
	if sc, err := s.scopeFor(ctx, generated, ss); err != nil {
		return Completions{}, err
	} else if sc != nil && contains(sc.Names, ss.Ident) {
		// The identifier is itself a name in scope: the names that extend
		// it have no common prefix longer than it, so Algorithm 3 has
		// nothing to add, whatever else a complete list holds.
		return Completions{}, nil
	}
	ml, err := s.simpleNames(ctx, generated, ss)
	if err != nil || ml == nil || ml.Incomplete {
		return Completions{}, err
	}
	ml = ml.filter(ss.Ident)
	if ml.empty() {
		return Completions{}, nil
	}
	return Completions{Known: true, Names: append([]string(nil), ml.Names...)}, nil
}

func (s *jdtSession) alive() error {
	if s.closed.Load() {
		return errors.New("engine: session is closed")
	}
	return s.e.peer.Err()
}

// members returns the member list at st, from the site cache or from one
// completion request with an empty identifier (the caret right after the
// dot). cur is the generated text whose end st describes. A nil list with a
// nil error means unknown (JDT LS failed or timed out; counted in Errors).
func (s *jdtSession) members(ctx context.Context, cur string, st site) (*memberList, error) {
	// The partial program for the site: Prefix + generated up to the dot +
	// Suffix. When the dot lies in the prefix itself (the hunk starts after
	// "x."), the generated part is empty.
	genEnd := st.DotEnd - len(s.h.Prefix)
	if genEnd < 0 {
		genEnd = 0
	}
	gen := cur[:genEnd]
	textKey := s.id + "\x00" + strconv.Itoa(st.DotEnd) + "\x00" + gen
	key, typed := textKey, false
	if tk, head, ok, err := s.typeKey(ctx, cur, st); err != nil {
		return nil, err
	} else if ok && tk == noMembers {
		return &memberList{}, nil // JDT LS can only answer empty: unknown (typekey.go)
	} else if ok {
		key, typed = tk, true // shared by the sites of receivers of one type (typekey.go)
		if head != "" {
			if ml, err := s.arrayMembers(ctx, head); err != nil || ml != nil {
				return ml, err // an array variable: JLS 10.7, no request (arraymembers.go)
			}
		}
	}
	if ml, ok := s.cachedList(key, textKey); ok {
		if ml.Origin != textKey && !ml.Verified {
			s.confirm = true // another site's answer (typekey.go)
		}
		return ml, nil
	}
	if typed {
		if ml, ok := s.cachedList(textKey, textKey); ok && ml.empty() {
			return ml, nil // this very text was answered with nothing (below)
		}
	}
	prefix := s.h.Prefix
	if st.DotEnd < len(prefix) && strings.TrimSpace(prefix[st.DotEnd:]) != "" {
		// A site inside the prefix, followed there by its member name (the
		// hunk starts inside "x.name(...": arity.go): what follows the dot
		// is dropped, as a generated site's is, so the caret ends no name.
		prefix = prefix[:st.DotEnd]
	}
	text := prefix + gen + s.suffixAfterCaret()
	m := textpos.New(text)
	pos := m.Position(st.DotEnd)

	if traceRequests {
		k := "its text"
		if typed {
			k = strings.ReplaceAll(strings.TrimPrefix(key, s.id), "\x00", " ")
		}
		fmt.Fprintf(os.Stderr, "engine trace: member keyed by %q\n", k)
	}
	list, err := s.request(ctx, "member", text, pos)
	if err != nil {
		return nil, s.requestError(ctx, err)
	}
	if !consistent(list, text, m, st.DotEnd) {
		s.errs.Add(1) // an answer for some other text or caret: not evidence
		return nil, nil
	}
	ml := newMemberList(list)
	ml.Origin = textKey
	if typed && len(ml.Names) == 0 {
		// An empty list is unknown here, and at this site may come from
		// JDT LS failing to resolve the receiver in this text: it must not
		// stand for every site of the type. It stands for this text alone
		// (the site key of an untyped receiver), where it answers unknown
		// again instead of asking again: samples that reach the same text
		// try one token after another there.
		if !s.verifying {
			s.storeList(textKey, ml)
		}
		return ml, nil
	}
	return s.storeList(key, ml), nil
}

// suffixAfterCaret is the hunk's suffix as a completion request's text
// continues it after the caret: with a newline first when the suffix starts
// with neither whitespace nor a comment (the line after the hunk starts at
// column 0). Without it, an identifier there ("}" is not one, but "System",
// or "public" of the next member is) would join the name being completed,
// and JDT LS's edit ranges would run past the caret, so that consistent
// rejects the list (unknown). The caret is in code at a strict site, where
// whitespace between tokens changes nothing a compiler sees.
func (s *jdtSession) suffixAfterCaret() string {
	if suf := s.h.Suffix; suf != "" && !strings.ContainsRune(" \t\r\n\f/", rune(suf[0])) {
		return "\n" + suf
	}
	return s.h.Suffix
}

// traceRequests ($REPILOT_ENGINE_TRACE set) prints each JDT LS request's
// kind and the text before its caret to stderr, and after its answer the
// kind again with the wall time it took, lock wait included, the answer's
// item count and isIncomplete, whether it failed, and the first 6 bytes of
// the request text's SHA-256 with the caret's position (two lines with the
// same hash and position asked the same question; bench/README.md).
var traceRequests = os.Getenv("REPILOT_ENGINE_TRACE") != ""

// request sends one completion request of the given kind (RequestKinds,
// without "-verify") on the shadow server, counted in Stats, and returns
// complete's answer.
func (s *jdtSession) request(ctx context.Context, kind, text string, pos textpos.Position) (*jdtls.CompletionList, error) {
	if s.verifying {
		kind += "-verify"
	}
	began := time.Now()
	var list *jdtls.CompletionList
	var err error
	if traceRequests {
		defer func(kind string) {
			items, incomplete := -1, false
			if list != nil {
				items, incomplete = len(list.Items), list.IsIncomplete
			}
			sum := sha256.Sum256([]byte(text))
			fmt.Fprintf(os.Stderr, "engine trace: %s took %.0f ms, %d items, incomplete %t, error %t, text %x at %d:%d\n",
				kind, float64(time.Since(began).Microseconds())/1000, items, incomplete, err != nil, sum[:6], pos.Line, pos.Character)
		}(kind)
		off := 0
		if m := textpos.New(text); m != nil {
			if o, err := m.Offset(pos); err == nil {
				off = o
			}
		}
		from := off - 60
		if from < len(s.h.Prefix)-20 {
			from = len(s.h.Prefix) - 20
		}
		if from < 0 || from > off {
			from = max(0, off-60)
		}
		fmt.Fprintf(os.Stderr, "engine trace: %s %q\n", kind, text[from:off])
	}
	if err = s.e.mu.lockCtx(ctx); err != nil {
		return nil, err
	}
	list, err = s.complete(ctx, text, pos)
	s.e.mu.Unlock()
	s.count(kind, 1, time.Since(began))
	return list, err
}

// count adds n requests of kind that took d in all to the session's Stats.
func (s *jdtSession) count(kind string, n int64, d time.Duration) {
	s.requests.Add(n)
	s.kindMu.Lock()
	if s.byKind == nil {
		s.byKind = map[string]KindStats{}
	}
	k := s.byKind[kind]
	k.N += n
	k.Time += d
	s.byKind[kind] = k
	s.kindMu.Unlock()
}

// tailText returns the last n bytes of s (for trace lines).
func tailText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// requestError is what a decision returns when its request failed with err:
// ctx's error when ctx ended; an error wrapping err when the shadow JDT LS
// has exited (no later decision can be made); otherwise nil, after counting
// the failure in Stats.Errors, and the decision is unknown.
func (s *jdtSession) requestError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, jdtls.ErrExited) || s.e.peer.Err() != nil {
		return fmt.Errorf("engine: shadow JDT LS: %w", err)
	}
	s.errs.Add(1)
	return nil
}

// complete sets the document text and asks for completions; e.mu is held.
func (s *jdtSession) complete(ctx context.Context, text string, pos textpos.Position) (*jdtls.CompletionList, error) {
	if err := s.e.setTextLocked(ctx, s.h.URI, text); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.e.cfg.requestTimeout)
	defer cancel()
	list, err := s.e.peer.Completion(rctx, s.h.URI, pos)
	var rpcErr *jsonrpc.Error
	if err != nil && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeContentModified {
		list, err = s.e.peer.Completion(rctx, s.h.URI, pos) // once more
	}
	if err == nil {
		s.e.answeredLocked(s.h.URI)
	}
	return list, err
}
