package uncertainty

import "math/rand"

// Random is the random baseline of the sparsification analysis: n
// uncertainties drawn uniformly from [0,1) by a generator seeded with seed
// (math/rand's deterministic source, so equal seeds give equal orderings).
func Random(n int, seed int64) []float64 {
	rng := rand.New(rand.NewSource(seed))
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.Float64()
	}
	return u
}
