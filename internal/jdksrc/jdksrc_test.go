package jdksrc

// jdksrc_test.go checks Each on a small archive written here: only .java
// entries under the prefix, in archive order, with their texts, and the
// early stop.

import (
	"archive/zip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestEach(t *testing.T) {
	p := filepath.Join(t.TempDir(), "src.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range [][2]string{
		{"java.base/java/util/List.java", "interface List {}"},
		{"java.base/java/util/package.html", "<p>"},
		{"java.sql/java/sql/Date.java", "class Date {}"},
		{"java.base/java/util/Map.java", "interface Map {}"},
	} {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var got []string
	Each(t, p, "java.base/", func(name, text string) bool {
		got = append(got, name+": "+text)
		return true
	})
	want := []string{"java.base/java/util/List.java: interface List {}", "java.base/java/util/Map.java: interface Map {}"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Each = %q, want %q", got, want)
	}
	n := 0
	Each(t, p, "", func(string, string) bool { n++; return false })
	if n != 1 {
		t.Errorf("fn returned false, yet Each called it %d times", n)
	}
	if Require(t, p) != p {
		t.Errorf("Require(%s) changed the path", p)
	}
}
