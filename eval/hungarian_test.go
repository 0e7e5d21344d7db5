package eval

import (
	"math/rand/v2"
	"reflect"
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

// The steps of Hungarian by hand.
func TestHungarianStepsByHand(t *testing.T) {
	if c := squareCost([][]int{{1, 2, 3}, {4}}); !reflect.DeepEqual(c, [][]int{{1, 2, 3}, {4, 0, 0}, {0, 0, 0}}) {
		t.Errorf("square %v", c)
	}
	c := [][]int{{3, 1}, {2, 5}}
	subtractColumnMinima(c)
	if !reflect.DeepEqual(c, [][]int{{1, 0}, {0, 4}}) {
		t.Errorf("column minima subtracted: %v", c)
	}
	// Both rows find a free zero: nothing left to search.
	h := newHungarian(c)
	if u := h.greedyMatch(); u != 0 || !reflect.DeepEqual(h.colMate, []int{1, 0}) {
		t.Errorf("greedy: %d unmatched, %v", u, h.colMate)
	}
	// [[0 0] [0 3]]: row 0 takes column 0, row 1's only zero is taken. The
	// forest from row 1 reaches row 0 through the tight (1,0), and row 0's
	// tight edge to the free column 1 ends the path; flipping it gives
	// row 0 → 1, row 1 → 0.
	h = newHungarian([][]int{{0, 0}, {0, 3}})
	if u := h.greedyMatch(); u != 1 || !reflect.DeepEqual(h.colMate, []int{0, -1}) || h.unchosen[0] != 1 {
		t.Fatalf("greedy: %d unmatched, %v, roots %v", u, h.colMate, h.unchosen[:h.t])
	}
	k, l := h.findPath()
	if k != 0 || l != 1 || h.parentRow[0] != 1 {
		t.Fatalf("path ends at (%d, %d), parent of column 0 %d", k, l, h.parentRow[0])
	}
	h.augment(k, l)
	if !reflect.DeepEqual(h.colMate, []int{1, 0}) || !reflect.DeepEqual(h.rowMate, []int{1, 0}) {
		t.Errorf("augmented: rows %v columns %v", h.colMate, h.rowMate)
	}
	// [[0 2] [0 3]]: no tight edge to column 1; the duals rise by its slack 2
	// (rows 0 and 1 get 2, column 0 too), and column 1 is reached from row 0.
	h = newHungarian([][]int{{0, 2}, {0, 3}})
	h.greedyMatch()
	if k, l := h.findPath(); k != 0 || l != 1 || !reflect.DeepEqual(h.rowDec, []int{2, 2}) || !reflect.DeepEqual(h.colInc, []int{2, 0}) {
		t.Errorf("path (%d, %d), row duals %v, column duals %v", k, l, h.rowDec, h.colInc)
	}
}
