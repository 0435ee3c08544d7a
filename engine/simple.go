package engine

// simple.go asks JDT LS which names are visible at a simple name (an
// identifier not after a dot): locals, fields, methods, types (JDK types not
// yet imported included: JDT LS offers them with an auto-import, and the
// engine counts them as feasible), and packages. Lists are fetched with the
// identifier typed, so that JDT LS filters them and they stay small, and
// cached per site: a list fetched for prefix "fo" answers later checks of
// "foo" and "fooBar" at the same site locally.

import (
	"context"
	"errors"
	"fmt"
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
func (s *jdtSession) simpleNames(ctx context.Context, cur string, ss simpleSite) (*memberList, error) {
	full := s.h.Prefix + cur
	identEnd := ss.IdentStart + len(ss.Ident)
	if ss.IdentStart < len(s.h.Prefix) || identEnd > len(full) || ss.Ident == "" {
		return nil, nil // the name starts in the prefix: not this hunk's to judge
	}
	base := s.id + "\x00s\x00" + strconv.Itoa(ss.IdentStart) + "\x00" + ss.Mode.String() + "\x00" + full[len(s.h.Prefix):ss.IdentStart] + "\x00"
	for k := len(ss.Ident); k >= 1; k-- {
		if ml, ok := s.cachedList(base + ss.Ident[:k]); ok && (k == len(ss.Ident) || !ml.Incomplete) {
			if ml.empty() {
				break // re-confirm below (the probe may be cached too)
			}
			return ml.filter(ss.Ident), nil
		}
	}
	ml, err := s.fetchSimple(ctx, full, ss, ss.Ident, base)
	if err != nil || ml == nil {
		return nil, err
	}
	if ml.empty() && !ml.Incomplete && len(ss.Ident) > 1 {
		// The answer for the identifier's first character must list
		// something (JDT LS is working here) and, since it includes every
		// name the full identifier's answer would, it is the answer: JDT LS
		// 1.60 once answered a freshly opened file with an empty list that
		// lacked a statically imported method the next request listed.
		probe, err := s.fetchSimple(ctx, full, ss, ss.Ident[:1], base)
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
	if ml, ok := s.cachedList(base + q); ok {
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
	text += s.suffixAfterCaret()
	m := textpos.New(text)
	kind := "simple"
	if q != ss.Ident {
		kind = "simple-probe"
	}
	list, err := s.request(ctx, kind, text, m.Position(caret))
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
	ml, ok := newSimpleList(list, text, m, ss.IdentStart, caret)
	if !ok {
		s.errs.Add(1)
		return nil, nil
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
