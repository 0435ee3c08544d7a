//go:build !linux

package engine

// legacyInUse answers true outside Linux (no open file description locks
// to ask with): removeLegacyLayout then keeps the folders.
func legacyInUse(cfg, data string) bool { return true }
