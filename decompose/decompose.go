package decompose

import (
	"fmt"
	"image"
	"math"
	"time"

	"github.com/densify/densify/boundary"
	"github.com/densify/densify/bsds"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/uncertainty"
)

// Options configure one decomposition.
type Options struct {
	Graph GraphParams `json:"graph"`
	// Model is the boundary model; nil uses boundary.Default().
	Model *boundary.Model `json:"-"`
	// KLjMaxIter bounds KLj's outer iterations (0: multicut's default).
	KLjMaxIter int `json:"klj_max_iter"`
	// KLjMultilevel runs KLj's multilevel refinement after the node-level
	// search (multicut.KLjOptions.Levels nil; `densify decompose
	// --multilevel`). Off by default: on the first 20 val images it takes
	// the mean time per image from 5.0 to 15.6 s (the budget is 10 s) for
	// mixed region scores, VI 1.606 → 1.671, PRI 0.709 → 0.722, covering
	// 0.488 → 0.486 (val 101085: energy after absorption −283,992 →
	// −287,990). With the size-bounded GAEC coarsening of the first
	// version it took ~10× the node-level time.
	KLjMultilevel bool `json:"klj_multilevel"`
	// KLjFullSweep is multicut.KLjOptions.FullSweep: KLj's second phase
	// runs to their end the sequences of pairs of at most this many nodes,
	// every split and every pair of two large clusters (0: multicut's
	// default, 1000, DefaultOptions' value; negative: no second phase). Without it (and with the group moves)
	// the first 25 train images took 4.0 s each on average against 6.3 s,
	// at a cost in quality: PRI 0.724 against 0.751, covering 0.493
	// against 0.503.
	KLjFullSweep int `json:"klj_full_sweep"`
	// KLjGroupMoves is multicut.KLjOptions.GroupMoves, the length bound of
	// KLj's connected group moves (0: multicut's default; negative: none,
	// DefaultOptions' value, see kljOptions).
	KLjGroupMoves int             `json:"klj_group_moves"`
	Sparsify      SparsifyOptions `json:"sparsify"`
	// GammaCosts chooses the edge weights of γ, Γ and γ₁: "logit" (default,
	// "" too) uses the β-free logits log((1−p_e)/p_e), so that σ(γ_B(v)) is
	// exactly the normalised two-hypothesis probability of Kardoost & Keuper
	// Π_{e→A} p_join Π_{e→B} p_cut / (… + Π_{e→B} p_join Π_{e→A} p_cut)
	// (UAI'21 Eqs. 10–12, products of the edge probabilities; see package
	// uncertainty) and the measure rests on the same probabilities as the
	// likelihood baseline; "prior" uses the solver's costs c_e = logit +
	// log((1−β)/β) (the energy change of the prior-shifted objective, what
	// package uncertainty computes for the motion graphs; equal for β = ½).
	GammaCosts string `json:"gamma_costs"`
}

// GammaCostsOf validates a GammaCosts name ("" means "logit").
func GammaCostsOf(s string) (string, error) {
	switch s {
	case "", "logit":
		return "logit", nil
	case "prior":
		return s, nil
	}
	return "", fmt.Errorf("gamma costs must be logit or prior, got %q", s)
}

// DefaultOptions are the defaults of `densify decompose`.
func DefaultOptions() Options {
	return Options{Graph: DefaultGraphParams(), GammaCosts: "logit", KLjFullSweep: 1000, KLjGroupMoves: -1}
}

// kljOptions are KLj's options for a pixel graph, started from GAEC's
// labelling start.
//
// No join-and-evict moves: a pixel graph ends KLj with ~30,000 small
// clusters, and trying each of them took KLj from 3.1 to 5.5 s on val
// 101085 for an energy 1.1 lower (of −489,829), which absorbing small
// segments gives back. No connected group moves by default either
// (KLjGroupMoves −1): on val 236037 (615,200 regular and 1,200,378 lifted
// edges) they took 4.5 of KLj's 22 s for an energy 18.3 lower (of
// −323,619); without them the first 25 train images keep their region
// scores to 0.001 (VI 1.493, PRI 0.751, covering 0.503) and the mean time
// per image falls from 6.3 to 5.0 s (the slowest from 12.2 to 8.9 s).
// The multilevel refinement only with KLjMultilevel.
func (o Options) kljOptions(start []int) multicut.KLjOptions {
	k := multicut.KLjOptions{Start: start, MaxIter: o.KLjMaxIter, JoinEvict: -1, GroupMoves: o.KLjGroupMoves, FullSweep: o.KLjFullSweep}
	if !o.KLjMultilevel {
		k.Levels = []int{}
	}
	return k
}

// Timing is the wall time of each stage, in seconds.
type Timing struct {
	Boundary    float64 `json:"boundary_s"`
	Graph       float64 `json:"graph_s"`
	GAEC        float64 `json:"gaec_s"`
	KLj         float64 `json:"klj_s"`
	Absorb      float64 `json:"absorb_s"`
	Uncertainty float64 `json:"uncertainty_s"`
	Total       float64 `json:"total_s"`
}

// Result is the decomposition of one image.
type Result struct {
	W, H        int
	Boundary    []float32 // boundary probability per pixel
	Graph       *multicut.Graph
	Labels      []int // segment per pixel (row-major), canonical
	Uncertainty *uncertainty.Result
	// GammaLayered is Γ per pixel (Layered): UAI'21's γ where finite,
	// else the energy change of the cheapest layered chain move.
	GammaLayered []float64
	// GammaSingle is γ₁ per pixel (SingleNode, diagnostic).
	GammaSingle []float64
	// SegmentU is σ(−Γ) per pixel, floored at μ_A in segments smaller than
	// the mean, and SegmentRank its removal order with Γ breaking ties
	// (SegmentFloor; ordering "proposed-segment").
	SegmentU, SegmentRank []float64
	EnergyGAEC            float64
	EnergyKLj             float64
	Energy                float64 // after AbsorbSmall
	Timing                Timing
}

// Decompose computes the boundary map of img, builds the pixel graph, solves
// the lifted multicut with GAEC followed by KLj (started from GAEC's
// labelling) and computes the per-pixel uncertainty with the same β.
func Decompose(img image.Image, opt Options) (*Result, error) {
	m := opt.Model
	if m == nil {
		m = boundary.Default()
	}
	t0 := time.Now()
	tick := func() float64 { s := time.Since(t0).Seconds(); t0 = time.Now(); return s }
	r := &Result{}
	r.W, r.H, r.Boundary = m.Map(img)
	r.Timing.Boundary = tick()
	g, err := BuildGraph(r.Boundary, r.W, r.H, opt.Graph)
	if err != nil {
		return nil, err
	}
	r.Graph = g
	r.Timing.Graph = tick()
	start, err := multicut.GAEC(g)
	if err != nil {
		return nil, err
	}
	r.EnergyGAEC = multicut.Energy(g, start)
	r.Timing.GAEC = tick()
	if r.Labels, err = multicut.KLj(g, opt.kljOptions(start)); err != nil {
		return nil, err
	}
	r.EnergyKLj = multicut.Energy(g, r.Labels)
	r.Timing.KLj = tick()
	r.Labels = AbsorbSmall(g, r.Labels, opt.Graph.MinSize)
	r.Energy = multicut.Energy(g, r.Labels)
	r.Timing.Absorb = tick()
	if err := r.measure(opt); err != nil {
		return nil, err
	}
	r.Timing.Uncertainty = tick()
	r.Timing.Total = r.Timing.Boundary + r.Timing.Graph + r.Timing.GAEC + r.Timing.KLj + r.Timing.Absorb + r.Timing.Uncertainty
	return r, nil
}

// measure computes the per-pixel uncertainties of r.Labels on r.Graph
// (UAI'21's γ and the likelihood with the costs opt.GammaCosts names, Layered's
// Γ and SingleNode's γ₁).
func (r *Result) measure(opt Options) error {
	adj, err := uncertainty.NewAdjacency(r.Graph)
	if err != nil {
		return err
	}
	gc, err := GammaCostsOf(opt.GammaCosts)
	if err != nil {
		return err
	}
	beta := opt.Graph.Beta
	if gc == "logit" { // remove the prior term from the adjacency's copy of the costs
		b := uncertainty.PriorOffset(beta)
		for i := range adj.Half {
			adj.Half[i].Cost -= b
		}
		beta = 0.5
	}
	if r.Uncertainty, err = adj.Compute(r.Labels, beta); err != nil {
		return err
	}
	if r.GammaLayered, err = Layered(adj, r.Labels, r.Uncertainty); err != nil {
		return err
	}
	if r.GammaSingle, err = SingleNode(adj, r.Labels, r.Uncertainty); err != nil {
		return err
	}
	r.SegmentU, r.SegmentRank, err = SegmentFloor(r.Labels, r.GammaLayered)
	return err
}

// Evaluation compares a decomposition with the annotators.
type Evaluation struct {
	Annotators int                 `json:"annotators"`
	Regions    RegionScores        `json:"regions"`
	Curves     []uncertainty.Curve `json:"curves"`
	// VIAUC and RIAUC are the areas under the annotator-averaged curves per ordering.
	VIAUC map[string]float64 `json:"vi_auc"`
	RIAUC map[string]float64 `json:"ri_auc"`
	// BoundaryShare is, per ordering, the fraction of the first 10 % of
	// removed pixels that lie on a segment boundary of the decomposition
	// (a pixel with a 4-neighbour in another segment); BoundaryBase is the
	// fraction of all pixels on a boundary (UAI'21 Fig. 8: uncertain pixels
	// are boundary pixels).
	BoundaryShare map[string]float64 `json:"boundary_share_first10"`
	BoundaryBase  float64            `json:"boundary_share_all"`
}

// Evaluate computes region scores and sparsification curves of r.
func Evaluate(r *Result, anns []bsds.Annotation, opt SparsifyOptions) (*Evaluation, error) {
	for k, a := range anns {
		if a.W != r.W || a.H != r.H {
			return nil, fmt.Errorf("decompose: annotation %d is %d×%d, the image %d×%d", k+1, a.W, a.H, r.W, r.H)
		}
	}
	ev := &Evaluation{Annotators: len(anns), VIAUC: map[string]float64{}, RIAUC: map[string]float64{}, BoundaryShare: map[string]float64{}}
	var err error
	if ev.Regions, err = Score(r.Labels, anns); err != nil {
		return nil, err
	}
	if ev.Curves, err = Sparsify(r, anns, opt); err != nil {
		return nil, err
	}
	for _, c := range ev.Curves {
		ev.VIAUC[c.Name], ev.RIAUC[c.Name] = c.AUCVI, c.AUCRI
	}
	onB := SegmentBoundaries(r.Labels, r.W, r.H)
	nb := 0
	for _, b := range onB {
		if b {
			nb++
		}
	}
	ev.BoundaryBase = float64(nb) / float64(len(onB))
	opt.defaults()
	scores := r.pixelScores()
	scores["random"] = uncertainty.Random(len(onB), opt.Seed+1)
	for name, sc := range scores {
		rm := RemovalMask(sc, 0.1, opt.Seed)
		k, hit := 0, 0
		for i, x := range rm {
			if x {
				k++
				if onB[i] {
					hit++
				}
			}
		}
		ev.BoundaryShare[name] = float64(hit) / math.Max(1, float64(k))
	}
	return ev, nil
}

// SegmentBoundaries marks the pixels with a 4-neighbour in another segment.
func SegmentBoundaries(labels []int, w, h int) []bool {
	out := make([]bool, len(labels))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if (x+1 < w && labels[i+1] != labels[i]) || (y+1 < h && labels[i+w] != labels[i]) {
				out[i] = true
				if x+1 < w && labels[i+1] != labels[i] {
					out[i+1] = true
				}
				if y+1 < h && labels[i+w] != labels[i] {
					out[i+w] = true
				}
			}
		}
	}
	return out
}

// negate returns −x per element (Γ → a score that ranks like σ(−Γ)).
func negate(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = -v
	}
	return out
}
