package eval

import "math"

// hungarianInf is the "infinite" slack of the solver (0x7FFFFFFF, as in the
// libhungarian code used by MoSegEval).
const hungarianInf = math.MaxInt32

// Hungarian solves the linear assignment problem
//
//	minimise Σ_i cost[i][a(i)]  over permutations a
//
// with the Hungarian method (Kuhn 1955, Munkres 1957) in the O(n³) form of
// Knuth's Stanford GraphBase program ASSIGN_LISA, which is what
// libhungarian (C. Stachniss, 2004) and therefore the FBMS MoSegEval tool
// use. Following the same steps (column minima subtracted, greedy initial
// matching in row order, forest search over unmatched rows in order,
// slack-based dual update) makes ties between equally good assignments break
// the same way as in MoSegEval, which matters for its precision/recall
// averages.
//
// A rectangular matrix is padded with zero rows/columns to the square side
// n = max(rows, cols), as hungarian_init does. The result has length n:
// a[i] is the column assigned to row i; rows ≥ len(cost) are padding rows
// and columns ≥ the input width are padding columns. Costs must lie well
// within ±2^30. An empty matrix gives an empty assignment.
func Hungarian(cost [][]int) []int {
	c := squareCost(cost)
	if len(c) == 0 {
		return []int{}
	}
	subtractColumnMinima(c)
	h := newHungarian(c)
	for unmatched := h.greedyMatch(); unmatched > 0; unmatched-- {
		k, l := h.findPath()
		h.augment(k, l)
		if unmatched > 1 {
			h.newForest()
		}
	}
	return h.colMate
}

// squareCost pads cost with zero rows and columns to the square side
// n = max(rows, cols) (a copy).
func squareCost(cost [][]int) [][]int {
	rows := len(cost)
	cols := 0
	for _, r := range cost {
		cols = max(cols, len(r))
	}
	n := max(rows, cols)
	c := make([][]int, n)
	for i := range c {
		c[i] = make([]int, n)
		if i < rows {
			copy(c[i], cost[i])
		}
	}
	return c
}

// subtractColumnMinima subtracts every column's minimum from it, so that
// every column has a zero.
func subtractColumnMinima(c [][]int) {
	n := len(c)
	for l := 0; l < n; l++ {
		s := c[0][l]
		for k := 1; k < n; k++ {
			s = min(s, c[k][l])
		}
		if s != 0 {
			for k := 0; k < n; k++ {
				c[k][l] -= s
			}
		}
	}
}

// hungarian is the state of ASSIGN_LISA on the square matrix c.
type hungarian struct {
	n         int
	c         [][]int
	colMate   []int // column matched to row k, or -1
	rowMate   []int // row matched to column l, or -1
	parentRow []int // row from which column l was reached in the forest
	unchosen  []int // rows of the forest (unmatched roots first)
	rowDec    []int // dual variable of row k (subtracted)
	colInc    []int // dual variable of column l (added)
	slack     []int // min reduced cost from a forest row to column l
	slackRow  []int // the row attaining slack[l]
	t         int   // rows in the forest (unchosen[:t])
	q         int   // rows of the forest explored (unchosen[:q])
}

func newHungarian(c [][]int) *hungarian {
	n := len(c)
	return &hungarian{n: n, c: c,
		colMate: make([]int, n), rowMate: make([]int, n), parentRow: make([]int, n), unchosen: make([]int, n),
		rowDec: make([]int, n), colInc: make([]int, n), slack: make([]int, n), slackRow: make([]int, n)}
}

// greedyMatch sets the initial state: row minima as row duals, zeros
// matched greedily in row order, the unmatched rows as the forest's roots.
// It returns the number of unmatched rows.
func (h *hungarian) greedyMatch() int {
	n, c := h.n, h.c
	for l := 0; l < n; l++ {
		h.rowMate[l] = -1
		h.parentRow[l] = -1
		h.slack[l] = hungarianInf
	}
	for k := 0; k < n; k++ {
		s := c[k][0]
		for l := 1; l < n; l++ {
			s = min(s, c[k][l])
		}
		h.rowDec[k] = s
		h.colMate[k] = -1
		for l := 0; l < n; l++ {
			if c[k][l] == s && h.rowMate[l] < 0 {
				h.colMate[k] = l
				h.rowMate[l] = k
				break
			}
		}
		if h.colMate[k] < 0 {
			h.unchosen[h.t] = k
			h.t++
		}
	}
	return h.t
}

// findPath grows the forest, changing the duals whenever no tight edge is
// left, until it reaches a free column l; k is the forest row it is reached
// from.
func (h *hungarian) findPath() (k, l int) {
	h.q = 0
	for {
		if k, l, ok := h.explore(); ok {
			return k, l
		}
		if k, l, ok := h.updateDuals(); ok {
			return k, l
		}
	}
}

// explore scans the rows of the forest not explored yet: a tight edge to a
// matched column adds its row to the forest, one to a free column ends the
// search; other edges lower their column's slack.
func (h *hungarian) explore() (k, l int, found bool) {
	for h.q < h.t {
		k = h.unchosen[h.q]
		s := h.rowDec[k]
		for l = 0; l < h.n; l++ {
			if h.slack[l] == 0 {
				continue
			}
			del := h.c[k][l] - s + h.colInc[l]
			if del >= h.slack[l] {
				continue
			}
			if del == 0 {
				if h.rowMate[l] < 0 {
					return k, l, true // augmenting path ends at free column l
				}
				h.slack[l] = 0
				h.parentRow[l] = k
				h.unchosen[h.t] = h.rowMate[l]
				h.t++
			} else {
				h.slack[l] = del
				h.slackRow[l] = k
			}
		}
		h.q++
	}
	return 0, 0, false
}

// updateDuals changes the duals by the smallest slack s (no tight edge is
// left): the forest's rows gain s, its columns too; a column whose slack
// becomes 0 joins the forest through its row, or, when free, ends the
// search.
func (h *hungarian) updateDuals() (k, l int, found bool) {
	n := h.n
	s := hungarianInf
	for l = 0; l < n; l++ {
		if h.slack[l] != 0 && h.slack[l] < s {
			s = h.slack[l]
		}
	}
	for h.q = 0; h.q < h.t; h.q++ {
		h.rowDec[h.unchosen[h.q]] += s
	}
	for l = 0; l < n; l++ {
		if h.slack[l] == 0 {
			h.colInc[l] += s
			continue
		}
		h.slack[l] -= s
		if h.slack[l] != 0 {
			continue
		}
		k = h.slackRow[l]
		if h.rowMate[l] < 0 {
			for j := l + 1; j < n; j++ {
				if h.slack[j] == 0 {
					h.colInc[j] += s
				}
			}
			return k, l, true
		}
		h.parentRow[l] = k
		h.unchosen[h.t] = h.rowMate[l]
		h.t++
	}
	return 0, 0, false
}

// augment flips the alternating path that ends in (k, l).
func (h *hungarian) augment(k, l int) {
	for {
		j := h.colMate[k]
		h.colMate[k] = l
		h.rowMate[l] = k
		if j < 0 {
			return
		}
		k = h.parentRow[j]
		l = j
	}
}

// newForest starts the next stage: a fresh forest rooted at the unmatched
// rows.
func (h *hungarian) newForest() {
	h.t = 0
	for l := 0; l < h.n; l++ {
		h.parentRow[l] = -1
		h.slack[l] = hungarianInf
	}
	for k := 0; k < h.n; k++ {
		if h.colMate[k] < 0 {
			h.unchosen[h.t] = k
			h.t++
		}
	}
}

// HungarianMax returns an assignment maximising Σ_i util[i][a(i)], computed
// as Hungarian of the negated matrix (MoSegEval passes −F the same way).
func HungarianMax(util [][]int) []int {
	neg := make([][]int, len(util))
	for i, r := range util {
		neg[i] = make([]int, len(r))
		for j, v := range r {
			neg[i][j] = -v
		}
	}
	return Hungarian(neg)
}
