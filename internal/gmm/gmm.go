// Package gmm holds the Gaussian mixture colour model of GrabCut, shared by
// the colour check of the training labels (trainset) and the graph-cut
// refinement of the dense masks (refine).
package gmm

import (
	"errors"
	"math"
)

// Mixture is a Gaussian mixture over RGB colours (0–255 per channel) with full
// covariances, the colour model of GrabCut (Rother, Kolmogorov & Blake,
// SIGGRAPH 2004, Sec. 3.1: K = 5 components per side).
type Mixture struct {
	Weight []float64
	Mean   [][3]float64
	Cov    [][9]float64 // row-major 3×3, including the regularisation Eps·I
	inv    [][9]float64
	logc   []float64 // log Weight − ½ log det Cov − (3/2) log 2π
}

// covEps is added to every covariance's diagonal (in squared grey levels):
// a component of one flat colour (saturated sky, a black shadow) would
// otherwise have a singular covariance and an unbounded density. 4 is a
// standard deviation of 2 levels, about the noise of a JPEG frame.
const covEps = 4.0

// Fit fits a mixture of at most k components to colours (3 values per
// sample). The components are found as GrabCut finds them: the colour
// quantisation of Orchard & Bouman ("Color quantization of images", IEEE
// Trans. Signal Processing 39(12), 1991) splits, k − 1 times, the cluster
// with the largest principal variance by the plane through its mean normal
// to its principal axis; then hard-assignment rounds (each sample to the
// component of highest weighted density, parameters re-estimated; Rother et
// al. 2004, Fig. 3 steps 1–2) refine them. It is deterministic. An error
// when there are no samples.
func Fit(colours []float64, k, rounds int) (*Mixture, error) {
	n := len(colours) / 3
	if n == 0 || len(colours)%3 != 0 {
		return nil, errors.New("gmm: no colour samples")
	}
	if k < 1 {
		return nil, errors.New("gmm: k must be ≥ 1")
	}
	label := make([]int, n)
	// Orchard–Bouman splitting.
	stats := []clusterStats{collect(colours, label, 0)}
	for len(stats) < k {
		best, bestL := -1, 0.0
		var bestE [3]float64
		for c, s := range stats {
			if s.n < 2 {
				continue
			}
			_, cov := s.moments()
			e, l := principal(cov)
			if l > bestL {
				best, bestL, bestE = c, l, e
			}
		}
		if best < 0 || bestL <= 1e-9 {
			break // every cluster is a single colour
		}
		m, _ := stats[best].moments()
		cut := bestE[0]*m[0] + bestE[1]*m[1] + bestE[2]*m[2]
		nc := len(stats)
		for i := 0; i < n; i++ {
			if label[i] == best {
				x := colours[3*i : 3*i+3]
				if bestE[0]*x[0]+bestE[1]*x[1]+bestE[2]*x[2] > cut {
					label[i] = nc
				}
			}
		}
		stats[best] = collect(colours, label, best)
		stats = append(stats, collect(colours, label, nc))
	}
	g := fromStats(stats, n)
	for r := 0; r < rounds; r++ {
		for i := 0; i < n; i++ {
			label[i] = g.best(colours[3*i : 3*i+3])
		}
		stats = stats[:0]
		for c := range g.Weight {
			if s := collect(colours, label, c); s.n > 0 {
				stats = append(stats, s)
			}
		}
		g = fromStats(stats, n)
	}
	return g, nil
}

type clusterStats struct {
	n    float64
	sum  [3]float64
	prod [9]float64
}

func collect(colours []float64, label []int, c int) clusterStats {
	var s clusterStats
	for i, l := range label {
		if l != c {
			continue
		}
		x := colours[3*i : 3*i+3]
		s.n++
		for a := 0; a < 3; a++ {
			s.sum[a] += x[a]
			for b := 0; b < 3; b++ {
				s.prod[3*a+b] += x[a] * x[b]
			}
		}
	}
	return s
}

// moments are the mean and the (maximum-likelihood) covariance.
func (s clusterStats) moments() (m [3]float64, cov [9]float64) {
	for a := 0; a < 3; a++ {
		m[a] = s.sum[a] / s.n
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			cov[3*a+b] = s.prod[3*a+b]/s.n - m[a]*m[b]
		}
	}
	return m, cov
}

// principal is the unit eigenvector of the largest eigenvalue of a
// symmetric positive semi-definite 3×3 matrix, and that eigenvalue, by
// power iteration from the axis of the largest diagonal entry (which is not
// orthogonal to the principal eigenvector unless that entry's axis is
// itself orthogonal to it, when the second start is used).
func principal(c [9]float64) ([3]float64, float64) {
	var best [3]float64
	bestL := -1.0
	for _, start := range [][3]float64{{1, 1, 1}, {1, -0.5, 0.25}} {
		v := start
		var l float64
		for it := 0; it < 100; it++ {
			var w [3]float64
			for a := 0; a < 3; a++ {
				w[a] = c[3*a]*v[0] + c[3*a+1]*v[1] + c[3*a+2]*v[2]
			}
			norm := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
			if norm == 0 {
				break
			}
			l = norm
			v = [3]float64{w[0] / norm, w[1] / norm, w[2] / norm}
		}
		if l > bestL {
			best, bestL = v, l
		}
	}
	return best, bestL
}

func fromStats(stats []clusterStats, n int) *Mixture {
	g := &Mixture{}
	for _, s := range stats {
		if s.n == 0 {
			continue
		}
		m, cov := s.moments()
		for a := 0; a < 3; a++ {
			cov[4*a] += covEps
		}
		inv, det := inverse3(cov)
		g.Weight = append(g.Weight, s.n/float64(n))
		g.Mean = append(g.Mean, m)
		g.Cov = append(g.Cov, cov)
		g.inv = append(g.inv, inv)
		g.logc = append(g.logc, math.Log(s.n/float64(n))-0.5*math.Log(det)-1.5*math.Log(2*math.Pi))
	}
	return g
}

// inverse3 inverts a symmetric positive-definite 3×3 matrix by cofactors.
func inverse3(m [9]float64) (inv [9]float64, det float64) {
	c00 := m[4]*m[8] - m[5]*m[7]
	c01 := m[5]*m[6] - m[3]*m[8]
	c02 := m[3]*m[7] - m[4]*m[6]
	det = m[0]*c00 + m[1]*c01 + m[2]*c02
	inv = [9]float64{
		c00, m[2]*m[7] - m[1]*m[8], m[1]*m[5] - m[2]*m[4],
		c01, m[0]*m[8] - m[2]*m[6], m[2]*m[3] - m[0]*m[5],
		c02, m[1]*m[6] - m[0]*m[7], m[0]*m[4] - m[1]*m[3],
	}
	for i := range inv {
		inv[i] /= det
	}
	return inv, det
}

// component is log(π_k N(x; μ_k, Σ_k)).
func (g *Mixture) component(k int, x []float64) float64 {
	d0, d1, d2 := x[0]-g.Mean[k][0], x[1]-g.Mean[k][1], x[2]-g.Mean[k][2]
	m := &g.inv[k]
	q := d0*(m[0]*d0+m[1]*d1+m[2]*d2) + d1*(m[3]*d0+m[4]*d1+m[5]*d2) + d2*(m[6]*d0+m[7]*d1+m[8]*d2)
	return g.logc[k] - 0.5*q
}

func (g *Mixture) best(x []float64) int {
	b, bv := 0, math.Inf(-1)
	for k := range g.Weight {
		if v := g.component(k, x); v > bv {
			b, bv = k, v
		}
	}
	return b
}

// LogDensity is log Σ_k π_k N(x; μ_k, Σ_k) for one colour (3 values).
func (g *Mixture) LogDensity(x []float64) float64 {
	mx := math.Inf(-1)
	var v [16]float64
	vs := v[:0]
	for k := range g.Weight {
		c := g.component(k, x)
		vs = append(vs, c)
		mx = max(mx, c)
	}
	s := 0.0
	for _, c := range vs {
		s += math.Exp(c - mx)
	}
	return mx + math.Log(s)
}
