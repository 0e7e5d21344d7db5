package multicut

import (
	"math/rand"
	"testing"
)

// TestGainHeapAgainstScan builds the indexed heap from random entries
// (heapify), drives it with random inserts, key
// changes (up and down, with ties), removals and pops, and checks every pop
// against a linear scan for the largest key (ties: smallest id) over the
// nodes that should be in it, and that reset empties it.
func TestGainHeapAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const n = 60
	h := newGainHeap(n)
	in := map[int32]float64{}
	for v := range int32(n / 2) { // a heapified start, as GAEC's
		k := float64(rng.Intn(7) - 3)
		h.e = append(h.e, gainEntry{k, 2 * v})
		in[2*v] = k
	}
	h.heapify()
	pops := 0
	for step := 0; step < 20000; step++ {
		v := int32(rng.Intn(n))
		switch op := rng.Intn(10); {
		case op < 5:
			k := float64(rng.Intn(7) - 3) // few distinct keys: many ties
			h.set(v, k)
			in[v] = k
		case op < 7:
			h.remove(v)
			delete(in, v)
		default:
			if len(in) == 0 {
				if h.len() != 0 {
					t.Fatalf("step %d: heap holds %d entries, want 0", step, h.len())
				}
				continue
			}
			want, wk := int32(-1), 0.0
			for id, k := range in {
				if want < 0 || k > wk || (k == wk && id < want) {
					want, wk = id, k
				}
			}
			got := h.pop()
			if got.id != want || got.key != wk {
				t.Fatalf("step %d: pop = (%d, %g), want (%d, %g)", step, got.id, got.key, want, wk)
			}
			delete(in, want)
			pops++
		}
		if h.len() != len(in) {
			t.Fatalf("step %d: heap holds %d entries, want %d", step, h.len(), len(in))
		}
	}
	if pops < 1000 {
		t.Fatalf("only %d pops checked", pops)
	}
	h.reset()
	if h.len() != 0 {
		t.Fatalf("reset left %d entries", h.len())
	}
	for v := range int32(n) {
		if h.pos[v] != -1 {
			t.Fatalf("reset left node %d at position %d", v, h.pos[v])
		}
	}
}
