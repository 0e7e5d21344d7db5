package eval

import (
	"math"
	"slices"
)

// Partition comparison measures used by the sparsification curves
// (Kardoost & Keuper, UAI 2021, Figs. 3–4): variation of information and
// Rand index between two labelings of the same n items. Both are computed
// from the contingency table n_ij = |{k : a_k = i, b_k = j}| stored sparsely
// (only non-zero cells), so they run in O(n) expected time and memory.

// contingency holds the non-zero cells of the contingency table of a and b
// together with the row sums a_i and column sums b_j.
type contingency struct {
	n     int
	cells map[[2]int]int
	rows  map[int]int
	cols  map[int]int
}

func newContingency(a, b []int) contingency {
	if len(a) != len(b) {
		panic("eval: partitions of different lengths") // programming error, not user data
	}
	c := contingency{
		n:     len(a),
		cells: make(map[[2]int]int),
		rows:  make(map[int]int),
		cols:  make(map[int]int),
	}
	for k := range a {
		c.cells[[2]int{a[k], b[k]}]++
		c.rows[a[k]]++
		c.cols[b[k]]++
	}
	return c
}

// VariationOfInformation returns VI(a, b) = H(a|b) + H(b|a)
// = H(a) + H(b) − 2 I(a; b) in NATS (natural logarithm; divide by ln 2 for
// bits), Meilă (2007). With p_ij = n_ij/n, p_i = a_i/n, q_j = b_j/n:
//
//	VI = − Σ_ij p_ij [ log(p_ij/p_i) + log(p_ij/q_j) ].
//
// VI is 0 iff the partitions are equal up to renaming labels, and at most
// log n. Empty input gives 0. The sum runs over the cells in sorted order,
// so equal inputs give bit-identical results. a and b must have equal
// lengths (panics otherwise: a programming error).
func VariationOfInformation(a, b []int) float64 {
	c := newContingency(a, b)
	if c.n == 0 {
		return 0
	}
	n := float64(c.n)
	vi := 0.0
	// Cells in sorted order, not the map's random one: floating-point sums
	// depend on the order, and the same input must give the same bits.
	keys := make([][2]int, 0, len(c.cells))
	for k := range c.cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	for _, k := range keys {
		fij := float64(c.cells[k])
		vi -= fij / n * (math.Log(fij/float64(c.rows[k[0]])) + math.Log(fij/float64(c.cols[k[1]])))
	}
	if vi < 0 { // rounding when the partitions are equal
		vi = 0
	}
	return vi
}

// PointwiseVI returns each item's term of the variation of information,
//
//	s_k = − log(n_ij/a_i) − log(n_ij/b_j),   i = a_k, j = b_k,
//
// so that VI(a, b) = (1/n) Σ_k s_k (the sum above grouped by cells). s_k is
// 0 when item k's cell is its whole row and its whole column (its cluster is
// matched exactly) and grows as the cell becomes a smaller part of either.
// Items with b_k < 0 (no ground truth) take no part: they are left out of
// the counts and get s_k = 0. Removing the items of largest s_k first is
// the oracle ordering of a sparsification plot (it sorts by the true error,
// as in Ilg et al. ECCV 2018, Sec. 5): the reference that an uncertainty
// ordering would match if it knew the ground truth. It is greedy — the
// terms are computed once on the full set, not again after each removal —
// so it bounds nothing exactly; in practice it lies well below the
// uncertainty orderings. a and b must have equal lengths (panics
// otherwise: a programming error).
func PointwiseVI(a, b []int) []float64 {
	if len(a) != len(b) {
		panic("eval: partitions of different lengths")
	}
	var ka, kb []int
	for k, j := range b {
		if j >= 0 {
			ka = append(ka, a[k])
			kb = append(kb, j)
		}
	}
	c := newContingency(ka, kb)
	out := make([]float64, len(a))
	for k, j := range b {
		if j < 0 {
			continue
		}
		i := a[k]
		fij := float64(c.cells[[2]int{i, j}])
		s := -math.Log(fij/float64(c.rows[i])) - math.Log(fij/float64(c.cols[j]))
		if s < 0 { // −0 when the cell is the whole row and column
			s = 0
		}
		out[k] = s
	}
	return out
}

// RandIndex returns the fraction of the C(n,2) unordered item pairs on which
// a and b agree (both together or both apart), Rand (1971):
//
//	RI = [ C(n,2) + 2 Σ_ij C(n_ij,2) − Σ_i C(a_i,2) − Σ_j C(b_j,2) ] / C(n,2).
//
// With fewer than two items there is no pair and RI is defined as 1. a and
// b must have equal lengths (panics otherwise: a programming error).
func RandIndex(a, b []int) float64 {
	c := newContingency(a, b)
	if c.n < 2 {
		return 1
	}
	pairs := func(m int) float64 { return float64(m) * float64(m-1) / 2 }
	var sij, si, sj float64
	for _, nij := range c.cells {
		sij += pairs(nij)
	}
	for _, ai := range c.rows {
		si += pairs(ai)
	}
	for _, bj := range c.cols {
		sj += pairs(bj)
	}
	total := pairs(c.n)
	return (total + 2*sij - si - sj) / total
}
