// settings.go holds the client settings: the defaults a completion engine
// needs, the caller's settings merged over them (dotted keys expanded), and the
// answer to workspace/configuration.

package jdtls

import "strings"

// DefaultSettings are the settings a completion engine needs from JDT LS:
//   - java.completion.maxResults 0: no cap (the default 50 truncates member
//     lists and marks them isIncomplete);
//   - java.completion.filteredTypes []: no types hidden (the default hides
//     java.awt.List, sun.*, com.sun.*, ... which are still valid Java);
//   - java.completion.guessMethodArguments false: insert text stays short.
func DefaultSettings() map[string]any {
	return map[string]any{"java": map[string]any{
		"completion": map[string]any{
			"maxResults":           0,
			"filteredTypes":        []any{},
			"guessMethodArguments": false,
			"postfix":              map[string]any{"enabled": false},
		},
		"import":    map[string]any{"generatesMetadataFilesAtProjectRoot": false},
		"autobuild": map[string]any{"enabled": true},
	}}
}

// normalizeSettings expands dotted keys ("java.completion.maxResults") into
// nested maps.
func normalizeSettings(in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		if m, ok := v.(map[string]any); ok {
			v = normalizeSettings(m)
		}
		parts := strings.Split(k, ".")
		cur := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		last := parts[len(parts)-1]
		if old, ok := cur[last].(map[string]any); ok {
			if nv, ok := v.(map[string]any); ok {
				v = mergeSettings(old, nv)
			}
		}
		cur[last] = v
	}
	return out
}

// mergeSettings returns base with over merged into it (over wins; maps merge
// recursively).
func mergeSettings(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = mergeSettings(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// lookupSetting answers one workspace/configuration item: the value at the
// dotted section path, the whole settings object for an empty section, or nil.
func lookupSetting(settings map[string]any, section string) any {
	if section == "" {
		return settings
	}
	var cur any = settings
	for _, p := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur, ok = m[p]
		if !ok {
			return nil
		}
	}
	return cur
}
