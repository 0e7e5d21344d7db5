package decompose

import (
	"math"
	"math/rand"
	"sort"
)

// RemovalMask marks the fraction f of pixels removed first when ranking by
// score (largest first), ties in one random order drawn from seed (as
// Sparsify).
func RemovalMask(score []float64, f float64, seed int64) []bool {
	order := rand.New(rand.NewSource(seed)).Perm(len(score))
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	m := int(math.Round(f * float64(len(score))))
	out := make([]bool, len(score))
	for _, i := range order[:m] {
		out[i] = true
	}
	return out
}
