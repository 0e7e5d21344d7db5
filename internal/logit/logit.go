// Package logit converts cut probabilities into minimum cost multicut edge
// costs and back: the numerically stable logistic function σ, the clamp
// that keeps every cost finite, and the edge cost of Kardoost & Keuper,
// "Uncertainty in minimum cost multicuts for image and motion
// segmentation", UAI 2021, Eq. 9,
//
//	c_e = log((1−p_e)/p_e) + log((1−β)/β),
//
// with p_e the cut probability of edge e and β ∈ (0, 1) the prior cut
// probability; positive cost = the endpoints prefer to be joined. The motion
// graph (motiongraph), the image decomposition (decompose) and the
// uncertainty measure (uncertainty, u = σ(−γ)) share these definitions.
package logit

import (
	"fmt"
	"math"
)

// Probability clamp of the edge costs: cut probabilities are clamped to
// [PMin, 1−PMin] before taking logits, so that every edge cost is finite and
// bounded by |c| ≤ log((1−PMin)/PMin) + |log((1−β)/β)| ≈ 13.8 (for β = 0.5).
// One very confident edge can therefore never outweigh ~14 moderately
// confident ones, which keeps the multicut and the uncertainty (UAI'21 Eqs.
// 10–14, which sum costs) well conditioned.
const PMin = 1e-6

// CostFromProb is UAI'21 Eq. 9: c = log((1−p)/p) + log((1−β)/β) with p
// clamped to [PMin, 1−PMin]. β ∈ (0, 1) is the prior cut probability;
// β = 0.5 gives c = logit(1−p); β > 0.5 lowers every cost (more cuts).
func CostFromProb(p, beta float64) float64 {
	p = ClampProb(p)
	return math.Log((1-p)/p) + math.Log((1-beta)/beta)
}

// ClampProb clamps p to [PMin, 1−PMin] (NaN → 0.5).
func ClampProb(p float64) float64 {
	if math.IsNaN(p) {
		return 0.5
	}
	return math.Min(math.Max(p, PMin), 1-PMin)
}

// Sigmoid is the numerically stable logistic function σ(x) = 1/(1+e^(−x)):
// it never overflows (σ(+∞) = 1, σ(−∞) = 0).
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// CheckBeta returns an error unless 0 < β < 1.
func CheckBeta(beta float64) error {
	if !(beta > 0 && beta < 1) {
		return fmt.Errorf("beta must be in (0, 1), got %v", beta)
	}
	return nil
}
