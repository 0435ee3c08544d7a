package units

// golang.go walks tree-sitter-go trees: functions become Function units,
// methods Method units (Container = receiver type), type specs Class units.
// The doc comment is the run of comments ending on the line directly above
// the declaration (go/doc conventions).

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

func (b *builder) goFile(root *sitter.Node) {
	count := int(root.NamedChildCount())
	var comments []*sitter.Node // the current run of adjacent comment lines
	for i := 0; i < count; i++ {
		c := root.NamedChild(i)
		if c.Type() == "comment" {
			if len(comments) > 0 && comments[len(comments)-1].EndPoint().Row+1 < c.StartPoint().Row {
				comments = comments[:0]
			}
			comments = append(comments, c)
			continue
		}
		doc := ""
		if n := len(comments); n > 0 && comments[n-1].EndPoint().Row+1 == c.StartPoint().Row {
			doc = b.goDoc(comments)
		}
		comments = comments[:0]
		switch c.Type() {
		case "function_declaration", "method_declaration":
			b.goFunc(c, doc)
		case "type_declaration":
			b.goTypes(c, doc)
		}
	}
}

func (b *builder) goDoc(comments []*sitter.Node) string {
	var parts []string
	for _, c := range comments {
		parts = append(parts, b.text(c))
	}
	return CleanGoDoc(strings.Join(parts, "\n"))
}

func (b *builder) goFunc(n *sitter.Node, doc string) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	sig := b.text(n)
	if body := n.ChildByFieldName("body"); body != nil {
		sig = string(b.src[n.StartByte():body.StartByte()])
	}
	u := Unit{Kind: Function, Name: b.text(name), Signature: collapse(sig), Doc: doc, Code: b.text(n)}
	if recv := n.ChildByFieldName("receiver"); recv != nil {
		u.Kind = Method
		u.Container = goReceiverType(b.text(recv))
	}
	b.add(u, int(n.StartByte()), int(n.EndByte()))
}

// goReceiverType turns "(s *Server[T])" into "Server".
func goReceiverType(recv string) string {
	r := strings.Trim(recv, "() \t\n")
	if i := strings.IndexAny(r, " \t"); i >= 0 {
		r = r[i+1:]
	}
	r = strings.TrimLeft(strings.TrimSpace(r), "*")
	if i := strings.IndexByte(r, '['); i >= 0 {
		r = r[:i]
	}
	return r
}

func (b *builder) goTypes(decl *sitter.Node, doc string) {
	count := int(decl.NamedChildCount())
	grouped := false
	for i := 0; i < count; i++ {
		if decl.NamedChild(i).Type() == "comment" {
			grouped = true
		}
	}
	var comments []*sitter.Node
	for i := 0; i < count; i++ {
		s := decl.NamedChild(i)
		if s.Type() == "comment" {
			comments = append(comments, s)
			continue
		}
		if s.Type() != "type_spec" && s.Type() != "type_alias" {
			comments = comments[:0]
			continue
		}
		name := s.ChildByFieldName("name")
		if name == nil {
			continue
		}
		d := doc
		if n := len(comments); (grouped || count > 1) && n > 0 && comments[n-1].EndPoint().Row+1 == s.StartPoint().Row {
			d = b.goDoc(comments)
		}
		comments = comments[:0]
		text := b.text(s)
		sig := "type " + collapse(text)
		if i := strings.IndexAny(sig, "{"); i >= 0 {
			sig = strings.TrimSpace(sig[:i])
		}
		start, end := int(s.StartByte()), int(s.EndByte())
		if count == 1 {
			start, end = int(decl.StartByte()), int(decl.EndByte())
			text = b.text(decl)
		} else {
			text = "type " + text
		}
		b.add(Unit{Kind: Class, Name: b.text(name), Signature: sig, Doc: d, Code: text}, start, end)
	}
}
