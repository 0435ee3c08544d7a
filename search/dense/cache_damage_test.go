package dense

import (
	"os"
	"reflect"
	"testing"
)

// TestCacheDamage: a flipped bit in a record (its vector, its length) is
// found by the record's checksum and that record and the ones after it are
// dropped (embedded again), never served as a wrong vector; a file that is
// not an embedding cache of this format (a damaged header, an older
// format) is started over, not an error that stops search.
func TestCacheDamage(t *testing.T) {
	k1, k2, k3 := KeyOf("m", "a"), KeyOf("m", "b"), KeyOf("m", "c")
	write := func(t *testing.T) (string, *Cache) {
		dir := t.TempDir()
		c, err := OpenCache(dir, "m")
		if err != nil {
			t.Fatal(err)
		}
		c.Put(k1, []float32{1, 2, 3})
		c.Put(k2, []float32{4, 5, 6})
		c.Put(k3, []float32{7, 8, 9})
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, c
	}
	data := func(t *testing.T, path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	recLen := (len(data(t, func() string { _, c := write(t); return c.path }())) - len(cacheMagic)) / 3
	for _, tc := range []struct {
		name string
		at   int // byte offset of the flip, from the start of the second record
		bit  byte
	}{
		{"vector's exponent", 36 + 4 + 3, 0x40}, // 5 → 5·2^-128 or so
		{"vector's sign", 36 + 3, 0x80},
		{"length", 32, 0x01},
		{"key", 0, 0x01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, c := write(t)
			b := data(t, c.path)
			b[len(cacheMagic)+recLen+tc.at] ^= tc.bit
			if err := os.WriteFile(c.path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			c2, err := OpenCache(dir, "m")
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := c2.Get(k1); !ok || !reflect.DeepEqual(v, []float32{1, 2, 3}) {
				t.Errorf("the record before the damage: %v %v", v, ok)
			}
			if v, ok := c2.Get(k2); ok {
				t.Errorf("the damaged record was loaded: %v", v)
			}
			if c2.Len() != 1 {
				t.Errorf("%d vectors loaded, want 1 (the first)", c2.Len())
			}
			// The damaged tail is dropped: appends are read back.
			c2.Put(k2, []float32{4, 5, 6})
			c2.Close()
			c3, err := OpenCache(dir, "m")
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := c3.Get(k2); !ok || !reflect.DeepEqual(v, []float32{4, 5, 6}) || c3.Len() != 2 {
				t.Errorf("after append: %v %v len %d", v, ok, c3.Len())
			}
			c3.Close()
		})
	}
	t.Run("header", func(t *testing.T) {
		dir, c := write(t)
		b := data(t, c.path)
		b[0] ^= 0x20
		if err := os.WriteFile(c.path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c2, err := OpenCache(dir, "m")
		if err != nil {
			t.Fatalf("a damaged header stops search: %v", err)
		}
		if c2.Len() != 0 {
			t.Errorf("%d vectors loaded from a file with a damaged header", c2.Len())
		}
		c2.Put(k1, []float32{1, 2, 3})
		c2.Close()
		if c3, err := OpenCache(dir, "m"); err != nil || c3.Len() != 1 {
			t.Fatalf("started over: %v, %d vectors", err, c3.Len())
		}
	})
}
