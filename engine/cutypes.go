package engine

// cutypes.go names, from a file's text alone, types that a simple name can
// name anywhere in that compilation unit: java.lang's public types (JLS
// 7.3: every compilation unit imports java.lang on demand), the file's
// single-type imports (JLS 7.5.1) and the top-level types it declares (JLS
// 7.6). A name declared closer in (a local, a field, a nested type)
// shadows or obscures one of these, but is then itself a name in scope, so
// an identifier that is a prefix of one of them is a prefix of some visible
// name whatever the hunk holds: the simple-name judge proves it feasible
// without asking JDT LS (simple.go), where it asked before ("String",
// "System", the class's own name, an imported "StringUtils": a type search
// at the hunk start each, 0.5-5 s under load). A name in the list that the
// JDK in use or the classpath lacks makes the judge answer Feasible where
// JDT LS might have pruned: a lost prune, never a wrong one.

import (
	"sort"
	"strings"

	"github.com/repilot-lsp/repilot-lsp/javalex"
)

// javaLangTypes are public top-level types of java.lang (Java SE 8-21). A
// name here that an older JDK lacks only costs a prune (see the file
// comment).
var javaLangTypes = []string{
	"AbstractMethodError", "Appendable", "ArithmeticException", "ArrayIndexOutOfBoundsException",
	"ArrayStoreException", "AssertionError", "AutoCloseable", "Boolean", "BootstrapMethodError", "Byte",
	"CharSequence", "Character", "Class", "ClassCastException", "ClassCircularityError", "ClassFormatError",
	"ClassLoader", "ClassNotFoundException", "ClassValue", "CloneNotSupportedException", "Cloneable",
	"Comparable", "Deprecated", "Double", "Enum", "EnumConstantNotPresentException", "Error", "Exception",
	"ExceptionInInitializerError", "Float", "FunctionalInterface", "IllegalAccessError",
	"IllegalAccessException", "IllegalArgumentException", "IllegalCallerException",
	"IllegalMonitorStateException", "IllegalStateException", "IllegalThreadStateException",
	"IncompatibleClassChangeError", "IndexOutOfBoundsException", "InheritableThreadLocal",
	"InstantiationError", "InstantiationException", "Integer", "InternalError", "InterruptedException",
	"Iterable", "LayerInstantiationException", "LinkageError", "Long", "MatchException", "Math", "Module",
	"ModuleLayer", "NegativeArraySizeException", "NoClassDefFoundError", "NoSuchFieldError",
	"NoSuchFieldException", "NoSuchMethodError", "NoSuchMethodException", "NullPointerException", "Number",
	"NumberFormatException", "Object", "OutOfMemoryError", "Override", "Package", "Process",
	"ProcessBuilder", "ProcessHandle", "Readable", "Record", "ReflectiveOperationException", "Runnable",
	"Runtime", "RuntimeException", "RuntimePermission", "SafeVarargs", "ScopedValue", "SecurityException",
	"SecurityManager", "Short", "StackOverflowError", "StackTraceElement", "StackWalker", "StrictMath",
	"String", "StringBuffer", "StringBuilder", "StringIndexOutOfBoundsException", "SuppressWarnings",
	"System", "Thread", "ThreadDeath", "ThreadGroup", "ThreadLocal", "Throwable", "TypeNotPresentException",
	"UnknownError", "UnsatisfiedLinkError", "UnsupportedClassVersionError", "UnsupportedOperationException",
	"VerifyError", "VirtualMachineError", "Void", "WrongThreadException",
}

// cuTypeNames returns, sorted and without duplicates, javaLangTypes, the
// simple names of text's single-type imports ("import a.b.C;" gives C; not
// static or on-demand imports) and the names of the types text declares at
// brace depth 0 (class, interface, enum, record, @interface). text is a
// whole compilation unit (a hunk's Prefix and Suffix: the hunk itself may
// only add to what it declares).
func cuTypeNames(text string) []string {
	names := append([]string(nil), javaLangTypes...)
	toks := codeTokens(javalex.Lex(text))
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case isOp(t, "{"):
			depth++
		case isOp(t, "}"):
			depth--
		case depth == 0 && isKw(t, "import"):
			// import [static] a.b.C ;
			j := i + 1
			if j < len(toks) && isKw(toks[j], "static") {
				for ; j < len(toks) && !isOp(toks[j], ";"); j++ {
				}
				i = j
				continue
			}
			last := ""
			for ; j < len(toks) && !isOp(toks[j], ";"); j++ {
				if toks[j].Kind == javalex.Ident {
					last = toks[j].Text
				} else if !isOp(toks[j], ".") {
					last = "" // "*" of an on-demand import, or broken text
					break
				}
			}
			if last != "" && j < len(toks) && toks[j-1].Kind == javalex.Ident {
				names = append(names, last)
			}
			i = j
		case depth == 0 && (isKw(t, "class") || isKw(t, "interface") || isKw(t, "enum") || isWord(t, "record")):
			if i+1 < len(toks) && toks[i+1].Kind == javalex.Ident && (i == 0 || !isOp(toks[i-1], ".")) {
				names = append(names, toks[i+1].Text)
			}
		}
	}
	sort.Strings(names)
	return compactStrings(names)
}

// compactStrings drops adjacent duplicates of sorted names.
func compactStrings(names []string) []string {
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// cuTypes returns cuTypeNames of the hunk's file (Prefix and Suffix),
// computed once per session.
func (s *jdtSession) cuTypes() []string {
	if s.cuNames == nil {
		s.cuNames = cuTypeNames(s.h.Prefix + "\n" + s.h.Suffix)
	}
	return s.cuNames
}

// cuTypePrefix reports whether ident is a prefix of a type of cuTypes.
func (s *jdtSession) cuTypePrefix(ident string) bool {
	names := s.cuTypes()
	i := sort.SearchStrings(names, ident)
	return ident != "" && i < len(names) && strings.HasPrefix(names[i], ident)
}

// cuType reports whether ident is a type of cuTypes.
func (s *jdtSession) cuType(ident string) bool {
	return ident != "" && contains(s.cuTypes(), ident)
}
