package refine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The bilateral grid's normalised sums against the O(N²) sums of the
// Gaussian appearance kernel on a small frame of two colour regions with
// noise: the kernel-weighted mean of a random field at every pixel.
func TestBilateralGridAgainstBruteForce(t *testing.T) {
	const w, h = 40, 30
	const sS, sC = 5.0, 13.0
	rng := rand.New(rand.NewPCG(7, 9))
	rgb := make([]float64, 3*w*h)
	v := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			c := [3]float64{60, 140, 80}
			if (x-20)*(x-20)+(y-15)*(y-15) < 100 {
				c = [3]float64{200, 50, 40}
			}
			for k := range c {
				rgb[3*i+k] = c[k] + 8*rng.NormFloat64()
			}
			v[i] = rng.Float64()
		}
	}
	g := newBilateralGrid(rgb, w, h, sS, sC)
	num, den := g.filter(v), g.filter(constant(w*h, 1.0))
	worst := 0.0
	for i := 0; i < w*h; i++ {
		var sn, sd float64
		for j := 0; j < w*h; j++ {
			dx, dy := float64(i%w-j%w), float64(i/w-j/w)
			dc := sq(rgb[3*i]-rgb[3*j]) + sq(rgb[3*i+1]-rgb[3*j+1]) + sq(rgb[3*i+2]-rgb[3*j+2])
			k := math.Exp(-(dx*dx+dy*dy)/(2*sS*sS) - dc/(2*sC*sC))
			sn += k * v[j]
			sd += k
		}
		worst = max(worst, math.Abs(num[i]/den[i]-sn/sd))
	}
	t.Logf("largest difference of the normalised sums: %.4f", worst)
	if worst > 0.05 {
		t.Fatalf("bilateral grid's kernel means differ from the exact ones by up to %.4f, want ≤ 0.05", worst)
	}
}

// ringFrame is a red ring (radii 8–12) around a hole of the background's
// colour, with noise, and the probabilities of a network that fills the
// hole: 0.8 on the whole disk of radius 12, 0.05 elsewhere.
func ringFrame() (rgb, p []float64, ring, hole []bool, w, h int) {
	w, h = 120, 120
	rng := rand.New(rand.NewPCG(3, 5))
	rgb, p = make([]float64, 3*w*h), make([]float64, w*h)
	ring, hole = make([]bool, w*h), make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i, r := y*w+x, math.Hypot(float64(x-60), float64(y-60))
			c := [3]float64{70, 130, 90}
			p[i] = 0.05
			switch {
			case r < 8:
				p[i], hole[i] = 0.8, true
			case r <= 12:
				c, p[i], ring[i] = [3]float64{210, 40, 40}, 0.8, true
			}
			for k := range c {
				rgb[3*i+k] = c[k] + 6*rng.NormFloat64()
			}
		}
	}
	return
}

// The dense CRF takes back a hole the network filled, whose colour is the
// background's around it, and keeps the ring; weight 0 leaves the
// probabilities as they are.
func TestDenseCRFTakesBackAFilledHole(t *testing.T) {
	rgb, p, ring, hole, w, h := ringFrame()
	mean := func(q []float64, in []bool) float64 {
		s, n := 0.0, 0
		for i, b := range in {
			if b {
				s += q[i]
				n++
			}
		}
		return s / float64(n)
	}
	q := denseCRF(rgb, p, w, h, 5)
	out := make([]bool, w*h)
	for i := range out {
		out[i] = !ring[i] && !hole[i]
	}
	t.Logf("mean Q: ring %.3f, hole %.3f, outside %.4f", mean(q, ring), mean(q, hole), mean(q, out))
	if mean(q, hole) > 0.2 || mean(q, ring) < 0.9 || mean(q, out) > 0.05 {
		t.Fatalf("mean Q: ring %.3f (want ≥ 0.9), hole %.3f (want ≤ 0.2), outside %.4f (want ≤ 0.05)",
			mean(q, ring), mean(q, hole), mean(q, out))
	}
	q0 := denseCRF(rgb, p, w, h, 0)
	for i := range q0 {
		if math.Abs(q0[i]-p[i]) > 1e-9 {
			t.Fatalf("weight 0 moved pixel %d from %v to %v", i, p[i], q0[i])
		}
	}
}
