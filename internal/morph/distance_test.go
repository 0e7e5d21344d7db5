package morph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The transform equals the brute-force minimum over all target pixels, on
// random images of several densities, including none and all targets.
func TestSquaredDistanceBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial, p := range []float64{0, 0.002, 0.05, 0.5, 0.97, 1} {
		W, H := 23+trial, 17+2*trial
		img := make([]bool, W*H)
		for i := range img {
			img[i] = rng.Float64() < p
		}
		for _, target := range []bool{true, false} {
			got := SquaredDistance(img, W, H, target)
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					want := math.Inf(1)
					for v := 0; v < H; v++ {
						for u := 0; u < W; u++ {
							if img[v*W+u] == target {
								want = min(want, float64((x-u)*(x-u)+(y-v)*(y-v)))
							}
						}
					}
					if g := got[y*W+x]; g != want {
						t.Fatalf("p %v target %v: d²(%d,%d) = %v, want %v", p, target, x, y, g, want)
					}
				}
			}
		}
	}
}
