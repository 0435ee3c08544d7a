package units

import (
	"path"
	"strings"
)

// IsTestPath says whether a file holds test code by its ecosystem's
// conventions: a path segment "test", "tests" or "testdata" (Maven and
// Gradle's src/test, Python's tests/ and the standard library's test/),
// or a file named *Test.java, *Tests.java, *IT.java (Maven Failsafe),
// test_*.py, *_test.py or *_test.go. path is slash-separated and relative
// to the workspace root.
func IsTestPath(p string) bool {
	dir, base := path.Split(p)
	for _, seg := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		switch seg {
		case "test", "tests", "testdata":
			return true
		}
	}
	switch path.Ext(base) {
	case ".java":
		stem := strings.TrimSuffix(base, ".java")
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "IT")
	case ".py":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py"
	case ".go":
		return strings.HasSuffix(base, "_test.go")
	}
	return false
}
