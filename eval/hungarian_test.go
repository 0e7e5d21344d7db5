package eval

import (
	"math/rand/v2"
	"testing"
)

// bruteMin returns the minimum total cost over all permutations of the
// zero-padded square matrix.
func bruteMin(c [][]int, n int) int {
	at := func(i, j int) int {
		if i < len(c) && j < len(c[i]) {
			return c[i][j]
		}
		return 0
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := 1 << 60
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			s := 0
			for i, j := range perm {
				s += at(i, j)
			}
			best = min(best, s)
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

func TestHungarianBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 3000; it++ {
		rows := 1 + rng.IntN(7)
		cols := 1 + rng.IntN(7)
		span := []int{2, 5, 10001}[rng.IntN(3)] // small spans force many ties
		c := make([][]int, rows)
		for i := range c {
			c[i] = make([]int, cols)
			for j := range c[i] {
				c[i][j] = rng.IntN(span) - span/2
				if it%3 == 0 {
					c[i][j] = -rng.IntN(span) // MoSegEval style: −F ≤ 0
				}
			}
		}
		n := max(rows, cols)
		a := Hungarian(c)
		if len(a) != n {
			t.Fatalf("len %d want %d", len(a), n)
		}
		seen := make([]bool, n)
		got := 0
		for i, j := range a {
			if j < 0 || j >= n || seen[j] {
				t.Fatalf("not a permutation: %v", a)
			}
			seen[j] = true
			if i < rows && j < cols {
				got += c[i][j]
			}
		}
		if want := bruteMin(c, n); got != want {
			t.Fatalf("matrix %v: cost %d, brute force %d (assignment %v)", c, got, want, a)
		}
	}
}

func TestHungarianMaxAndEmpty(t *testing.T) {
	if a := Hungarian(nil); len(a) != 0 {
		t.Fatalf("empty: %v", a)
	}
	u := [][]int{{1, 9, 3}, {8, 2, 7}}
	a := HungarianMax(u)
	// Best: row0→col1 (9), row1→col0 (8); padding row gets col2.
	if a[0] != 1 || a[1] != 0 || a[2] != 2 {
		t.Fatalf("assignment %v", a)
	}
}
