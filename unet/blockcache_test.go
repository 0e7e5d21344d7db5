package unet

import (
	"testing"

	"github.com/sugarme/gotch"
)

// restoreBlockCache puts the start-up settings back after a test.
func restoreBlockCache(t *testing.T) {
	t.Cleanup(func() {
		TrimBlockCache()
		if err := SetBlockCache(DefaultBlockCacheMin, DefaultBlockCacheMax); err != nil {
			t.Error(err)
		}
	})
}

// blockOf makes and frees (Scope.Close) one float tensor of n values holding
// v, checking that it reads back.
func blockOf(t *testing.T, n int, v float32) {
	t.Helper()
	data := make([]float32, n)
	for i := range data {
		data[i] = v + float32(i%7)
	}
	err := Run(func(s *Scope) error {
		x, err := Tensor(s, data, []int64{int64(n)}, gotch.CPU)
		if err != nil {
			return err
		}
		got, err := Float32s(x)
		if err != nil {
			return err
		}
		for i := range got {
			if got[i] != data[i] {
				t.Fatalf("value %d of a %d-float tensor: %v, want %v", i, n, got[i], data[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func stats(t *testing.T) (uint64, uint64, int64) {
	t.Helper()
	h, m, c, err := BlockCacheStats()
	if err != nil {
		t.Fatal(err)
	}
	return h, m, c
}

// A freed block is handed out again for a request of the same size, not for
// another size; blocks below the minimum never enter the cache; the limit
// bounds what it keeps; Trim empties it; minimum ≤ 0 turns it off.
func TestBlockCacheReusesBlocks(t *testing.T) {
	restoreBlockCache(t)
	TrimBlockCache()
	const mib = 1 << 20
	if err := SetBlockCache(mib, 3*mib); err != nil {
		t.Fatal(err)
	}
	const n = 2 * mib / 4 // 2 MiB of float32
	h0, m0, c0 := stats(t)
	if c0 != 0 {
		t.Fatalf("cache holds %d bytes after Trim", c0)
	}
	blockOf(t, n, 1)
	h, m, c := stats(t)
	if h != h0 || m != m0+1 || c != 2*mib {
		t.Fatalf("first 2 MiB block: hits %d misses %d cached %d, want %d %d %d", h-h0, m-m0, c, 0, 1, 2*mib)
	}
	blockOf(t, n, 2) // same size: reused, and holds the new values
	h, m, c = stats(t)
	if h != h0+1 || m != m0+1 || c != 2*mib {
		t.Fatalf("second 2 MiB block: hits %d misses %d cached %d, want 1 1 %d", h-h0, m-m0, c, 2*mib)
	}
	blockOf(t, n+1, 3) // another size: a miss; freeing it would pass the 3 MiB limit
	h, m, c = stats(t)
	if h != h0+2-1 || m != m0+2 || c != 2*mib {
		t.Fatalf("2 MiB + 4 B block: hits %d misses %d cached %d, want 1 2 %d", h-h0, m-m0, c, 2*mib)
	}
	blockOf(t, mib/8, 4) // 512 KiB: below the minimum, never counted
	if h2, m2, c2 := stats(t); h2 != h || m2 != m || c2 != c {
		t.Fatalf("512 KiB block changed the cache: %d %d %d → %d %d %d", h, m, c, h2, m2, c2)
	}
	TrimBlockCache()
	if _, _, c := stats(t); c != 0 {
		t.Fatalf("cache holds %d bytes after Trim", c)
	}
	if err := SetBlockCache(0, 0); err != nil {
		t.Fatal(err)
	}
	h, m, _ = stats(t)
	blockOf(t, n, 5)
	if h2, m2, c2 := stats(t); h2 != h || m2 != m || c2 != 0 {
		t.Fatalf("cache off: hits %d misses %d cached %d after a 2 MiB block, want no change and 0", h2-h, m2-m, c2)
	}
	if err := SetBlockCache(mib, -1); err == nil {
		t.Error("a negative limit was accepted")
	}
}
