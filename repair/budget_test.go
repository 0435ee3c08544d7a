package repair

import "testing"

// TestTokenBudget: the budget scales with the buggy hunk's Java tokens
// (comments not counted), has a floor for insertions and short hunks, never
// exceeds MaxTokens, and FixedBudget turns it off.
func TestTokenBudget(t *testing.T) {
	o := DefaultOptions()
	for _, c := range []struct {
		buggy string
		want  int
	}{
		{"", BudgetFloor},
		{"        i--;\n", BudgetFloor}, // 3 tokens
		{"        tail = (tail + 1) % buf.size;\n", 2*12 + BudgetSlack},
		{"        tail = (tail + 1) % buf.size; // wrap\n", 2*12 + BudgetSlack},
		{"        a(b, c, d, e, f, g, h, i, j, k, l, m, n, o);\n", DefaultMaxTokens},
	} {
		if got := o.TokenBudget(c.buggy); got != c.want {
			t.Errorf("TokenBudget(%q) = %d, want %d", c.buggy, got, c.want)
		}
	}
	o.FixedBudget = true
	if got := o.TokenBudget(""); got != DefaultMaxTokens {
		t.Errorf("FixedBudget: TokenBudget = %d, want MaxTokens %d", got, DefaultMaxTokens)
	}
	o = Options{MaxTokens: 10}
	if got := o.TokenBudget(""); got != 10 {
		t.Errorf("MaxTokens 10: TokenBudget = %d, want 10", got)
	}
}
