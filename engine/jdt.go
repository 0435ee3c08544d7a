package engine

// jdt.go defines JDT, the strict completion engine backed by its own JDT LS
// (the "shadow server"), and its sessions. See the package comment for the
// contract, site.go and context.go for where the engine is strict, and
// simple.go for simple names.
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
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/jdtls"
	"github.com/repilot-lsp/repilot-lsp/jsonrpc"
	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Defaults of a JDT engine (see JDTOption).
const (
	// DefaultSiteCacheSize is how many receiver sites' member lists are kept.
	DefaultSiteCacheSize = 2048
	// DefaultRequestTimeout bounds one completion request; on timeout the
	// decision is Unknown. The first completion on a fresh JDT LS, which
	// indexes the JDK, took 6 s on an idle 2-core machine and 17 s on a
	// loaded one.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultCompileTimeout bounds waiting for a text's diagnostics.
	DefaultCompileTimeout = 60 * time.Second
)

// JDTOption tunes a JDT engine.
type JDTOption func(*jdtConfig)

type jdtConfig struct {
	siteCache      int
	requestTimeout time.Duration
	compileTimeout time.Duration
}

// WithSiteCache sets how many receiver sites' member lists are cached (n <= 0
// disables the cache: every strict check then sends a completion request,
// which is how the cache's benefit is measured).
func WithSiteCache(n int) JDTOption { return func(c *jdtConfig) { c.siteCache = n } }

// WithRequestTimeout bounds each completion request (default
// DefaultRequestTimeout).
func WithRequestTimeout(d time.Duration) JDTOption {
	return func(c *jdtConfig) { c.requestTimeout = d }
}

// WithCompileTimeout bounds each CompileErrors wait (default
// DefaultCompileTimeout).
func WithCompileTimeout(d time.Duration) JDTOption {
	return func(c *jdtConfig) { c.compileTimeout = d }
}

// JDT is the strict completion engine over one shadow JDT LS for one project.
// It implements Engine and Compiler and is safe for concurrent use; requests
// to the shadow server are serialized (each sets the document text it needs,
// then asks).
type JDT struct {
	client *jdtls.Client
	cfg    jdtConfig

	// mu serializes every text change + request pair on the shadow server,
	// and guards open.
	mu    sync.Mutex
	open  map[string]*shadowDoc
	sites *lru.Cache[string, *memberList] // nil when disabled
}

// shadowDoc is a document open in the shadow server: by sessions (count) or
// by CompileErrors (compile, kept open until the next CompileErrors on
// another URI or Close). borrowed: it was already open in the client (another
// engine on the same client opened it), so this engine never closes it.
type shadowDoc struct {
	sessions int
	compile  bool
	borrowed bool
}

// memberList is JDT LS's answer at one site: the distinct names, sorted,
// what each name is (a bit set of kind* flags, from the items'
// CompletionItemKind), whether the server marked the list incomplete, and
// whether it lists packages (the receiver may be a package: a name it lacks
// may still be a package JDT LS does not list, so a miss is unknown).
type memberList struct {
	Names      []string
	Kinds      map[string]uint8
	Incomplete bool
	Packages   bool
	Verified   bool // merged from two answers (see jdtSession.verifying)
	// Types holds the declared type of names listed only as variables
	// (JDT LS labels "name : Type", 1.20 and 1.60 alike); "" when items of
	// one name disagree or a label has no type. See indexable.
	Types map[string]string
	// Arity holds, per name, the parameter counts its items' labels give
	// (arity.go); a name without an entry has unknown arity.
	Arity map[string]arity
}

// addType records typ as the declared type of value name (see Types).
func (ml *memberList) addType(name, typ string) {
	if ml.Types == nil {
		ml.Types = map[string]string{}
	}
	if old, ok := ml.Types[name]; ok && old != typ {
		typ = ""
	}
	ml.Types[name] = typ
}

// valueType returns the declared type in a variable item's label
// ("readings : List<Reading>" -> "List<Reading>"), or "".
func valueType(label string) string {
	if i := strings.Index(label, " : "); i > 0 {
		return strings.TrimSpace(label[i+3:])
	}
	return ""
}

// indexable reports whether "[" may follow name, a variable of the list:
// false only when every item named so is a variable whose declared type is
// known and is not an array type ("List<Reading>", "int", "T"); Java indexes
// arrays only (JLS 15.10.3). A type name, a method, or an unknown or
// inferred ("var") type may be followed by "[" for all the engine knows.
func (ml *memberList) indexable(name string) bool {
	if ml.Kinds[name] != kindValue {
		return true
	}
	t, ok := ml.Types[name]
	return !ok || t == "" || t == "var" || strings.HasSuffix(t, "]") || strings.HasSuffix(t, "...")
}

// union returns the names of both lists (a list that two answers merge).
func (ml *memberList) union(o *memberList) *memberList {
	out := &memberList{Incomplete: ml.Incomplete || o.Incomplete, Packages: ml.Packages || o.Packages}
	for _, l := range []*memberList{ml, o} {
		for _, n := range l.Names {
			out.add(n, l.Kinds[n])
			if t, ok := l.Types[n]; ok {
				out.addType(n, t)
			}
		}
	}
	// A name's overloads are those of both answers; a list that lists it
	// without an arity makes it unknown.
	for _, n := range out.Names {
		a := arity{varMin: -1}
		for _, l := range []*memberList{ml, o} {
			if _, listed := l.Kinds[n]; !listed {
				continue
			}
			b, ok := l.Arity[n]
			if !ok {
				b = arity{varMin: -1, bad: true}
			}
			a = a.merge(b)
		}
		if out.Arity == nil {
			out.Arity = map[string]arity{}
		}
		out.Arity[n] = a
	}
	sort.Strings(out.Names)
	return out
}

// Kind bits of a name in a memberList.
const (
	kindMethod  uint8 = 1 << iota // Method, Function
	kindValue                     // Field, Variable, Property, EnumMember, Constant (and "class")
	kindType                      // Class, Interface, Enum, Struct, TypeParameter, Constructor
	kindPackage                   // Module (JDT LS lists packages with this kind)
	kindOther                     // anything else: never used to rule a follower out
)

// kindBits maps an LSP CompletionItemKind (LSP 3.17) to a kind bit; an item
// without a kind is a method when its label has a parameter list ("greet()
// : String", JDT LS 1.20's label shape), else kindOther.
func kindBits(kind int, label string) uint8 {
	switch kind {
	case 2, 3:
		return kindMethod
	case 4:
		return kindType // a constructor (after "new"): its name is the type's
	case 5, 6, 10, 20, 21:
		return kindValue
	case 7, 8, 13, 22, 25:
		return kindType
	case 9:
		return kindPackage
	case 0:
		if i := strings.IndexByte(label, '('); i > 0 && !strings.Contains(label[:i], " ") {
			return kindMethod
		}
	}
	return kindOther
}

func (ml *memberList) add(name string, bits uint8) {
	if ml.Kinds == nil {
		ml.Kinds = map[string]uint8{}
	}
	if _, ok := ml.Kinds[name]; !ok {
		ml.Names = append(ml.Names, name)
	}
	ml.Kinds[name] |= bits
	if bits == kindPackage {
		ml.Packages = true
	}
}

// hasPrefix reports whether some name starts with ident.
func (ml *memberList) hasPrefix(ident string) bool {
	i := sort.SearchStrings(ml.Names, ident)
	return i < len(ml.Names) && strings.HasPrefix(ml.Names[i], ident)
}

// StartJDT starts a shadow JDT LS with o and waits until it reports
// ServiceReady (bounded by ctx). The engine owns the process: Close stops it.
func StartJDT(ctx context.Context, o jdtls.Options, opts ...JDTOption) (*JDT, error) {
	c, err := jdtls.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := c.WaitReady(ctx); err != nil {
		c.Kill()
		return nil, err
	}
	return NewJDT(c, opts...), nil
}

// NewJDT returns an engine over a started client (the caller keeps ownership
// of the process only if it never calls Close).
func NewJDT(c *jdtls.Client, opts ...JDTOption) *JDT {
	cfg := jdtConfig{siteCache: DefaultSiteCacheSize, requestTimeout: DefaultRequestTimeout,
		compileTimeout: DefaultCompileTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	e := &JDT{client: c, cfg: cfg, open: map[string]*shadowDoc{}}
	if cfg.siteCache > 0 {
		e.sites, _ = lru.New[string, *memberList](cfg.siteCache)
	}
	return e
}

// Client returns the shadow server's client (for timings and tests).
func (e *JDT) Client() *jdtls.Client { return e.client }

// Close shuts the shadow server down (killing it if it does not exit within
// jdtls.ShutdownGrace).
func (e *JDT) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), jdtls.ShutdownGrace)
	defer cancel()
	return e.client.Shutdown(ctx)
}

// Open starts a session for h: it opens h.URI in the shadow server with the
// text Prefix+Suffix (the hunk removed).
func (e *JDT) Open(ctx context.Context, h Hunk) (Session, error) {
	if err := e.client.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d, _, err := e.openLocked(h.URI, h.Prefix+h.Suffix)
	if err != nil {
		return nil, err
	}
	d.sessions++
	sum := sha256.Sum256([]byte(h.URI + "\x00" + h.Prefix + "\x00" + h.Suffix))
	win := newLexWindow(h.Prefix)
	return &jdtSession{e: e, h: h, id: hex.EncodeToString(sum[:12]), win: win,
		syntax: syntaxJudge{h: h, level: fileLevel(h.URI)}, stmtStart: atStatementBoundary(win)}, nil
}

// openLocked makes uri's shadow document hold text, opening it if needed,
// and returns its record and version. Called with e.mu held.
func (e *JDT) openLocked(uri, text string) (*shadowDoc, int, error) {
	if d := e.open[uri]; d != nil {
		v, err := e.client.Change(uri, text)
		return d, v, err
	}
	d := &shadowDoc{}
	var v int
	var err error
	if _, _, open := e.client.Document(uri); open {
		d.borrowed = true
		v, err = e.client.Change(uri, text)
	} else {
		v, err = e.client.Open(uri, text)
	}
	if err != nil {
		return nil, 0, err
	}
	e.open[uri] = d
	return d, v, nil
}

// release drops one user of uri; the last one closes the shadow document.
// Called with e.mu held.
func (e *JDT) releaseLocked(uri string, compile bool) {
	d := e.open[uri]
	if d == nil {
		return
	}
	if compile {
		d.compile = false
	} else if d.sessions > 0 {
		d.sessions--
	}
	if d.sessions == 0 && !d.compile {
		delete(e.open, uri)
		if !d.borrowed {
			_ = e.client.Close(uri)
		}
	}
}

// CompileErrors sets uri's shadow document to text and returns its
// error-severity diagnostics (LSP DiagnosticSeverity 1) as JDT LS publishes
// them for exactly that text (see jdtls.Client.Diagnostics for how the
// publish is matched to the text). Lines are 1-based. Nothing is written to
// disk. The document stays open for the next call on the same URI (a repair
// validates many candidates of one file) and is closed when CompileErrors
// moves to another URI.
func (e *JDT) CompileErrors(ctx context.Context, uri, text string) ([]CompileError, error) {
	if err := e.client.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.compileTimeout)
	defer cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	for other, d := range e.open {
		if other != uri && d.compile {
			e.releaseLocked(other, true)
		}
	}
	d, version, err := e.openLocked(uri, text)
	if err != nil {
		return nil, err
	}
	d.compile = true
	// JDT LS publishes a change's diagnostics after two debounced jobs (400
	// ms, then 400-2000 ms, adaptive: about 3 s per check measured under
	// load); java.project.refreshDiagnostics reconciles and publishes the
	// open document at once (0.5-1.3 s under the same load). Diagnostics
	// waits for the publish of this version either way, so a failed refresh
	// only costs the wait.
	go e.client.Call(ctx, "workspace/executeCommand", map[string]any{ //nolint:errcheck
		"command": "java.project.refreshDiagnostics", "arguments": []any{uri, "thisFile", false}})
	diags, err := e.client.Diagnostics(ctx, uri, version)
	if err != nil {
		return nil, err
	}
	var out []CompileError
	for _, d := range diags {
		if d.Severity == 1 {
			out = append(out, CompileError{Line: d.Range.Start.Line + 1, Message: d.Message})
		}
	}
	return out, nil
}

// jdtSession is one hunk's Session.
type jdtSession struct {
	e   *JDT
	h   Hunk
	id  string // hash of URI, Prefix and Suffix: the hunk identity in site keys
	win lexWindow

	checks, requests, errs, hits atomic.Int64
	closed                       atomic.Bool

	// verifying is set while a piece judged Infeasible is judged again:
	// lists are then fetched afresh and merged with the cached ones (see
	// cachedList), so that one wrong answer cannot prune on its own.
	verifying bool

	syntax syntaxJudge // decides end tokens (end.go)

	// stmtStart: the hunk starts at a statement boundary in a block, where
	// member lists may be shared per receiver type (typekey.go).
	stmtStart bool
	// recvSites maps a receiver name to the first site (dot offset and
	// text) where typeKey saw it.
	recvSites map[string]string
}

// Stats returns the session's counters.
func (s *jdtSession) Stats() Stats {
	return Stats{Checks: s.checks.Load(), Requests: s.requests.Load(), Errors: s.errs.Load(), SiteHits: s.hits.Load()}
}

// Close releases the shadow document.
func (s *jdtSession) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.e.releaseLocked(s.h.URI, false)
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
//     at a strict site must leave an argument count some overload of name
//     accepts (arity.go), else Infeasible;
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
		out, err := s.checkPiece(ctx, cur, p)
		if err == nil && out == Infeasible {
			// Prune only on two answers: JDT LS 1.60 was seen answering a
			// request with a list that lacked a member (Runnable.run) the
			// same request listed when repeated.
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
// and while verifying only one that was already verified.
func (s *jdtSession) cachedList(key string) (*memberList, bool) {
	if s.e.sites == nil {
		return nil, false
	}
	ml, ok := s.e.sites.Get(key)
	if !ok || (s.verifying && !ml.Verified) {
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
	if !settles(c) {
		return Unknown, nil
	}
	ss, ok := simpleSiteAt(s.win, cur, true)
	if ok && ss.Mode == simpleNever {
		return Infeasible, nil
	}
	if !ok || ss.Mode == simpleNone || isContextual(ss.Ident) {
		return Unknown, nil
	}
	ml, err := s.simpleNames(ctx, upto, ss)
	if err != nil || ml == nil {
		return Unknown, err
	}
	out := simpleFollower(ml, ss.Ident, c)
	if out == Unknown && c == '(' && ss.Mode == simpleNewType && ml.Kinds[ss.Ident]&kindType != 0 {
		out = Feasible // new T(
	}
	return out, nil
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
	if ml == nil || len(ml.Names) == 0 || ml.Incomplete {
		return Completions{}, nil
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
	return s.e.client.Err()
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
	key := s.id + "\x00" + strconv.Itoa(st.DotEnd) + "\x00" + gen
	if tk, ok, err := s.typeKey(ctx, cur, st); err != nil {
		return nil, err
	} else if ok {
		key = tk // shared by the sites of receivers of one type (typekey.go)
	}
	if ml, ok := s.cachedList(key); ok {
		return ml, nil
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

	s.e.mu.Lock()
	s.requests.Add(1)
	list, err := s.complete(ctx, text, pos)
	s.e.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, jdtls.ErrExited) || s.e.client.Err() != nil {
			return nil, fmt.Errorf("engine: shadow JDT LS: %w", err)
		}
		s.errs.Add(1)
		return nil, nil
	}
	if !consistent(list, text, m, st.DotEnd) {
		s.errs.Add(1) // an answer for some other text or caret: not evidence
		return nil, nil
	}
	return s.storeList(key, newMemberList(list)), nil
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

// complete sets the document text and asks for completions; e.mu is held.
func (s *jdtSession) complete(ctx context.Context, text string, pos textpos.Position) (*jdtls.CompletionList, error) {
	if _, err := s.e.client.Change(s.h.URI, text); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.e.cfg.requestTimeout)
	defer cancel()
	list, err := s.e.client.Completion(rctx, s.h.URI, pos)
	var rpcErr *jsonrpc.Error
	if err != nil && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeContentModified {
		list, err = s.e.client.Completion(rctx, s.h.URI, pos) // once more
	}
	return list, err
}

// consistent reports whether a completion list answers the request made:
// every item's edit must end at the caret and replace text that its new text
// starts with ("" for a member, "java.util." for a type completed with its
// qualifier). A list computed on another version of the document, or at
// another position, fails this; its names prove nothing.
func consistent(l *jdtls.CompletionList, text string, m *textpos.Mapper, caret int) bool {
	for _, it := range l.Items {
		if it.Edit == nil || it.Kind == jdtls.KindSnippet {
			continue
		}
		start, err1 := m.Offset(it.Edit.Range.Start)
		end, err2 := m.Offset(it.Edit.Range.End)
		if err1 != nil || err2 != nil || end != caret || start > caret ||
			!strings.HasPrefix(it.Edit.NewText, text[start:caret]) {
			return false
		}
	}
	return true
}

// newMemberList keeps the names of a completion list's items that can
// follow a dot: every kind but snippets (templates are not members).
func newMemberList(l *jdtls.CompletionList) *memberList {
	ml := &memberList{Incomplete: l.IsIncomplete}
	for _, it := range l.Items {
		if it.Name == "" || it.Kind == jdtls.KindSnippet {
			continue
		}
		bits := kindBits(it.Kind, it.Label)
		ml.add(it.Name, bits)
		n, varargs, ok := methodParams(it.Name, it.Label)
		ml.addArity(it.Name, n, varargs, ok && bits == kindMethod)
		if bits == kindValue {
			ml.addType(it.Name, valueType(it.Label))
		}
	}
	sort.Strings(ml.Names)
	return ml
}

// contains reports whether the sorted slice names holds name.
func contains(names []string, name string) bool {
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}
