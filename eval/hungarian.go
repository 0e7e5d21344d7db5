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
	rows := len(cost)
	cols := 0
	for _, r := range cost {
		cols = max(cols, len(r))
	}
	n := max(rows, cols)
	if n == 0 {
		return []int{}
	}
	c := make([][]int, n)
	for i := range c {
		c[i] = make([]int, n)
		if i < rows {
			copy(c[i], cost[i])
		}
	}

	// Subtract column minima so that every column has a zero.
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

	colMate := make([]int, n)   // column matched to row k, or -1
	rowMate := make([]int, n)   // row matched to column l, or -1
	parentRow := make([]int, n) // row from which column l was reached in the forest
	unchosen := make([]int, n)  // rows of the forest (unmatched roots first)
	rowDec := make([]int, n)    // dual variable of row k (subtracted)
	colInc := make([]int, n)    // dual variable of column l (added)
	slack := make([]int, n)     // min reduced cost from a forest row to column l
	slackRow := make([]int, n)  // the row attaining slack[l]

	// Initial state: row minima as row duals, greedy matching of zeros.
	t := 0
	for l := 0; l < n; l++ {
		rowMate[l] = -1
		parentRow[l] = -1
		slack[l] = hungarianInf
	}
	for k := 0; k < n; k++ {
		s := c[k][0]
		for l := 1; l < n; l++ {
			s = min(s, c[k][l])
		}
		rowDec[k] = s
		colMate[k] = -1
		for l := 0; l < n; l++ {
			if c[k][l] == s && rowMate[l] < 0 {
				colMate[k] = l
				rowMate[l] = k
				break
			}
		}
		if colMate[k] < 0 {
			unchosen[t] = k
			t++
		}
	}
	if t == 0 {
		return colMate
	}

	unmatched := t
	for {
		var k, l int
		q := 0
	search:
		for {
			// Explore the rows of the forest not explored yet.
			for q < t {
				k = unchosen[q]
				s := rowDec[k]
				for l = 0; l < n; l++ {
					if slack[l] == 0 {
						continue
					}
					del := c[k][l] - s + colInc[l]
					if del >= slack[l] {
						continue
					}
					if del == 0 {
						if rowMate[l] < 0 {
							break search // augmenting path ends at free column l
						}
						slack[l] = 0
						parentRow[l] = k
						unchosen[t] = rowMate[l]
						t++
					} else {
						slack[l] = del
						slackRow[l] = k
					}
				}
				q++
			}
			// No tight edge left: change the duals by the smallest slack.
			s := hungarianInf
			for l = 0; l < n; l++ {
				if slack[l] != 0 && slack[l] < s {
					s = slack[l]
				}
			}
			for q = 0; q < t; q++ {
				rowDec[unchosen[q]] += s
			}
			for l = 0; l < n; l++ {
				if slack[l] == 0 {
					colInc[l] += s
					continue
				}
				slack[l] -= s
				if slack[l] != 0 {
					continue
				}
				k = slackRow[l]
				if rowMate[l] < 0 {
					for j := l + 1; j < n; j++ {
						if slack[j] == 0 {
							colInc[j] += s
						}
					}
					break search
				}
				parentRow[l] = k
				unchosen[t] = rowMate[l]
				t++
			}
		}
		// Augment along the alternating path ending in (k, l).
		for {
			j := colMate[k]
			colMate[k] = l
			rowMate[l] = k
			if j < 0 {
				break
			}
			k = parentRow[j]
			l = j
		}
		unmatched--
		if unmatched == 0 {
			return colMate
		}
		// Next stage: a fresh forest rooted at the unmatched rows.
		t = 0
		for l = 0; l < n; l++ {
			parentRow[l] = -1
			slack[l] = hungarianInf
		}
		for k = 0; k < n; k++ {
			if colMate[k] < 0 {
				unchosen[t] = k
				t++
			}
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
