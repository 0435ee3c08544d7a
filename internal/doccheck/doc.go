// Package doccheck holds no code: its test checks the whole module for the
// rule that every exported identifier has a doc comment (the repository's
// convention; Effective Go, "Commentary").
package doccheck
