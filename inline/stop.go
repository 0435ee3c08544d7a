package inline

// stop.go is where a suggestion ends: the end of the statement or line at the
// caret, or the end of the block when the caret opens one. The rule is applied
// to the model's proposals (a token that crosses the end is cut there and
// becomes the end-of-middle token), so the repair loop's guided sampling runs
// unchanged and the engine judges the end like any other.

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/lm"
)

// stopRule says where generation at one caret ends.
type stopRule struct {
	// block: the text before the caret on its line ends with "{": the
	// suggestion runs to the "}" that closes that block.
	block bool
	// closedAfter: the suffix already closes the block (its first
	// non-whitespace character is "}"), so the suggestion ends before that
	// brace instead of writing its own.
	closedAfter bool
	// lineRest: the caret's line has non-blank text after the caret, so a
	// closing bracket that the generated text did not open belongs to it.
	lineRest bool
	// midLine: the caret's line has code before the caret that does not end
	// a statement or open or close a block, so the suggestion continues that
	// line and may not start a new one.
	midLine bool
	// open: in line mode, the round and square brackets that the caret's
	// statement opened before the caret and that the text after the caret
	// does not close (openBrackets less closersAfter). The suggestion starts
	// at this depth: it must close them before its line may end, and it may
	// not end (the model's end token) while any bracket is open or inside a
	// string or character literal, since the statement could then not be
	// complete (Java has no line continuation inside a literal).
	open int
	// start is the scanner's state at the caret: inside the string,
	// character literal, text block or comment the prefix leaves open, or
	// in code, with open brackets.
	start scanner
	// heal: the part of an identifier the user typed before the caret,
	// cut from the model's prompt (heal.go): the generated text must start
	// with it, and a suggestion that is only heal is blank.
	heal string
}

// newStopRule classifies the caret between prefix and suffix.
func newStopRule(prefix, suffix string) stopRule {
	line := prefix[strings.LastIndexByte(prefix, '\n')+1:]
	rest := suffix
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	tok, inTok := javalex.TokenAt(prefix, len(prefix))
	r := stopRule{
		// A "{" in a comment or literal opens no block.
		block:    !inTok && strings.HasSuffix(strings.TrimRight(line, " \t\r"), "{"),
		lineRest: strings.TrimSpace(rest) != "",
	}
	r.closedAfter = strings.HasPrefix(strings.TrimLeft(suffix, " \t\r\n"), "}")
	before := strings.TrimSpace(line)
	r.midLine = before != "" && !strings.HasSuffix(before, ";") && !strings.HasSuffix(before, "{") && !strings.HasSuffix(before, "}")
	if !r.block {
		r.open = max(0, openBrackets(prefix)-closersAfter(suffix))
	}
	r.start = scanner{depth: r.open}
	if inTok {
		r.start.enter(tok)
	}
	return r
}

// enter sets the scanner inside tok, the literal or comment the caret is
// in (javalex.TokenAt), as if tok's text so far had been fed.
func (s *scanner) enter(tok javalex.Token) {
	text := tok.Text
	trailing := len(text) - len(strings.TrimRight(text, "\\"))
	switch javalex.ContextAt(text, len(text)) {
	case javalex.InString:
		s.quote, s.litLen, s.esc = '"', len(text)-1, trailing%2 == 1
	case javalex.InChar:
		s.quote, s.litLen, s.esc = '\'', len(text)-1, trailing%2 == 1
	case javalex.InTextBlock:
		s.text, s.esc = true, trailing%2 == 1
	case javalex.InLineComment:
		s.line = true
	case javalex.InBlockComment, javalex.InJavadoc:
		s.block = true
		if len(text) > 2 && text[len(text)-1] == '*' {
			s.prev = '*' // a "/" next closes it
		}
	}
}

// maxStatementScan bounds the text closersAfter lexes: a statement's
// continuation after the caret is far shorter.
const maxStatementScan = 8 << 10

// openBrackets returns how many "(" and "[" of prefix are unclosed at its end
// and were opened after its innermost unclosed "{" (the brackets the caret's
// statement has open; a "{" of a block, lambda body or array initializer
// starts a new count). Comments and literals are skipped (javalex). A closer
// that does not match is ignored; "}" closes through its "{".
func openBrackets(prefix string) int {
	var stack []byte
	for _, t := range javalex.LexCode(prefix) {
		if t.Kind != javalex.Operator {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			stack = append(stack, t.Text[0])
		case ")", "]":
			want := byte('(')
			if t.Text == "]" {
				want = '['
			}
			if n := len(stack); n > 0 && stack[n-1] == want {
				stack = stack[:n-1]
			}
		case "}":
			for n := len(stack); n > 0; n-- {
				if stack[n-1] == '{' {
					stack = stack[:n-1]
					break
				}
				stack = stack[:n-1]
			}
		}
	}
	n := 0
	for i := len(stack) - 1; i >= 0 && stack[i] != '{'; i-- {
		n++
	}
	return n
}

// closersAfter returns how many ")" and "]" at the start of suffix close
// brackets opened before it: those met at depth 0 before the statement
// ends (a ";" or a brace at depth 0). Only the first maxStatementScan bytes
// are read.
func closersAfter(suffix string) int {
	if len(suffix) > maxStatementScan {
		suffix = suffix[:maxStatementScan]
	}
	depth, n := 0, 0
	for _, t := range javalex.LexCode(suffix) {
		if t.Kind != javalex.Operator {
			continue
		}
		switch t.Text {
		case "(", "[":
			depth++
		case ")", "]":
			if depth == 0 {
				n++
			} else {
				depth--
			}
		case ";", "{", "}":
			if depth == 0 {
				return n
			}
			if t.Text == "{" {
				depth++
			} else if t.Text == "}" {
				depth--
			}
		}
	}
	return n
}

// scanner tracks bracket depth over generated Java text, skipping string and
// character literals and comments.
type scanner struct {
	depth        int
	quote        byte // '"' or '\'' inside a literal
	litLen       int  // bytes of the literal after its opening quote
	emptyStr     bool // the last two bytes were "" (a third opens a text block)
	text         bool // inside a text block """...""" (JLS 3.10.6)
	textQuotes   int  // consecutive unescaped '"' at the end of the text block so far
	esc          bool
	line, block  bool // inside a // or /* comment
	prev         byte
	nonBlankLine bool // the current line has non-whitespace code
	sawCode      bool // some non-whitespace text was generated
	// wrapped: in line mode, a line break in code came while a bracket
	// was open (the statement would go on on the next line).
	wrapped bool
	// overclosed: in line mode, a ")" or "]" came with no bracket of the
	// statement open (see overcloses).
	overclosed bool
}

// step feeds one byte and reports whether the suggestion ends before it.
func (s *scanner) step(r stopRule, c byte) (stopBefore bool) {
	prev := s.prev
	s.prev = c
	emptyStr := s.emptyStr
	s.emptyStr = false
	switch {
	case s.text:
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			if s.textQuotes++; s.textQuotes == 3 {
				s.text = false
			}
			return false
		}
		s.textQuotes = 0
		return false
	case s.quote != 0:
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == s.quote || c == '\n':
			s.emptyStr = c == '"' && s.litLen == 0
			s.quote = 0
			return false
		}
		s.litLen++
		return false
	case s.line:
		if c == '\n' {
			s.line = false
			return s.newline(r)
		}
		return false
	case s.block:
		if prev == '*' && c == '/' {
			s.block = false
			s.prev = 0
		}
		return false
	}
	switch c {
	case '\n':
		return s.newline(r)
	case '/':
		if prev == '/' {
			s.line = true
		}
	case '*':
		if prev == '/' {
			s.block = true
			s.prev = 0
		}
	case '"':
		if emptyStr {
			s.text, s.textQuotes = true, 0 // the third quote of """
		} else {
			s.quote, s.litLen = c, 0
		}
	case '\'':
		s.quote, s.litLen = c, 0
	case '(', '[', '{':
		s.depth++
	case ')', ']':
		if s.depth == 0 && r.lineRest && !r.block {
			return true // closes a bracket the rest of the line closes
		}
		if s.depth <= 0 && !r.block {
			s.overclosed = true
		}
		s.depth--
	case '}':
		if s.depth <= 0 {
			if r.block && !r.closedAfter {
				s.depth--
				return false // written, and the suggestion ends after it (see after)
			}
			return true
		}
		s.depth--
	}
	if c != ' ' && c != '\t' && c != '\r' {
		s.nonBlankLine, s.sawCode = true, true
	}
	return false
}

// newline handles a line break outside literals: in line mode the
// suggestion ends at the first line break at depth 0 after some code.
func (s *scanner) newline(r stopRule) bool {
	stop := !r.block && s.depth <= 0 && (s.sawCode || r.midLine)
	s.wrapped = s.wrapped || (!r.block && s.depth > 0)
	s.nonBlankLine = false
	return stop
}

// after reports whether the suggestion ends right after the byte just fed:
// the block's own closing brace was written.
func (s *scanner) after(r stopRule) bool { return r.block && !r.closedAfter && s.depth < 0 }

// scan returns the scanner after generated.
func (r stopRule) scan(generated string) scanner {
	s := r.start
	for i := 0; i < len(generated); i++ {
		s.step(r, generated[i])
	}
	return s
}

// mayEnd reports whether the model's end token may follow generated: in
// line mode, not while a bracket of the statement is open (r.open included)
// or a literal is unterminated.
func (r stopRule) mayEnd(generated string) bool {
	if r.block {
		return true
	}
	s := r.scan(generated)
	return s.depth <= 0 && s.quote == 0 && !s.text
}

// wraps reports whether tok after generated breaks the line inside a
// bracket of the statement in line mode, before the suggestion ends. Such a
// token is never proposed (apply): a line suggestion is the rest of the
// caret's line, its statement complete on it. Measured on java.logging/
// (tuning), the greedy n-gram samples that ran to MaxTokens wrapped the
// line inside the call the caret was in and repeated `\n + ".host"`.
func (r stopRule) wraps(generated, tok string) bool {
	if r.block {
		return false
	}
	s := r.scan(generated)
	for i := 0; i < len(tok); i++ {
		if s.step(r, tok[i]) || s.after(r) {
			return false
		}
		if s.wrapped {
			return true
		}
	}
	return false
}

// overcloses reports whether tok after generated writes, in line mode, a
// ")" or "]" with no bracket of the caret's statement open, before the
// suggestion ends. Such a token is never proposed (apply): the brackets open
// at the caret are the statement's since its innermost unclosed "{"
// (openBrackets) less those the lines after the caret close (closersAfter),
// so the closer would close one of those ("{" first: a "}" at depth 0 ends
// a line suggestion) or one a later line closes, and the file would not
// parse (the syntax filter, syntax.go, drops such a sample after it is
// written; on java.logging/, tuning, "));" where one "(" was open was the
// commonest unparsable sample).
func (r stopRule) overcloses(generated, tok string) bool {
	if r.block {
		return false
	}
	s := r.scan(generated)
	if s.overclosed {
		return false // already written: the engine or the check judges it
	}
	for i := 0; i < len(tok); i++ {
		if s.step(r, tok[i]) || s.after(r) {
			return false
		}
		if s.overclosed {
			return true
		}
	}
	return false
}

// cut returns where the suggestion ends within tok after generated: the
// number of bytes of tok to keep, or -1 when it does not end in tok.
func (r stopRule) cut(generated, tok string) int {
	s := r.scan(generated)
	for i := 0; i < len(tok); i++ {
		if s.step(r, tok[i]) {
			return i
		}
		if s.after(r) {
			return i + 1
		}
	}
	return -1
}

// finish trims what a suggestion must not end with: trailing whitespace (the
// suffix keeps its own line break and indentation).
func (r stopRule) finish(text string) string {
	return strings.TrimRight(text, " \t\r\n")
}

// apply rewrites one next-token distribution after generated: a token that
// does not write the healed part (healOK) is dropped; a token that
// crosses the end is cut there and made the end token; an end token is
// dropped where the suggestion may not end (mayEnd) and where the
// suggestion would be blank (a blank suggestion is never shown, so the
// model's mass goes to its other tokens instead); a token that breaks the
// line inside a bracket in line mode (wraps) is dropped; equal results
// are merged (their probabilities added). It returns the new distribution,
// best first, and for each input index its index in the output (-1 for a
// dropped candidate).
func (r stopRule) apply(generated string, dist []lm.Candidate) ([]lm.Candidate, []int) {
	out := make([]lm.Candidate, 0, len(dist))
	where := make([]int, len(dist))
	seen := map[lm.Candidate]int{}
	endOK := r.mayEnd(generated)
	for i, c := range dist {
		if !healOK(r.heal, generated, c) {
			where[i] = -1
			continue
		}
		if c.End && !endOK {
			where[i] = -1
			continue
		}
		if !c.End {
			if r.wraps(generated, c.Text) || r.overcloses(generated, c.Text) {
				where[i] = -1
				continue
			}
			if k := r.cut(generated, c.Text); k >= 0 {
				c = lm.Candidate{Text: c.Text[:k], LogProb: c.LogProb, End: true}
			}
		}
		if c.End && blank(strings.TrimPrefix(generated+c.Text, r.heal)) {
			where[i] = -1
			continue
		}
		key := lm.Candidate{Text: c.Text, End: c.End}
		if j, ok := seen[key]; ok {
			out[j].LogProb = logAdd(out[j].LogProb, c.LogProb)
			where[i] = j
			continue
		}
		seen[key] = len(out)
		where[i] = len(out)
		out = append(out, c)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return out[order[a]].LogProb > out[order[b]].LogProb })
	sorted := make([]lm.Candidate, len(out))
	pos := make([]int, len(out))
	for n, j := range order {
		sorted[n] = out[j]
		pos[j] = n
	}
	for i := range where {
		if where[i] >= 0 {
			where[i] = pos[where[i]]
		}
	}
	return sorted, where
}

// blank reports whether a suggestion's text has only whitespace.
func blank(text string) bool { return strings.TrimSpace(text) == "" }

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	m := math.Max(a, b)
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// stopSession is a model session whose proposals obey a stopRule.
type stopSession struct {
	inner lm.Session
	rule  stopRule
	calls *int64 // model requests, for Suggestion.Stats
	last  string // the text of the last request (for the trace of a sample that ends without text)
}

func (s *stopSession) Next(ctx context.Context, generated string, k int) ([]lm.Candidate, error) {
	*s.calls++
	s.last = generated
	ask := k
	if len(generated) < len(s.rule.heal) && k > 0 {
		// Healing: most of the model's best tokens do not write the typed
		// part, so look further down its list for those that do.
		ask = max(k, healK)
	}
	d, err := s.inner.Next(ctx, generated, ask)
	if err != nil {
		return nil, err
	}
	out, _ := s.rule.apply(generated, d)
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	if generated == "" && s.rule.heal != "" {
		out = withTyped(out, s.rule.heal)
	}
	return out, nil
}

// WholeWords passes the inner session's answer on (lm.WholeWords).
func (s *stopSession) WholeWords() bool {
	ww, ok := s.inner.(lm.WholeWords)
	return ok && ww.WholeWords()
}

// stopSpeculator is a stopSession over a session that proposes whole
// continuations (lm.Speculator): each proposed step is rewritten the same
// way, and the proposal ends at the first step that became the end token.
type stopSpeculator struct {
	stopSession
	sp lm.Speculator
}

func (s *stopSpeculator) Propose(ctx context.Context, generated string, opts lm.ProposeOptions) ([]lm.Step, error) {
	*s.calls++
	s.last = generated
	steps, err := s.sp.Propose(ctx, generated, opts)
	if err != nil {
		return nil, err
	}
	out := make([]lm.Step, 0, len(steps))
	g := generated
	for _, st := range steps {
		top, where := s.rule.apply(g, st.Top)
		ns := lm.Step{Top: top, Chosen: -1, Token: st.Token}
		if st.Chosen >= 0 && st.Chosen < len(where) {
			// A dropped end token (where -1) stays Chosen -1: not in Top.
			if ns.Chosen = where[st.Chosen]; ns.Chosen >= 0 {
				ns.Token = top[ns.Chosen]
			}
		} else if !st.Token.End {
			if s.rule.wraps(g, st.Token.Text) {
				out = append(out, ns) // Chosen -1: drawn from Top, which has no such token
				break
			}
			if k := s.rule.cut(g, st.Token.Text); k >= 0 {
				if blank(g + st.Token.Text[:k]) {
					out = append(out, ns) // Chosen -1: drawn from Top, which has no blank end
					break
				}
				ns.Token = lm.Candidate{Text: st.Token.Text[:k], LogProb: st.Token.LogProb, End: true}
			}
		}
		out = append(out, ns)
		if ns.Token.End || ns.Chosen < 0 {
			break
		}
		g += ns.Token.Text
	}
	return out, nil
}

// wrap returns inner with rule applied, keeping its optional interfaces,
// and a function that returns the text of the session's last request.
func wrap(inner lm.Session, rule stopRule, calls *int64) (lm.Session, func() string) {
	s := stopSession{inner: inner, rule: rule, calls: calls}
	if sp, ok := inner.(lm.Speculator); ok {
		ss := &stopSpeculator{stopSession: s, sp: sp}
		return ss, func() string { return ss.last }
	}
	return &s, func() string { return s.last }
}
