package decompose

import (
	"fmt"
	"math"
	"sort"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/uncertainty"
)

// Layered extends the γ of Kardoost & Keuper (UAI 2021, Eq. 12) to the
// nodes where it is +∞ (every E-neighbour in the node's own cluster, the
// interior of a segment) by the energy change of the cheapest connected
// move found layer by layer: the node moves together with the chain of
// nodes that connects it to another cluster.
//
// Notation as in package uncertainty: costs c_e > 0 prefer a join, the
// energy is Σ_{cut e} c_e, cluster A = the cluster of v, N(v) the neighbours
// of v through E ∪ F. For a set C ⊂ A already moved to cluster B, the
// energy change of additionally moving v ∈ A \ C to B is
//
//	δ(v | C → B) = Σ_{u ∈ N(v) ∩ (A∖C)} c_vu − Σ_{u ∈ N(v) ∩ B} c_vu − Σ_{u ∈ N(v) ∩ C} c_vu
//
// (edges into A∖C become cut, edges into B and into the moved chain C become
// joined). With C = ∅ this is UAI'21's γ_B(v) (Eq. 12).
//
// Layers: layer 0 are the nodes with a finite γ (an E-neighbour in
// another cluster); their chain is {v}, their target γ's argmin
// cluster B(v) and Γ(v) = γ(v). Layer k are the nodes of A at E-distance k
// from layer 0 inside A (breadth-first search over E restricted to A). A
// node v of layer k ≥ 1 extends the chain of one of its E-neighbours w of
// layer k−1:
//
//	Γ(v) = min_w [ Γ(w) + δ(v | chain(w) → B(w)) ],  chain(v) = chain(w) ∪ {v},  B(v) = B(w)
//
// (ties: the smaller node id w). Γ(v) is therefore exactly the energy change
// of moving the E-connected set chain(v) — a path from v to a node next to
// B — from A to B, a move that keeps B ∪ chain(v) connected through E like
// UAI'21's single-node moves. Among all such paths it is the one found by
// extending the cheapest path of a neighbour one layer closer to B (a greedy
// layered search, not the minimum over all paths). Γ = γ where γ is finite;
// Γ = +∞ only for nodes whose cluster has no E-neighbour cluster at all.
// The layered uncertainty is u = σ(−Γ); the ordering ranks by −Γ (the same
// order, without σ's underflow for Γ > 745).
//
// Cost: the layers are one breadth-first search; each candidate (v, w)
// marks chain(w) (its length is w's layer + 1) and scans N(v) once, so the
// total is O(Σ_v deg_E(v)·(layer(v) + deg(v))).
func Layered(a *uncertainty.Adjacency, labels []int, res *uncertainty.Result) ([]float64, error) {
	n := a.N
	if len(labels) != n || len(res.Gamma) != n || len(res.Target) != n {
		return nil, fmt.Errorf("decompose: layered γ: %d labels, %d γ for %d nodes", len(labels), len(res.Gamma), n)
	}
	gam := make([]float64, n)
	layer := make([]int32, n)
	pred := make([]int32, n)
	tgt := make([]int, n) // target label
	var cur []int32
	for v := 0; v < n; v++ {
		pred[v] = -1
		gam[v] = math.Inf(1)
		layer[v] = -1
		tgt[v] = -1
		if !math.IsInf(res.Gamma[v], 1) {
			gam[v], layer[v], tgt[v] = res.Gamma[v], 0, res.Target[v]
			cur = append(cur, int32(v))
		}
	}
	mark := make([]int32, n) // mark[u] = token: u is on the current chain
	token := int32(0)
	var next []int32
	for k := int32(1); len(cur) > 0; k++ {
		next = next[:0]
		for _, w := range cur {
			for _, h := range a.Half[a.Off[w]:a.Off[w+1]] {
				if u := h.To; !h.Lifted && layer[u] < 0 && labels[u] == labels[w] {
					layer[u] = k
					next = append(next, u)
				}
			}
		}
		for _, v := range next {
			A := labels[v]
			best, bw := math.Inf(1), int32(-1)
			for _, h := range a.Half[a.Off[v]:a.Off[v+1]] {
				w := h.To
				if h.Lifted || layer[w] != k-1 || labels[w] != A || math.IsInf(gam[w], 1) {
					continue
				}
				token++
				for x := w; x >= 0; x = pred[x] {
					mark[x] = token
				}
				B := tgt[w]
				d := 0.0
				for _, e := range a.Half[a.Off[v]:a.Off[v+1]] {
					switch l := labels[e.To]; {
					case l == A && mark[e.To] == token:
						d -= e.Cost
					case l == A:
						d += e.Cost
					case l == B:
						d -= e.Cost
					}
				}
				if c := gam[w] + d; c < best || (c == best && w < bw) || bw < 0 {
					best, bw = c, w
				}
			}
			if bw >= 0 {
				gam[v], pred[v], tgt[v] = best, bw, tgt[bw]
			}
		}
		cur, next = next, cur
	}
	return gam, nil
}

// SingleNode returns γ₁(v) = min(γ(v), Σ_{u ∈ N(v) ∩ A} c_vu): the smallest
// energy change over every single-node relabelling of v that keeps a
// decomposition — UAI'21's moves to an E-adjacent cluster B (γ(v) =
// min_B γ_B(v)) and, in addition, the move of v to a new cluster {v} of its
// own, which cuts every edge from v into A and changes the energy by
// Σ_{u ∈ N(v) ∩ A} c_vu (UAI'21 leaves this move out). A diagnostic
// variant (ordering "proposed-singleton"), finite for every node with an
// edge into its own cluster.
func SingleNode(a *uncertainty.Adjacency, labels []int, res *uncertainty.Result) ([]float64, error) {
	if len(labels) != a.N || len(res.Gamma) != a.N {
		return nil, fmt.Errorf("decompose: single-node γ: %d labels, %d γ for %d nodes", len(labels), len(res.Gamma), a.N)
	}
	out := make([]float64, a.N)
	for v := range out {
		s, any := 0.0, false
		for _, h := range a.Half[a.Off[v]:a.Off[v+1]] {
			if labels[h.To] == labels[v] {
				s += h.Cost
				any = true
			}
		}
		out[v] = res.Gamma[v]
		if any && s < out[v] {
			out[v] = s
		}
	}
	return out, nil
}

// SegmentFloor grades every pixel by the larger of its own uncertainty and,
// in a small segment, its segment's. With u(v) = σ(−Γ(v)) (Γ of Layered)
// and UAI'21's segment uncertainty μ_A, the mean node uncertainty of
// segment A (UAI'21, the measure behind "uncertain segments";
// uncertainty.Cluster.MeanU for γ),
//
//	s(v) = max(u(v), μ_A(v))  if |A(v)| < N/K,   s(v) = u(v) otherwise,
//	μ_A = (1/|A|) Σ_{w ∈ A} u(w),
//
// with N pixels in K segments (N/K is the mean segment size). In a small
// segment a pixel is as uncertain as its own label decision or the
// decision that made its segment, whichever is less certain: a segment of a
// few hundred pixels, most of them near its boundary, is one decision — an
// over-segmentation fragment is removed whole, as the oracle removes it (a
// pixel of segment i inside annotated region j has the VI term
// −log(n_ij/a_i) − log(n_ij/b_j), large when i is a small part of j). In a
// segment of at least the mean size μ_A is mostly the share of its pixels
// near its boundary, not the doubt about the segment: flooring it would
// remove whole well-separated regions before the uncertain pixels of
// others (on BSDS val 241004, two pure segments of 10,782 and 27,053
// pixels before the interiors of two mixed ones), so its pixels keep their
// own u. The gate at the mean size was chosen on the first 100 BSDS train
// images (VI-AUC below the likelihood's on 79 % of them, against 64 %
// without it; README).
//
// The ordering "proposed-segment" removes pixels in decreasing s and, among
// equal s — the pixels of one small segment whose own u is below μ_A — in
// increasing Γ (the cheaper move first). rank returns that order as a score
// (higher = removed first; pixels equal in both s and Γ share a score, so
// the sparsification's random tie order still applies to them). σ uses the
// overflow-free form; u = 0 for Γ = +∞.
func SegmentFloor(labels []int, gamma []float64) (s, rank []float64, err error) {
	n := len(labels)
	if len(gamma) != n {
		return nil, nil, fmt.Errorf("decompose: segment floor: %d labels, %d Γ", n, len(gamma))
	}
	u := make([]float64, n)
	sum, cnt := map[int]float64{}, map[int]int{}
	for v, l := range labels {
		u[v] = logit.Sigmoid(-gamma[v])
		sum[l] += u[v]
		cnt[l]++
	}
	mean := float64(n) / float64(len(cnt)) // N/K
	s = make([]float64, n)
	for v, l := range labels {
		s[v] = u[v]
		if float64(cnt[l]) < mean {
			s[v] = math.Max(u[v], sum[l]/float64(cnt[l]))
		}
	}
	order := make([]int, n)
	for v := range order {
		order[v] = v
	}
	less := func(a, b int) bool { // a before b
		if s[a] != s[b] {
			return s[a] > s[b]
		}
		return gamma[a] < gamma[b]
	}
	sort.Slice(order, func(i, j int) bool { return less(order[i], order[j]) })
	rank = make([]float64, n)
	r := float64(n)
	for i, v := range order {
		if i > 0 && less(order[i-1], v) {
			r = float64(n - i)
		}
		rank[v] = r
	}
	return s, rank, nil
}
