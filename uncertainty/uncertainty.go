// Package uncertainty measures how certain each node's label is in a
// (lifted) minimum cost multicut solution, following Kardoost & Keuper,
// "Uncertainty in minimum cost multicuts for image and motion segmentation",
// UAI 2021 (Eqs. 10–14 and the supplementary derivation), and builds on it
// the sparsification analysis (UAI'21 Figs. 3–4) and n-best alternative
// solutions (UAI'21 Sec. 4.2). Pure Go.
//
// # The measure
//
// Edge costs are logits: c_e = log((1−p_e)/p_e) + log((1−β)/β) with p_e the
// cut probability and β the cut prior (UAI'21 Eq. 9); positive cost = the
// endpoints prefer to be joined. For node v in cluster A and every cluster
// B ≠ A that v reaches through an edge of E (not a lifted edge),
//
//	γ_B(v) = Σ_{u ∈ N_{E∪F}(v) ∩ A} c_vu − Σ_{u ∈ N_{E∪F}(v) ∩ B} c_vu
//
// is exactly the change of the multicut energy Σ c_e y_e when v alone moves
// from A to B (its edges into A become cut, its edges into B become joined,
// edges to other clusters stay cut). Lifted edges count in both sums; moves
// go only to clusters adjacent through E so the result stays a feasible
// decomposition (as in UAI'21, v is not moved to a new singleton cluster,
// whose energy change would be Σ_A c_vu). Then
//
//	γ(v) = min_B γ_B(v),   γ(v) = +∞ when v has no E-neighbour outside A.
//
// For β = 0.5, σ(γ_B) = 1/(1+e^(−γ_B)) equals UAI'21's normalised
// two-hypothesis probability that v belongs to A rather than to B,
//
//	Π_{e→A} p_join Π_{e→B} p_cut / (Π_{e→A} p_join Π_{e→B} p_cut + Π_{e→B} p_join Π_{e→A} p_cut),
//
// because log(p_join/p_cut) = c_e − log((1−β)/β) = c_e for β = 0.5. For
// β ≠ 0.5 the costs include the prior term, so γ_B is the energy change of the
// prior-shifted objective that the solver minimised; the product form with
// the unshifted probabilities then equals σ(γ_B − b·(n_A − n_B)) with
// b = log((1−β)/β) and n_A, n_B the numbers of edges from v into A and B.
//
// CONVENTION: σ(γ) is a confidence (the calibrated probability of v's
// current label against its best alternative). This package reports the
// UNCERTAINTY u(v) = 1 − σ(γ) = σ(−γ): u = 0 for nodes with no possible
// move (γ = +∞, deep inside a cluster), u = 0.5 when a move leaves the
// energy unchanged, u > 0.5 where a move would lower the energy. All
// logistic terms use overflow-free forms, so |γ| in the hundreds is fine.
//
// # Baselines
//
// The likelihood baseline (UAI'21 Eq. 11) takes the confidence of v as the
// product over ALL its edges (E and F) of p_join (endpoints joined) or p_cut
// (endpoints cut) with p_cut = σ(−(c_e − log((1−β)/β))); computed in log
// space, u_lik = 1 − exp(log confidence) = −expm1(log confidence). The random
// baseline (Random) is seeded uniform noise.
package uncertainty

import (
	"fmt"
	"math"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/multicut"
)

// Result is the uncertainty of every node of a labelled graph.
type Result struct {
	Labels []int     // the input labels (not copied)
	Gamma  []float64 // γ(v) = min_B γ_B(v); +Inf when v cannot move
	Target []int     // label of the argmin cluster B (smallest label on ties); −1 when γ = +Inf
	U      []float64 // u(v) = σ(−γ(v)) ∈ [0, 1]
	ULik   []float64 // likelihood baseline 1 − Π p_join/p_cut ∈ [0, 1]
	// ULifted is σ(−γ′) with γ′ = min_B γ_B(v) over every other cluster B
	// that v reaches through E ∪ F (lifted edges too). NOT UAI'21's
	// measure (a move to a cluster reached only by lifted edges leaves v
	// disconnected from it, an infeasible decomposition); a diagnostic
	// variant that grades nodes up to the lifted radius from a segment.
	ULifted []float64
	// ULikE is the likelihood baseline over the regular edges E only.
	ULikE []float64
	// Clusters lists every cluster in increasing label order.
	Clusters []Cluster
}

// Cluster summarises one cluster A: μ_A is the mean uncertainty of its nodes.
type Cluster struct {
	Label    int     `json:"label"`
	Size     int     `json:"size"`
	Boundary int     `json:"boundary"`                    // nodes with a possible move (γ < +∞)
	MeanU    float64 `json:"mean_uncertainty"`            // μ_A
	MeanULik float64 `json:"mean_likelihood_uncertainty"` // mean of u_lik over A
}

// LogSigmoid returns log σ(x) = −log(1+e^(−x)), accurate for large |x|.
func LogSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// PriorOffset returns b = log((1−β)/β), the prior term included in every cost.
func PriorOffset(beta float64) float64 { return math.Log((1 - beta) / beta) }

// Compute returns the uncertainty of every node of g under labels (one
// label ≥ 0 per node; cluster ids need not be contiguous) with cut prior
// beta ∈ (0,1). It validates its input and runs one O(N + |E| + |F|) sweep.
func Compute(g *multicut.Graph, labels []int, beta float64) (*Result, error) {
	adj, err := NewAdjacency(g)
	if err != nil {
		return nil, err
	}
	return adj.Compute(labels, beta)
}

func checkBeta(beta float64) error {
	if !(beta > 0 && beta < 1) {
		return fmt.Errorf("uncertainty: beta %v is not in (0,1)", beta)
	}
	return nil
}

// Compute is Compute on a prebuilt adjacency.
func (a *Adjacency) Compute(labels []int, beta float64) (*Result, error) {
	if len(labels) != a.N {
		return nil, fmt.Errorf("uncertainty: %d labels for %d nodes", len(labels), a.N)
	}
	if err := checkBeta(beta); err != nil {
		return nil, err
	}
	cl, ids, err := denseLabels(labels)
	if err != nil {
		return nil, err
	}
	r := &Result{
		Labels:  labels,
		Gamma:   make([]float64, a.N),
		Target:  make([]int, a.N),
		U:       make([]float64, a.N),
		ULik:    make([]float64, a.N),
		ULifted: make([]float64, a.N),
		ULikE:   make([]float64, a.N),
	}
	b := PriorOffset(beta)
	k := len(ids)
	cs := newClusterSums(k)
	for v := 0; v < a.N; v++ {
		A := cl[v]
		sumA, logConf, logConfE := 0.0, 0.0, 0.0
		cs.reset()
		for _, h := range a.Half[a.Off[v]:a.Off[v+1]] {
			c := cl[h.To]
			x := h.Cost - b // log(p_join/p_cut)
			if c == A {
				sumA += h.Cost
				l := LogSigmoid(x)
				logConf += l
				if !h.Lifted {
					logConfE += l
				}
				continue
			}
			l := LogSigmoid(-x)
			logConf += l
			if !h.Lifted {
				logConfE += l
			}
			cs.add(v, c, h)
		}
		gamma, target := math.Inf(1), int32(-1)
		gammaL := math.Inf(1)
		for _, c := range cs.touched {
			g := sumA - cs.sum[c]
			gammaL = math.Min(gammaL, g)
			if !cs.eadj[c] {
				continue
			}
			if g < gamma || (g == gamma && c < target) {
				gamma, target = g, c
			}
		}
		r.ULifted[v] = logit.Sigmoid(-gammaL)
		r.ULikE[v] = -math.Expm1(logConfE)
		r.Gamma[v] = gamma
		r.U[v] = logit.Sigmoid(-gamma)
		r.ULik[v] = -math.Expm1(logConf)
		if target >= 0 {
			r.Target[v] = ids[target]
		} else {
			r.Target[v] = -1
		}
	}
	r.Clusters = make([]Cluster, k)
	for i, l := range ids {
		r.Clusters[i].Label = l
	}
	for v := 0; v < a.N; v++ {
		c := &r.Clusters[cl[v]]
		c.Size++
		c.MeanU += r.U[v]
		c.MeanULik += r.ULik[v]
		if !math.IsInf(r.Gamma[v], 1) {
			c.Boundary++
		}
	}
	for i := range r.Clusters {
		c := &r.Clusters[i]
		c.MeanU /= float64(c.Size)
		c.MeanULik /= float64(c.Size)
	}
	return r, nil
}

// clusterSums accumulates, for one node v at a time, Σ_{u ∈ N_{E∪F}(v) ∩ B} c_vu
// for every other cluster B (dense id) next to v, and whether v reaches B
// through E: the second term of γ_B(v). Only the clusters in touched are
// valid for the current node; stamp[c] = v+1 marks them, so nothing needs
// clearing between nodes.
type clusterSums struct {
	stamp   []int32
	sum     []float64
	eadj    []bool
	touched []int32
}

func newClusterSums(k int) *clusterSums {
	return &clusterSums{stamp: make([]int32, k), sum: make([]float64, k), eadj: make([]bool, k), touched: make([]int32, 0, 64)}
}

// reset starts a new node.
func (s *clusterSums) reset() { s.touched = s.touched[:0] }

// add counts the half-edge h of node v into cluster c.
func (s *clusterSums) add(v int, c int32, h half) {
	if s.stamp[c] != int32(v+1) {
		s.stamp[c] = int32(v + 1)
		s.sum[c] = 0
		s.eadj[c] = false
		s.touched = append(s.touched, c)
	}
	s.sum[c] += h.Cost
	if !h.Lifted {
		s.eadj[c] = true
	}
}

// Move is one single-node move of UAI'21 Sec. 4.2: node V from cluster
// From to the E-adjacent cluster To changes the energy by Delta = γ_To(V).
type Move struct {
	V        int
	From, To int // labels
	Delta    float64
}

// Moves lists every possible single-node move (v, A → B) with B reached
// from v through E, with its exact energy change γ_B(v). Order: by node, then
// by target label. O(N + |E| + |F|) plus the output.
func (a *Adjacency) Moves(labels []int) ([]Move, error) {
	if len(labels) != a.N {
		return nil, fmt.Errorf("uncertainty: %d labels for %d nodes", len(labels), a.N)
	}
	cl, ids, err := denseLabels(labels)
	if err != nil {
		return nil, err
	}
	cs := newClusterSums(len(ids))
	var moves []Move
	for v := 0; v < a.N; v++ {
		A := cl[v]
		sumA := 0.0
		cs.reset()
		for _, h := range a.Half[a.Off[v]:a.Off[v+1]] {
			c := cl[h.To]
			if c == A {
				sumA += h.Cost
				continue
			}
			cs.add(v, c, h)
		}
		start := len(moves)
		for _, c := range cs.touched {
			if cs.eadj[c] {
				moves = append(moves, Move{V: v, From: ids[A], To: ids[c], Delta: sumA - cs.sum[c]})
			}
		}
		// dense ids are in label order: sort this node's few moves by target
		for i := start + 1; i < len(moves); i++ {
			for j := i; j > start && moves[j].To < moves[j-1].To; j-- {
				moves[j], moves[j-1] = moves[j-1], moves[j]
			}
		}
	}
	return moves, nil
}
