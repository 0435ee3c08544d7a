// completion.go asks textDocument/completion and normalizes the items of JDT
// LS 1.20 (labels with signatures, textEdit) and 1.45+ (labelDetails,
// itemDefaults.editRange, textEditText) into one shape.

package jdtls

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/repilot-lsp/repilot-lsp/javalex"
	"github.com/repilot-lsp/repilot-lsp/textpos"
	"go.lsp.dev/protocol"
)

// CompletionItem is one completion, normalized across JDT LS versions.
type CompletionItem struct {
	// Name is the identifier the item inserts: "greet" for a method item
	// labelled "greet() : String" (1.20) or "greet" with labelDetails (1.45+).
	// It is empty when the inserted text does not start with an identifier.
	Name string
	// Kind is the LSP CompletionItemKind (2 Method, 5 Field, 7 Class, 14
	// Keyword, 15 Snippet, ...; LSP 3.17 "CompletionItemKind").
	Kind int
	// Label is the label as the server sent it, with labelDetails appended.
	Label string
	// Detail is the item's detail (a signature or a type), possibly empty.
	Detail string
	// Edit is the edit the item applies (see normalizeItem), or nil.
	Edit *TextEdit
}

// TextEdit is an LSP TextEdit (LSP 3.17 "TextEdit"): replace Range with
// NewText (snippet syntax removed).
type TextEdit struct {
	Range   Range
	NewText string
}

// Completion item kinds used by callers (LSP 3.17 "CompletionItemKind").
const (
	KindMethod  = 2
	KindField   = 5
	KindKeyword = 14
	KindSnippet = 15
)

// CompletionList is the normalized answer to textDocument/completion (LSP
// 3.17 "Completion Request", CompletionList).
// IsIncomplete is the server's flag: the list may lack items that further
// typing would bring.
type CompletionList struct {
	Items        []CompletionItem
	IsIncomplete bool
}

// Completion asks textDocument/completion at pos in the open document uri
// and normalizes the answer (either shape: a CompletionList or an item
// array; see normalizeItem for the item shapes). A null result is an empty
// list. A negative pos is an error (LSP positions are unsigned).
func (c *Client) Completion(ctx context.Context, uri string, pos textpos.Position) (*CompletionList, error) {
	if pos.Line < 0 || pos.Character < 0 {
		return nil, fmt.Errorf("jdtls: completion at a negative position %d:%d", pos.Line, pos.Character)
	}
	start := time.Now()
	raw, err := c.call(ctx, "textDocument/completion", protocol.CompletionParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
			Position:     protocol.Position{Line: uint32(pos.Line), Character: uint32(pos.Character)},
		},
		Context: &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindInvoked},
	})
	if err != nil {
		return nil, err
	}
	el := time.Since(start)
	c.mu.Lock()
	c.timings.Completions++
	c.timings.CompletionTotal += el
	if el > c.timings.CompletionMax {
		c.timings.CompletionMax = el
	}
	c.mu.Unlock()
	return ParseCompletion(raw)
}

// wireItem is a CompletionItem as JDT LS sends it (LSP 3.17 "CompletionItem").
type wireItem struct {
	Label        string `json:"label"`
	LabelDetails *struct {
		Detail      string `json:"detail"`
		Description string `json:"description"`
	} `json:"labelDetails"`
	Kind             int    `json:"kind"`
	Detail           string `json:"detail"`
	FilterText       string `json:"filterText"`
	InsertText       string `json:"insertText"`
	InsertTextFormat int    `json:"insertTextFormat"`
	TextEditText     string `json:"textEditText"`
	TextEdit         *struct {
		Range   *Range `json:"range"`
		NewText string `json:"newText"`
	} `json:"textEdit"`
}

// itemDefaults are a CompletionList's defaults (LSP 3.17
// "CompletionList.itemDefaults"; editRange as a plain Range, since the
// client declares no insertReplaceSupport).
type itemDefaults struct {
	InsertTextFormat int    `json:"insertTextFormat"`
	EditRange        *Range `json:"editRange"`
}

// ParseCompletion decodes a textDocument/completion result (null, an item
// array, or a CompletionList with optional itemDefaults; LSP 3.17
// "Completion Request") into a normalized CompletionList; null or empty gives
// an empty list. The error (prefixed "jdtls: completion result") is JSON's,
// for a result of neither shape.
func ParseCompletion(raw json.RawMessage) (*CompletionList, error) {
	out := &CompletionList{}
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return out, nil
	}
	var items []wireItem
	defaults := &itemDefaults{}
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("jdtls: completion result: %w", err)
		}
	} else {
		var l struct {
			IsIncomplete bool          `json:"isIncomplete"`
			Items        []wireItem    `json:"items"`
			ItemDefaults *itemDefaults `json:"itemDefaults"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("jdtls: completion result: %w", err)
		}
		out.IsIncomplete = l.IsIncomplete
		items = l.Items
		if l.ItemDefaults != nil {
			defaults = l.ItemDefaults
		}
	}
	out.Items = make([]CompletionItem, 0, len(items))
	for _, it := range items {
		out.Items = append(out.Items, normalizeItem(it, defaults))
	}
	return out, nil
}

// normalizeItem derives the inserted identifier of an item. The sources, in
// order: textEditText (1.45+, with itemDefaults.editRange), textEdit.newText
// (1.20), insertText, filterText, label; the first that yields an identifier
// wins. Snippet syntax is removed, then the leading (possibly qualified) Java
// name is taken and its last segment kept: "greet() : String" -> "greet",
// "java.util.AbstractCollection" (a type completed after "java.util.", whose
// edit replaces the qualifier too) -> "AbstractCollection".
//
// Edit is the item's own textEdit (1.20), or the list's editRange with
// textEditText, insertText or label as new text (LSP 3.17 itemDefaults), with
// snippet syntax removed; nil when the item has neither.
func normalizeItem(it wireItem, defaults *itemDefaults) CompletionItem {
	label := it.Label
	if it.LabelDetails != nil {
		label += it.LabelDetails.Detail
		if it.LabelDetails.Description != "" {
			label += " : " + it.LabelDetails.Description
		}
	}
	format := it.InsertTextFormat
	if format == 0 {
		format = defaults.InsertTextFormat
	}
	name := ""
	for _, src := range []string{it.TextEditText, textEditNew(it), it.InsertText, it.FilterText, it.Label} {
		if src == "" {
			continue
		}
		if format == 2 {
			src = stripSnippet(src)
		}
		if name = lastSegment(strings.TrimLeft(src, " \t")); name != "" {
			break
		}
	}
	var edit *TextEdit
	switch {
	case it.TextEdit != nil && it.TextEdit.Range != nil:
		edit = &TextEdit{Range: *it.TextEdit.Range, NewText: it.TextEdit.NewText}
	case defaults.EditRange != nil:
		text := it.TextEditText
		if text == "" {
			text = it.InsertText
		}
		if text == "" {
			text = it.Label
		}
		edit = &TextEdit{Range: *defaults.EditRange, NewText: text}
	}
	if edit != nil && format == 2 {
		edit.NewText = stripSnippet(edit.NewText)
	}
	return CompletionItem{Name: name, Kind: it.Kind, Label: label, Detail: it.Detail, Edit: edit}
}

// lastSegment returns the last identifier of the dotted name s starts with
// ("java.util.List<T>" -> "List", "greet()" -> "greet", "(x)" -> "").
func lastSegment(s string) string {
	last := ""
	for {
		id := leadingIdent(s)
		if id == "" {
			return last
		}
		last = id
		s = s[len(id):]
		if !strings.HasPrefix(s, ".") {
			return last
		}
		s = s[1:]
	}
}

func textEditNew(it wireItem) string {
	if it.TextEdit == nil {
		return ""
	}
	return it.TextEdit.NewText
}

// stripSnippet removes LSP snippet syntax ("greet(${1:name})$0" ->
// "greet(name)"): tab stops, placeholders (keeping their text) and escapes.
func stripSnippet(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case ch == '$' && i+1 < len(s) && s[i+1] == '{':
			// ${n:text} or ${n|a,b|}: keep text / first choice.
			j := i + 2
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == ':' {
				i = j // the text follows; the closing brace is dropped below
			} else {
				k := strings.IndexByte(s[j:], '}')
				if k < 0 {
					return b.String()
				}
				i = j + k
			}
		case ch == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
		case ch == '}':
			// closing a placeholder (unescaped braces in Java text are rare in
			// completion inserts; they cannot be part of an identifier anyway)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// leadingIdent returns the longest prefix of s that is a Java identifier
// (JLS 3.8, as javalex decides identifier characters).
func leadingIdent(s string) string {
	for i, r := range s {
		if !javalex.IsIdentPart(r) || (i == 0 && !javalex.IsIdentStart(r)) {
			return s[:i]
		}
	}
	return s
}
