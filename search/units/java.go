package units

// java.go walks tree-sitter-java trees: type declarations (class, interface,
// enum, record, annotation type) become Class units, methods and
// constructors become Method and Constructor units. The Javadoc comment is
// the block comment starting with "/**" directly before a declaration (Java
// Language Specification and the javadoc tool: "a doc comment is placed
// immediately before the declaration").

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var javaTypeDecls = map[string]bool{
	"class_declaration":           true,
	"interface_declaration":       true,
	"enum_declaration":            true,
	"record_declaration":          true,
	"annotation_type_declaration": true,
}

// javaMembers walks the declarations directly inside n (a program or a type
// body) and returns one outline line per member, for the enclosing class.
func (b *builder) javaMembers(n *sitter.Node, container string) []string {
	var lines []string
	var doc *sitter.Node // pending Javadoc comment
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		t := c.Type()
		switch {
		case t == "block_comment":
			if strings.HasPrefix(b.text(c), "/**") {
				doc = c
			} else {
				doc = nil
			}
			continue
		case t == "line_comment":
			continue // does not separate a Javadoc from its declaration
		case javaTypeDecls[t]:
			lines = append(lines, b.javaType(c, container, doc))
		case t == "method_declaration" || t == "constructor_declaration" || t == "compact_constructor_declaration":
			lines = append(lines, b.javaMethod(c, container, doc))
		case t == "enum_body_declarations":
			lines = append(lines, b.javaMembers(c, container)...)
		case t == "enum_constant":
			if name := c.ChildByFieldName("name"); name != nil {
				lines = append(lines, b.text(name)+",")
			}
		case t == "field_declaration" || t == "constant_declaration" || t == "annotation_type_element_declaration":
			lines = append(lines, clip(collapse(b.text(c)), 200))
		}
		doc = nil
	}
	return lines
}

// javaType adds a Class unit for a type declaration and units for its members;
// it returns the declaration's header for the enclosing outline.
func (b *builder) javaType(n *sitter.Node, container string, doc *sitter.Node) string {
	nameNode := n.ChildByFieldName("name")
	if nameNode == nil {
		return ""
	}
	name := b.text(nameNode)
	body := n.ChildByFieldName("body")
	end := int(n.EndByte())
	header := b.text(n)
	if body != nil {
		header = string(b.src[n.StartByte():body.StartByte()])
	}
	header = collapse(header)
	u := Unit{Kind: Class, Name: name, Container: container, Signature: header}
	if doc != nil {
		u.Doc = CleanJavadoc(b.text(doc))
	}
	idx := b.add(u, int(n.StartByte()), end)
	var members []string
	if body != nil {
		members = b.javaMembers(body, join(container, name))
	}
	b.units[idx].Code = outline(header, members)
	return header
}

// javaMethod adds a Method or Constructor unit; it returns its signature.
func (b *builder) javaMethod(n *sitter.Node, container string, doc *sitter.Node) string {
	nameNode := n.ChildByFieldName("name")
	if nameNode == nil {
		return ""
	}
	kind := Method
	if n.Type() != "method_declaration" {
		kind = Constructor
	}
	sig := b.text(n)
	if body := n.ChildByFieldName("body"); body != nil {
		sig = string(b.src[n.StartByte():body.StartByte()])
	}
	sig = strings.TrimSuffix(collapse(sig), ";")
	u := Unit{Kind: kind, Name: b.text(nameNode), Container: container, Signature: sig, Code: b.text(n)}
	if doc != nil {
		u.Doc = CleanJavadoc(b.text(doc))
	}
	b.add(u, int(n.StartByte()), int(n.EndByte()))
	return sig + ";"
}
