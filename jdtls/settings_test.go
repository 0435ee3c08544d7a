package jdtls

// settings_test.go tests the merge of the caller's settings over the
// defaults and the answers to workspace/configuration.

import (
	"reflect"
	"testing"
)

func TestSettings(t *testing.T) {
	s := mergeSettings(DefaultSettings(), normalizeSettings(map[string]any{
		"java.completion.maxResults": 7,
		"java":                       map[string]any{"format": map[string]any{"enabled": false}},
		"java.home":                  "/opt/jdk",
	}))
	cases := map[string]any{
		"java.completion.maxResults":    7, // the caller's value wins
		"java.completion.filteredTypes": []any{},
		"java.format.enabled":           false,
		"java.home":                     "/opt/jdk",
		"java.nothing":                  nil,
		"other":                         nil,
	}
	for section, want := range cases {
		if got := lookupSetting(s, section); !reflect.DeepEqual(got, want) {
			t.Errorf("lookup(%q) = %#v, want %#v", section, got, want)
		}
	}
	if got := lookupSetting(DefaultSettings(), "java.completion.maxResults"); got != 0 {
		t.Errorf("default maxResults = %v, want 0", got)
	}
	if m, ok := lookupSetting(s, "").(map[string]any); !ok || m["java"] == nil {
		t.Errorf("empty section: %v", m)
	}
}
