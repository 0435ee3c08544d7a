package units

// python.go walks tree-sitter-python trees: module-level functions become
// Function units, functions in a class body Method units, classes Class
// units. Functions nested in functions stay part of their parent's code. The
// docstring is a string literal that is the first statement of the body
// (PEP 257); it is cut out of Code and cleaned into Doc like
// inspect.cleandoc.

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// pyBlock walks the statements of a module, class or function body
// (inClass: a class body); it returns one outline line per member, for the
// enclosing class.
func (b *builder) pyBlock(n *sitter.Node, container string, inClass bool) []string {
	var lines []string
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		def, start := c, c
		if c.Type() == "decorated_definition" {
			def = c.ChildByFieldName("definition")
			if def == nil {
				continue
			}
		}
		switch def.Type() {
		case "function_definition":
			lines = append(lines, b.pyFunction(def, start, container, inClass))
		case "class_definition":
			lines = append(lines, b.pyClass(def, start, container))
		case "expression_statement":
			// Class attributes; string statements (the docstring) stay out.
			if inClass && !(c.NamedChildCount() == 1 && strings.Contains(c.NamedChild(0).Type(), "string")) {
				lines = append(lines, clip(collapse(b.text(c)), 200))
			}
		case "if_statement", "try_statement", "with_statement":
			// Conditional definitions (if sys.platform == ...: def f(): ...).
			lines = append(lines, b.pyCompound(def, container, inClass)...)
		}
	}
	return lines
}

// pyCompound walks the blocks of a compound statement for definitions.
func (b *builder) pyCompound(n *sitter.Node, container string, inClass bool) []string {
	var lines []string
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "block":
			lines = append(lines, b.pyBlock(c, container, inClass)...)
		case "elif_clause", "else_clause", "except_clause", "finally_clause":
			lines = append(lines, b.pyCompound(c, container, inClass)...)
		}
	}
	return lines
}

// pyHeader is the text of a def or class from its keyword to the body, without
// the colon.
func (b *builder) pyHeader(def *sitter.Node) string {
	end := def.EndByte()
	// The header ends at the ":" token before the body (a comment may sit
	// between them).
	count := int(def.ChildCount())
	for i := count - 1; i >= 0; i-- {
		if c := def.Child(i); c.Type() == ":" {
			end = c.StartByte()
			break
		}
	}
	return collapse(string(b.src[def.StartByte():end]))
}

// pyDocstring returns the docstring statement of a body, or nil.
func pyDocstring(body *sitter.Node) *sitter.Node {
	if body == nil {
		return nil
	}
	count := int(body.NamedChildCount())
	for i := 0; i < count; i++ {
		c := body.NamedChild(i)
		if c.Type() == "comment" {
			continue
		}
		if c.Type() == "expression_statement" && c.NamedChildCount() == 1 {
			if s := c.NamedChild(0); s.Type() == "string" || s.Type() == "concatenated_string" {
				return c
			}
		}
		return nil
	}
	return nil
}

// pyCode returns the source of [start, end) with the docstring statement ds
// (if any) cut out together with its line's indentation and line break.
func (b *builder) pyCode(start, end int, ds *sitter.Node) (code, doc string) {
	if ds == nil {
		return string(b.src[start:end]), ""
	}
	doc = CleanDocstring(string(b.src[ds.StartByte():ds.EndByte()]))
	cutStart, cutEnd := int(ds.StartByte()), int(ds.EndByte())
	ls := cutStart
	for ls > start && (b.src[ls-1] == ' ' || b.src[ls-1] == '\t') {
		ls--
	}
	if ls > start && b.src[ls-1] == '\n' {
		cutStart = ls
		le := cutEnd
		for le < end && (b.src[le] == ' ' || b.src[le] == '\t' || b.src[le] == '\r') {
			le++
		}
		if le < end && b.src[le] == '\n' {
			cutEnd = le + 1
		} else if le == end {
			cutStart-- // the docstring ends the unit: drop the line break before it
			cutEnd = end
		}
	}
	return string(b.src[start:cutStart]) + string(b.src[cutEnd:end]), doc
}

func (b *builder) pyFunction(def, start *sitter.Node, container string, inClass bool) string {
	name := def.ChildByFieldName("name")
	if name == nil {
		return ""
	}
	kind := Function
	if inClass {
		kind = Method
	}
	sig := b.pyHeader(def)
	body := def.ChildByFieldName("body")
	code, doc := b.pyCode(int(start.StartByte()), int(start.EndByte()), pyDocstring(body))
	b.add(Unit{Kind: kind, Name: b.text(name), Container: container, Signature: sig, Doc: doc, Code: code},
		int(start.StartByte()), int(start.EndByte()))
	if body != nil {
		b.pyBlock(body, join(container, b.text(name)), false)
	}
	return sig
}

func (b *builder) pyClass(def, start *sitter.Node, container string) string {
	nameNode := def.ChildByFieldName("name")
	if nameNode == nil {
		return ""
	}
	name := b.text(nameNode)
	header := b.pyHeader(def)
	body := def.ChildByFieldName("body")
	_, doc := b.pyCode(int(start.StartByte()), int(start.EndByte()), pyDocstring(body))
	idx := b.add(Unit{Kind: Class, Name: name, Container: container, Signature: header, Doc: doc},
		int(start.StartByte()), int(start.EndByte()))
	var members []string
	if body != nil {
		members = b.pyBlock(body, join(container, name), true)
	}
	var code strings.Builder
	code.WriteString(header)
	code.WriteString(":\n")
	for _, m := range members {
		code.WriteString("    ")
		code.WriteString(m)
		code.WriteByte('\n')
	}
	b.units[idx].Code = strings.TrimSuffix(code.String(), "\n")
	return header
}
