package units

// doc.go cleans doc comments into plain text and takes their first
// sentence (the query of the CodeSearchNet-style benchmark).

import (
	"html"
	"regexp"
	"strings"
)

var (
	javadocInline  = regexp.MustCompile(`\{@(?:code|literal|link|linkplain|value|systemProperty|index)\s+([^{}]*)\}`)
	javadocInherit = regexp.MustCompile(`\{@inheritDoc\}`)
	htmlTag        = regexp.MustCompile(`</?[a-zA-Z][^<>]*>`)
)

// CleanJavadoc turns a /** ... */ comment into text: the comment markers and
// leading asterisks are removed, inline tags ({@code x}, {@link A#b}) become
// their text (links with "#" replaced by "."), HTML tags are dropped and
// entities decoded. Block tags (@param ...) are kept on their own lines.
func CleanJavadoc(c string) string {
	c = strings.TrimPrefix(c, "/**")
	c = strings.TrimSuffix(c, "*/")
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "*")
		lines[i] = strings.TrimSpace(l)
	}
	c = strings.Join(lines, "\n")
	c = javadocInherit.ReplaceAllString(c, "")
	c = javadocInline.ReplaceAllStringFunc(c, func(m string) string {
		sub := javadocInline.FindStringSubmatch(m)[1]
		if strings.HasPrefix(m, "{@link") {
			// {@link Foo#bar(int, long) label}: prefer the label, else the target.
			sub = strings.TrimSpace(sub)
			end := strings.IndexByte(sub, ' ')
			if p := strings.IndexByte(sub, '('); p >= 0 && (end < 0 || p < end) {
				if q := strings.IndexByte(sub, ')'); q > p {
					end = q + 1
					if end == len(sub) {
						end = -1
					}
				}
			}
			if end >= 0 {
				if label := strings.TrimSpace(sub[end:]); label != "" {
					return label
				}
				sub = sub[:end]
			}
			if i := strings.IndexByte(sub, '('); i >= 0 {
				sub = sub[:i]
			}
			sub = strings.TrimPrefix(strings.ReplaceAll(sub, "#", "."), ".")
		}
		return sub
	})
	c = htmlTag.ReplaceAllString(c, "")
	c = html.UnescapeString(c)
	return strings.TrimSpace(c)
}

// CleanDocstring turns a Python string literal (with its quotes and prefix)
// into its text, dedented like inspect.cleandoc (PEP 257).
func CleanDocstring(lit string) string {
	s := strings.TrimLeft(lit, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	lines := strings.Split(strings.ReplaceAll(s, "\t", "        "), "\n")
	indent := -1
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " ")
		if t == "" {
			continue
		}
		if d := len(l) - len(t); indent < 0 || d < indent {
			indent = d
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
		lines[i] = strings.TrimRight(lines[i], " \r")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// CleanGoDoc turns // or /* */ comment text into plain text.
func CleanGoDoc(c string) string {
	lines := strings.Split(c, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "//"):
			l = strings.TrimPrefix(l, "//")
		case strings.HasPrefix(l, "/*"):
			l = strings.TrimSuffix(strings.TrimPrefix(l, "/*"), "*/")
		}
		if strings.HasPrefix(strings.TrimSpace(l), "go:") || strings.HasPrefix(l, "line ") {
			continue // directives
		}
		out = append(out, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// Description is the part of a cleaned doc before its first block tag
// (a line starting with "@", Javadoc) or, for docstrings, its first paragraph.
func Description(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "@") || (t == "" && b.Len() > 0) {
			break
		}
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// FirstSentence returns the first sentence of a cleaned doc comment, the
// javadoc tool's way: the description up to the first period followed by
// white space (or its end), skipping the abbreviations "e.g." "i.e." "etc."
// and "vs.". The result has collapsed white space.
func FirstSentence(doc string) string {
	d := collapse(Description(doc))
	for i := 0; i < len(d); i++ {
		if d[i] != '.' || (i+1 < len(d) && d[i+1] != ' ') {
			continue
		}
		low := strings.ToLower(d[:i+1])
		if strings.HasSuffix(low, "e.g.") || strings.HasSuffix(low, "i.e.") ||
			strings.HasSuffix(low, " etc.") || strings.HasSuffix(low, " vs.") {
			continue
		}
		return d[:i+1]
	}
	return d
}
