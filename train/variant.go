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
	// VariantConfidence: w = w_b · max(0, 1 − 2u), uncertainty read as label
	// noise. u_v = σ(−γ_v) (UAI'21 Eq. 13) is, at unit temperature, the
	// probability that trajectory v belongs to another cluster; a binary
	// label that is right with probability q = 1 − u carries the expected
	// signal q − (1 − q) = 1 − 2u (the weight of a label under symmetric
	// label noise of rate u, cf. Natarajan et al., NeurIPS 2013). A label
	// whose move costs nothing (γ = 0, u = ½) gets weight 0; the confident
	// majority (u ≈ 0) keeps w_b. Points without a trajectory (border and
	// far-background points) have u = 0.
	VariantConfidence Variant = "confidence"
)

// Variants lists the known variants (flag help, validation).
var Variants = []Variant{VariantHard, VariantUniform, VariantConfidence}

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
}

// NeedsUncertainty reports whether v reads the per-pixel uncertainty
// (_u.npy, prepared-set format ≥ 3).
func (v Variant) NeedsUncertainty() bool { return v == VariantConfidence }

// Weight is the loss weight of a pixel under v. For VariantHard it is
// float32(float64(w_b)·factor): the value the prepared sets held before they
// kept base weights and mask apart, so models train to the same bytes.
func (v Variant) Weight(p PixelWeight) float32 {
	switch v {
	case VariantUniform:
		return p.Base
	case VariantConfidence:
		c := 1 - 2*float64(p.U)
		if !(c > 0) {
			return 0
		}
		return float32(float64(p.Base) * min(c, 1))
	default: // VariantHard (Config.validate rejects unknown variants)
		if !p.Hard {
			return p.Base
		}
		f := p.Factor
		if f <= 0 {
			f = 1
		}
		return float32(float64(p.Base) * f)
	}
}
