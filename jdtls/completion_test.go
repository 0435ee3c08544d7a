package jdtls

// completion_test.go tests item normalization on completion results captured
// from JDT LS 1.20 and 1.60, and the snippet and name helpers.

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/repilot-lsp/repilot-lsp/textpos"
)

// Items as JDT LS 1.20 sends them (captured; "data" and "command" trimmed).
const completion120 = `{"isIncomplete":false,"items":[
{"label":"greet() : String","kind":2,"detail":"Greeter.greet() : String","sortText":"999999035","insertText":"greet","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"greet"}},
{"label":"setName(String name) : void","kind":2,"detail":"Greeter.setName(String name) : void","insertText":"setName","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"setName"}},
{"label":"AbstractCollection - java.util","kind":7,"detail":"java.util.AbstractCollection","filterText":"java.util.AbstractCollection","insertText":"AbstractCollection","insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":8},"end":{"line":13,"character":18}},"newText":"java.util.AbstractCollection"}},
{"label":"class : Class<demo.Greeter>","kind":5,"insertTextFormat":1,"textEdit":{"range":{"start":{"line":13,"character":16},"end":{"line":13,"character":16}},"newText":"class"}},
{"label":"greet(String who) : String","kind":2,"insertTextFormat":2,"textEdit":{"range":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"newText":"greet(${1:who})$0"}},
{"label":"sysout","kind":15,"insertTextFormat":2,"insertText":"System.out.println(${0});"}
]}`

// The same kinds of items from JDT LS 1.60 (captured): itemDefaults.editRange,
// textEditText, labelDetails.
const completion160 = `{"isIncomplete":false,
"itemDefaults":{"editRange":{"start":{"line":13,"character":10},"end":{"line":13,"character":10}},"insertTextFormat":1,"data":{"completionKinds":[2,6]}},
"items":[
{"label":"equals","labelDetails":{"detail":"(Object obj)","description":"boolean"},"kind":2,"detail":"Object.equals(Object obj) : boolean","sortText":"999999035","filterText":"equals(Object obj) : boolean","insertText":"equals","textEditText":"equals"},
{"label":"getName","labelDetails":{"detail":"()","description":"String"},"kind":2,"detail":"Greeter.getName() : String","filterText":"getName() : String","insertText":"getName","textEditText":"getName"},
{"label":"AbstractCollection","labelDetails":{"description":"java.util"},"kind":7,"detail":"java.util.AbstractCollection","filterText":"java.util.AbstractCollection","insertText":"AbstractCollection","textEditText":"java.util.AbstractCollection"},
{"label":"new","kind":14,"filterText":"new","insertText":"new","textEditText":"new"}
]}`

func TestParseCompletionShapes(t *testing.T) {
	type item struct {
		Name  string
		Kind  int
		Label string
	}
	cases := []struct {
		name, raw string
		want      []item
	}{
		{"1.20", completion120, []item{
			{"greet", 2, "greet() : String"},
			{"setName", 2, "setName(String name) : void"},
			{"AbstractCollection", 7, "AbstractCollection - java.util"},
			{"class", 5, "class : Class<demo.Greeter>"},
			{"greet", 2, "greet(String who) : String"},
			{"println", 15, "sysout"}, // a template: the engine ignores snippet items
		}},
		{"1.60", completion160, []item{
			{"equals", 2, "equals(Object obj) : boolean"},
			{"getName", 2, "getName() : String"},
			{"AbstractCollection", 7, "AbstractCollection : java.util"},
			{"new", 14, "new"},
		}},
		{"array", `[{"label":"toString() : String","kind":2}]`, []item{{"toString", 2, "toString() : String"}}},
		{"null", `null`, nil},
	}
	for _, c := range cases {
		l, err := ParseCompletion(json.RawMessage(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []item
		for _, it := range l.Items {
			got = append(got, item{it.Name, it.Kind, it.Label})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		if l.IsIncomplete {
			t.Errorf("%s: incomplete", c.name)
		}
	}
	// The edits: the item's own textEdit (1.20) or the list's editRange
	// with textEditText (1.60); snippet syntax removed.
	edits := map[string][]TextEdit{
		completion120: {
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "greet"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "setName"},
			{Range{textpos.Position{Line: 13, Character: 8}, textpos.Position{Line: 13, Character: 18}}, "java.util.AbstractCollection"},
			{Range{textpos.Position{Line: 13, Character: 16}, textpos.Position{Line: 13, Character: 16}}, "class"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "greet(who)"},
		},
		completion160: {
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "equals"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "getName"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "java.util.AbstractCollection"},
			{Range{textpos.Position{Line: 13, Character: 10}, textpos.Position{Line: 13, Character: 10}}, "new"},
		},
	}
	for raw, want := range edits {
		l, _ := ParseCompletion(json.RawMessage(raw))
		for i, w := range want {
			if e := l.Items[i].Edit; e == nil || *e != w {
				t.Errorf("item %s: edit %+v, want %+v", l.Items[i].Label, e, w)
			}
		}
	}
	if l, err := ParseCompletion(json.RawMessage(`{"isIncomplete":true,"items":[]}`)); err != nil || !l.IsIncomplete {
		t.Errorf("isIncomplete lost: %+v %v", l, err)
	}
	if _, err := ParseCompletion(json.RawMessage(`{"items":3}`)); err == nil {
		t.Error("bad result accepted")
	}
}

func TestStripSnippetAndNames(t *testing.T) {
	for in, want := range map[string]string{
		"greet(${1:who})$0":      "greet(who)",
		"foo(${1|a,b|})":         "foo()",
		`a\$b`:                   "a$b",
		"${1:x}.${2:y}":          "x.y",
		"System.out.println($0)": "System.out.println()",
	} {
		if got := stripSnippet(in); got != want {
			t.Errorf("stripSnippet(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"greet() : String":   "greet",
		"java.util.List<T>":  "List",
		"((Foo) x).bar":      "",
		"é_1$ rest":          "é_1$",
		"util":               "util",
		"Map.Entry<K, V> e":  "Entry",
		"1abc":               "",
		"java.util.":         "util",
		"getName(): String":  "getName",
		"x.y.z() : Foo.Type": "z",
	} {
		if got := lastSegment(in); got != want {
			t.Errorf("lastSegment(%q) = %q, want %q", in, got, want)
		}
	}
}
