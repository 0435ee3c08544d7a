package units

// java.go walks tree-sitter-java trees: type declarations (class, interface,
// enum, record, annotation type) become Class units, methods and
// constructors become Method and Constructor units. Code a developer asks
// about below that level is cut out too, each with a readable qualified
// name:
//   - an enum constant with a body is a Class unit named by the constant
//     (Op.PLUS), its methods Method units in it (Op.PLUS.apply);
//   - a field or constant initialised with an anonymous class is a Class
//     unit named by the field (TypeAdapters.BOOLEAN), its methods Method
//     units in it (TypeAdapters.BOOLEAN.read);
//   - a field or constant initialised with a lambda is a Method unit named
//     by the field (Comparators.BY_LENGTH);
//   - the methods of an anonymous class inside a method are Method units
//     in that method (TypeAdapters.newFactory.create), and a local class
//     is a Class unit there (Outer.run.Helper).
//
// The enclosing unit's Code still holds that text (a method's body
// includes its anonymous classes). The Javadoc comment is
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
				if body := c.ChildByFieldName("body"); body != nil {
					b.javaBody(c, body, b.text(name), container, doc)
				}
			}
		case t == "field_declaration" || t == "constant_declaration":
			lines = append(lines, clip(collapse(b.text(c)), 200))
			b.javaField(c, container, doc)
		case t == "annotation_type_element_declaration":
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
	if n.Type() == "compact_constructor_declaration" {
		// "public Discount {": its parameters are the record's components.
		if p := javaRecordParams(n); p != nil {
			sig += collapse(b.text(p))
		}
	}
	u := Unit{Kind: kind, Name: b.text(nameNode), Container: container, Signature: sig, Code: b.text(n)}
	if doc != nil {
		u.Doc = CleanJavadoc(b.text(doc))
	}
	b.add(u, int(n.StartByte()), int(n.EndByte()))
	if body := n.ChildByFieldName("body"); body != nil {
		b.javaNested(body, join(container, u.Name))
	}
	return sig + ";"
}

// javaRecordParams returns the component list ("(String code, int
// percent)") of the record whose body holds the compact constructor n, or
// nil. A compact constructor declares no parameters: it takes the
// record's components (JLS 17 section 8.10.4.2).
func javaRecordParams(n *sitter.Node) *sitter.Node {
	body := n.Parent()
	if body == nil {
		return nil
	}
	rec := body.Parent()
	if rec == nil || rec.Type() != "record_declaration" {
		return nil
	}
	if p := rec.ChildByFieldName("parameters"); p != nil {
		return p
	}
	count := int(rec.NamedChildCount())
	for i := 0; i < count; i++ {
		if c := rec.NamedChild(i); c.Type() == "formal_parameters" {
			return c
		}
	}
	return nil
}

// javaBody adds a Class unit named name for a class body that has no type
// declaration of its own (an enum constant's, an anonymous class's), with
// units for its members; decl is the node the unit spans (the constant,
// the field).
func (b *builder) javaBody(decl, body *sitter.Node, name, container string, doc *sitter.Node) {
	header := collapse(string(b.src[decl.StartByte():body.StartByte()]))
	u := Unit{Kind: Class, Name: name, Container: container, Signature: header}
	if doc != nil {
		u.Doc = CleanJavadoc(b.text(doc))
	}
	idx := b.add(u, int(decl.StartByte()), int(decl.EndByte()))
	b.units[idx].Code = outline(header, b.javaMembers(body, join(container, name)))
}

// javaField adds units for a field's initialisers: an anonymous class
// (javaBody) or a lambda (a Method unit) named by the field; anonymous
// classes deeper in an initialiser go to javaNested.
func (b *builder) javaField(n *sitter.Node, container string, doc *sitter.Node) {
	var decls []*sitter.Node
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		if c := n.NamedChild(i); c.Type() == "variable_declarator" {
			decls = append(decls, c)
		}
	}
	for _, d := range decls {
		name, value := d.ChildByFieldName("name"), d.ChildByFieldName("value")
		if name == nil || value == nil {
			continue
		}
		span := d // the unit spans the whole field when it declares one variable
		if len(decls) == 1 {
			span = n
		}
		switch value.Type() {
		case "object_creation_expression":
			if body := javaAnonBody(value); body != nil {
				b.javaBody(span, body, b.text(name), container, doc)
				continue
			}
		case "lambda_expression":
			sig := b.text(span)
			if lb := value.ChildByFieldName("body"); lb != nil {
				sig = string(b.src[span.StartByte():lb.StartByte()])
			}
			u := Unit{Kind: Method, Name: b.text(name), Container: container, Signature: collapse(sig), Code: b.text(span)}
			if doc != nil {
				u.Doc = CleanJavadoc(b.text(doc))
			}
			b.add(u, int(span.StartByte()), int(span.EndByte()))
			if lb := value.ChildByFieldName("body"); lb != nil {
				b.javaNested(lb, join(container, u.Name))
			}
			continue
		}
		b.javaNested(value, join(container, b.text(name)))
	}
}

// javaAnonBody returns the class body of an anonymous class creation
// ("new T() { ... }"), or nil.
func javaAnonBody(n *sitter.Node) *sitter.Node {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		if c := n.NamedChild(i); c.Type() == "class_body" {
			return c
		}
	}
	return nil
}

// javaNested finds anonymous classes and local classes in code (a method
// body, an initialiser) and adds their members' units with container
// owner. It does not descend into the bodies it hands on: javaMembers
// walks them.
func (b *builder) javaNested(n *sitter.Node, owner string) {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		switch t := c.Type(); {
		case t == "object_creation_expression":
			if body := javaAnonBody(c); body != nil {
				b.javaMembers(body, owner)
				continue
			}
		case javaTypeDecls[t]:
			b.javaType(c, owner, nil)
			continue
		}
		b.javaNested(c, owner)
	}
}
