package train

import (
	"fmt"
	"strings"
)

// Variant is the loss weighting a model is trained with. A prepared set
// stores, per labelled pixel, the base weight w_b (class balance, ACCV'20)
// and the hard-example mask (Kardoost & Keuper, UAI 2021, Sec. 4.3), and
// its manifest records the hard-example factor; the variant composes the
// weight w of the loss Σ w ℓ / Σ w from them (Weight). Nothing is
// multiplied into the set and divided out again.
//
// A new variant (e.g. confidence weighting) adds a constant, its case in
// Weight and, when it needs more than the set holds today, a field of
// PixelWeight filled by loadFrame from a further per-pixel array.
type Variant string

const (
	// VariantHard: w = w_b · factor at hard examples, w_b elsewhere (the
	// uncertainty-weighted training of UAI'21 Sec. 4.3; the default).
	VariantHard Variant = "hard"
	// VariantUniform: w = w_b, the hard-example mask ignored (the ablation
	// baseline, UAI'21 Table 1 "w/o").
	VariantUniform Variant = "uniform"
	// VariantConfidence: w = w_b · max(0, 1 − 2u_T), uncertainty read as
	// label noise. u_T = σ(−γ_v/T) is the calibrated probability that
	// trajectory v belongs to another cluster: u_v = σ(−γ_v) (UAI'21
	// Eq. 13) is that probability at T = 1, but γ sums dozens of edge
	// log-odds and u is below 10⁻³⁰ for almost every trajectory, so the
	// temperature T (Config.Temperature; uncertainty.DefaultTemperature,
	// fitted on held-out sequences: uncertainty.FitTemperature) makes it one.
	// A binary label that is right with probability q = 1 − u_T carries the
	// expected signal q − (1 − q) = 1 − 2u_T (the weight of a label under
	// symmetric label noise of rate u_T, cf. Natarajan et al., NeurIPS 2013).
	// A label whose move costs nothing (γ = 0, u_T = ½) gets weight 0.
	// Points without a trajectory (border and far-background points) have
	// γ = +∞, u_T = 0.
	VariantConfidence Variant = "confidence"
	// VariantPrune: w = 0 for the labels of the trajectories whose γ lies
	// below the q-quantile of γ over the set's labelled trajectories (q =
	// Config.Prune; at most ⌊q·n⌋ of n trajectories, ties at the quantile
	// kept), w_b elsewhere: the most uncertain labels dropped, as a
	// sparsification curve (Ilg et al., ECCV 2018; Kardoost & Keuper,
	// UAI 2021) drops the most uncertain nodes.
	VariantPrune Variant = "prune"
	// VariantHardRight: the hard examples of VariantHard, × factor only where
	// the calibrated probability that the label is right, 1 − P(wrong | γ,
	// μ_A) under the error model (Config.ErrorModel; uncertainty.ErrorModel,
	// a logistic model on γ and the segment's μ_A), is at least
	// Config.MinRight; the other hard examples keep w_b. The oversampling
	// then amplifies labels that are probably right. A temperature cannot
	// select them: every hard example has γ below about 8, where u_T is
	// flat.
	VariantHardRight Variant = "hard-right"
)

// Variants lists the known variants (flag help, validation).
var Variants = []Variant{VariantHard, VariantUniform, VariantConfidence, VariantPrune, VariantHardRight}

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if string(v) == s {
			return v, nil
		}
	}
	names := make([]string, len(Variants))
	for i, v := range Variants {
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown training variant %q (%s)", s, strings.Join(names, ", "))
}

// PixelWeight is what a prepared set says about one labelled pixel.
type PixelWeight struct {
	Base   float32 // base weight w_b (class balance), from _weights.npy
	Hard   bool    // hard example, from _hard.npy
	Factor float64 // hard-example factor of the set (manifest; ≤ 0 read as 1)
	U      float32 // uncertainty of the labelling trajectory, from _u.npy (format ≥ 3)
	// UT is the calibrated uncertainty u_T = σ(−γ/T) of the labelling
	// trajectory (γ from _gamma.npy, format ≥ 4; U itself at T = 1).
	UT float32
	// Pruned: the trajectory is among the most uncertain (VariantPrune).
	Pruned bool
	// Right: 1 − P(wrong | γ, μ_A) reaches Config.MinRight (VariantHardRight).
	Right bool
}

// NeedsUncertainty reports whether v reads the per-pixel uncertainty
// (_u.npy, prepared-set format ≥ 3).
func (v Variant) NeedsUncertainty() bool { return v == VariantConfidence }

// NeedsGamma reports whether v, at temperature T, reads the per-pixel γ
// (_gamma.npy and gamma.npy, prepared-set format ≥ 4).
func (v Variant) NeedsGamma(T float64) bool {
	return (v == VariantConfidence && T != 1) || v == VariantPrune || v == VariantHardRight
}

// Weight is the loss weight of a pixel under v. For VariantHard it is
// float32(float64(w_b)·factor): the value the prepared sets held before they
// kept base weights and mask apart, so models train to the same bytes.
func (v Variant) Weight(p PixelWeight) float32 {
	switch v {
	case VariantUniform:
		return p.Base
	case VariantConfidence:
		c := 1 - 2*float64(p.UT)
		if !(c > 0) {
			return 0
		}
		return float32(float64(p.Base) * min(c, 1))
	case VariantPrune:
		if p.Pruned {
			return 0
		}
		return p.Base
	default: // VariantHard, VariantHardRight (Config.validate rejects unknown variants)
		if !p.Hard || (v == VariantHardRight && !p.Right) {
			return p.Base
		}
		f := p.Factor
		if f <= 0 {
			f = 1
		}
		return float32(float64(p.Base) * f)
	}
}
