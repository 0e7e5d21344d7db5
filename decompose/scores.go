package decompose

import (
	"fmt"
	"math/rand"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/uncertainty"
)

// RegionScores compare a decomposition with the human segmentations.
type RegionScores struct {
	// VI is the mean over annotators of the variation of information (nats).
	VI float64 `json:"vi"`
	// PRI is the probabilistic Rand index: the mean over annotators of the
	// Rand index (Unnikrishnan, Pantofaru, Hebert, TPAMI 2007).
	PRI float64 `json:"pri"`
	// Covering is the mean over annotators of the covering of the
	// annotator's segmentation G by the decomposition S (Arbelaez et al.
	// TPAMI 2011, Eq. 13): C(S→G) = (1/N) Σ_{R∈G} |R| max_{R'∈S} |R∩R'|/|R∪R'|.
	Covering float64 `json:"covering"`
}

// Covering returns C(pred → gt) as in RegionScores (labels ≥ 0, same length).
func Covering(pred, gt []int) float64 {
	if len(pred) == 0 {
		return 1
	}
	type cell struct{ g, p int }
	inter := map[cell]int{}
	gs, ps := map[int]int{}, map[int]int{}
	for i := range pred {
		inter[cell{gt[i], pred[i]}]++
		gs[gt[i]]++
		ps[pred[i]]++
	}
	best := map[int]float64{}
	for c, n := range inter {
		o := float64(n) / float64(gs[c.g]+ps[c.p]-n)
		if o > best[c.g] {
			best[c.g] = o
		}
	}
	s := 0.0
	for g, n := range gs {
		s += float64(n) * best[g]
	}
	return s / float64(len(pred))
}

// Score computes the region scores of labels against every annotation.
func Score(labels []int, anns []bsds.Annotation) (RegionScores, error) {
	var r RegionScores
	if len(anns) == 0 {
		return r, fmt.Errorf("decompose: no annotations")
	}
	for _, a := range anns {
		if len(a.Segment) != len(labels) {
			return r, fmt.Errorf("decompose: annotation of %d pixels for %d labels", len(a.Segment), len(labels))
		}
		r.VI += eval.VariationOfInformation(labels, a.Segment)
		r.PRI += eval.RandIndex(labels, a.Segment)
		r.Covering += Covering(labels, a.Segment)
	}
	k := float64(len(anns))
	r.VI, r.PRI, r.Covering = r.VI/k, r.PRI/k, r.Covering/k
	return r, nil
}

// SparsifyOptions configure the pixel sparsification.
type SparsifyOptions struct {
	Step float64 `json:"step"` // removal step (default 0.05)
	Max  float64 `json:"max"`  // largest removed fraction (default 0.9)
	// Stride subsamples the pixels that are ranked: every Stride-th pixel in
	// x and y (default 2, a quarter of the pixels: the curves of a 481×321
	// image then rest on 38 801 pixels, and VI/RI cost a quarter).
	Stride int   `json:"stride"`
	Seed   int64 `json:"seed"` // random baseline and tie order
}

func (o *SparsifyOptions) defaults() {
	if o.Step == 0 {
		o.Step = 0.05
	}
	if o.Max == 0 {
		o.Max = 0.9
	}
	if o.Stride == 0 {
		o.Stride = 2
	}
}

// Orderings are the names of the sparsification orderings, in order.
//
// "proposed", "likelihood" and "random" are the three orderings of
// Kardoost & Keuper (UAI 2021); "proposed-lifted" (moves also to segments
// reached only by lifted edges, uncertainty.Result.ULifted) and
// "likelihood-E" (the likelihood over E only, ULikE) are diagnostic
// variants, not UAI'21's measure. "oracle"
// knows the ground truth: against each annotator it removes the pixels of
// largest VI term first (eval.PointwiseVI), the reference the uncertainty
// orderings are read against.
//
// "proposed-layered" ranks by Γ (Layered), "proposed-singleton" by γ₁
// (SingleNode), "proposed-segment" by σ(−Γ) floored at μ_A in segments smaller than the
// mean, Γ breaking ties (SegmentFloor).
var Orderings = []string{"proposed", "likelihood", "random", "proposed-lifted", "likelihood-E", "proposed-layered", "proposed-singleton", "proposed-segment", Oracle}

// Oracle is the name of the ground-truth ordering.
const Oracle = uncertainty.Oracle

// pixelScores returns the per-pixel score (higher = removed first) of every
// ordering of Orderings that the decomposition alone fixes: all but the
// random one, drawn where it is used, and the oracle, drawn per annotator.
func (r *Result) pixelScores() map[string][]float64 {
	u := r.Uncertainty
	return map[string][]float64{"proposed": u.U, "likelihood": u.ULik, "proposed-lifted": u.ULifted, "likelihood-E": u.ULikE,
		"proposed-layered": negate(r.GammaLayered), "proposed-singleton": negate(r.GammaSingle), "proposed-segment": r.SegmentRank}
}

// Sparsify computes the sparsification curves of the proposed (u = σ(−γ)),
// likelihood and random orderings (and the variants of Orderings) against
// every annotator with uncertainty.Sparsify and averages them over the
// annotators point-wise (uncertainty.AverageCurves; the AUCs are those of
// the mean curves). The oracle ordering is the only one that differs per
// annotator: it ranks by the pixel's VI term against that annotator.
//
// Ties: the proposed u is exactly 0 for every pixel with no E-neighbour in
// another segment (γ = +∞), i.e. most pixels. uncertainty.Sparsify breaks
// ties by node id, which on a pixel grid would remove the top rows first;
// here the pixels are put in one random order (seeded, the same for all
// orderings) before ranking, so ties are broken at random.
func Sparsify(r *Result, anns []bsds.Annotation, opt SparsifyOptions) ([]uncertainty.Curve, error) {
	labels, w, h := r.Labels, r.W, r.H
	opt.defaults()
	fr, err := uncertainty.Fractions(opt.Step, opt.Max)
	if err != nil {
		return nil, err
	}
	if opt.Stride < 1 {
		return nil, fmt.Errorf("sparsify: stride %d < 1", opt.Stride)
	}
	full := r.pixelScores()
	if len(labels) != w*h {
		return nil, fmt.Errorf("sparsify: %d labels for a %d×%d image", len(labels), w, h)
	}
	for _, name := range Orderings {
		if sc := full[name]; name != "random" && name != Oracle && len(sc) != w*h {
			return nil, fmt.Errorf("sparsify: ordering %s has %d scores for a %d×%d image", name, len(sc), w, h)
		}
	}
	var idx []int
	for y := 0; y < h; y += opt.Stride {
		for x := 0; x < w; x += opt.Stride {
			idx = append(idx, y*w+x)
		}
	}
	rng := rand.New(rand.NewSource(opt.Seed))
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	n := len(idx)
	pred := make([]int, n)
	for k, i := range idx {
		pred[k] = labels[i]
	}
	var ords []uncertainty.Ordering
	for _, name := range Orderings {
		var sc []float64
		switch name {
		case "random":
			sc = uncertainty.Random(n, opt.Seed+1)
		case Oracle: // per annotator, below (the last name of Orderings)
			continue
		default:
			sc = make([]float64, n)
			for k, i := range idx {
				sc[k] = full[name][i]
			}
		}
		ords = append(ords, uncertainty.Ordering{Name: name, Scores: [][]float64{sc}})
	}
	sets := make([][]uncertainty.Curve, len(anns))
	gt := make([]int, n)
	for a, ann := range anns {
		for k, i := range idx {
			gt[k] = ann.Segment[i]
		}
		if sets[a], err = uncertainty.Sparsify(pred, gt, append(ords[:len(ords):len(ords)], uncertainty.OracleOrdering(pred, gt)), fr); err != nil {
			return nil, err
		}
	}
	return uncertainty.AverageCurves(sets)
}
