package refine

import "math"

// Mean-field inference in a fully connected CRF over the pixels of a frame
// (Krähenbühl & Koltun, "Efficient inference in fully connected CRFs with
// Gaussian edge potentials", NIPS 2011), run by GraphCut on the network's
// probabilities before the cut when CutOptions.DenseCRF > 0.
//
// Why: trained on sparse labels, the network is free wherever no trajectory
// lies, and near the object it fills such regions with its coarsest cell: a
// wheel's interior, the water between a surfer's arms. Those pixels have the
// colours of the background a few tens of pixels away. The cut's Potts term
// joins neighbours only, and its colour mixture of the object is fitted on
// the same confident pixels, so neither reaches them. The appearance kernel
// of a fully connected CRF joins every pixel to every pixel of like colour
// within θ_α, whatever lies between.
//
// With Q_i the foreground probability of pixel i, ψ_i(1) = −log P_i and
// ψ_i(0) = −log(1 − P_i) the network's unaries (P clamped as in GraphCut),
// the Potts compatibility and the appearance kernel
//
//	k(i, j) = exp(−‖p_i − p_j‖² / 2θ_α² − ‖I_i − I_j‖² / 2θ_β²),
//
// each of the five mean-field updates (K&K, Eq. 4) sets
//
//	m_i = Σ_j k(i, j) Q_j / Σ_j k(i, j),
//	Q_i ← σ( ψ_i(0) − ψ_i(1) + w (2 m_i − 1) ),
//
// starting from Q = P: the energy of label 1 is ψ_i(1) + w(1 − m_i), that of
// label 0 is ψ_i(0) + w·m_i. The kernel is normalised per pixel (the weights
// of pixel i sum to one, j = i included), so w is in nats: w nats when every
// pixel like i disagrees with it, whatever the size of the frame or of θ_α.
// The sums are taken on a bilateral grid (Paris & Durand, ECCV 2006; Chen,
// Paris & Durand, SIGGRAPH 2007) over (x, y, r, g, b) with cells of
// √(6/5)·θ_α and √(6/5)·θ_β: multilinear splatting, a [1 2 1]/4 blur along
// each of the five axes and multilinear slicing, whose spreads add up to a
// kernel of standard deviations θ_α and θ_β, approximate the Gaussian in
// O(N + cells) instead of the O(N²) of the sum (within 0.02 of the exact
// kernel means on TestBilateralGridAgainstBruteForce's frame).

// Dense CRF constants, set before any measurement: θ_α as a fraction of the
// frame's diagonal (80 px at 854×480), θ_β in grey levels (13 of 255), five
// mean-field updates.
const (
	denseCRFSpatial    = 0.08
	denseCRFColour     = 13.0
	denseCRFIterations = 5
)

// denseCRF returns the foreground probabilities after the mean-field updates
// of the package's dense CRF with weight weight on the w×h frame rgb (three
// values per pixel, 0–255) and the network's probabilities p.
func denseCRF(rgb, p []float64, w, h int, weight float64) []float64 {
	g := newBilateralGrid(rgb, w, h, denseCRFSpatial*diagonal(w, h), denseCRFColour)
	norm := g.filter(constant(w*h, 1.0))
	du := make([]float64, w*h) // ψ(0) − ψ(1) = log(P / (1 − P))
	q := make([]float64, w*h)
	for i, v := range p {
		v = min(1-probEps, max(probEps, v))
		du[i] = math.Log(v / (1 - v))
		q[i] = v
	}
	for it := 0; it < denseCRFIterations; it++ {
		m := g.filter(q)
		for i := range q {
			mi := m[i] / norm[i]
			q[i] = 1 / (1 + math.Exp(-(du[i] + weight*(2*mi-1))))
		}
	}
	return q
}

// constant returns n copies of v.
func constant[T float32 | float64](n int, v T) []T {
	c := make([]T, n)
	for i := range c {
		c[i] = v
	}
	return c
}

// bilateralGrid holds, for each pixel, its position in a five-dimensional
// grid (x, y over the spatial cell size, r, g, b less their smallest value
// over the colour cell size, offset by one cell of padding) as the 32
// corners of its cell and their multilinear weights, and the two grid
// buffers that every filter call reuses.
type bilateralGrid struct {
	dims   [5]int
	stride [5]int
	size   int
	corner [][32]int32
	weight [][32]float32
	a, b   []float64
}

func newBilateralGrid(rgb []float64, w, h int, thetaSpatial, thetaColour float64) *bilateralGrid {
	// Splatting and slicing each spread a value like a tent one cell wide
	// (variance 1/6 cell²), the blur by 1/2 cell²: 5/6 cell² in all, so cells
	// of θ·√(6/5) give the kernel the standard deviation θ.
	sSpatial, sColour := thetaSpatial*math.Sqrt(1.2), thetaColour*math.Sqrt(1.2)
	n := w * h
	var lo, hi [3]float64
	for c := 0; c < 3; c++ {
		lo[c], hi[c] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			lo[c] = min(lo[c], rgb[3*i+c])
			hi[c] = max(hi[c], rgb[3*i+c])
		}
	}
	g := &bilateralGrid{corner: make([][32]int32, n), weight: make([][32]float32, n)}
	// Each axis: one cell of padding on either side of the data's extent, so
	// that a corner and its blur neighbours stay inside.
	ext := [5]float64{float64(w-1) / sSpatial, float64(h-1) / sSpatial,
		(hi[0] - lo[0]) / sColour, (hi[1] - lo[1]) / sColour, (hi[2] - lo[2]) / sColour}
	g.size = 1
	for a := 4; a >= 0; a-- {
		g.dims[a] = int(ext[a]) + 4
		g.stride[a] = g.size
		g.size *= g.dims[a]
	}
	g.a, g.b = make([]float64, g.size), make([]float64, g.size)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			pos := [5]float64{float64(x) / sSpatial, float64(y) / sSpatial,
				(rgb[3*i] - lo[0]) / sColour, (rgb[3*i+1] - lo[1]) / sColour, (rgb[3*i+2] - lo[2]) / sColour}
			var base [5]int
			var frac [5]float64
			for a := range pos {
				f := math.Floor(pos[a])
				base[a], frac[a] = int(f)+1, pos[a]-f
			}
			for k := 0; k < 32; k++ {
				idx, wt := 0, 1.0
				for a := 0; a < 5; a++ {
					if k>>a&1 == 1 {
						idx += (base[a] + 1) * g.stride[a]
						wt *= frac[a]
					} else {
						idx += base[a] * g.stride[a]
						wt *= 1 - frac[a]
					}
				}
				g.corner[i][k], g.weight[i][k] = int32(idx), float32(wt)
			}
		}
	}
	return g
}

// filter returns, for every pixel i, ≈ Σ_j k(i, j) v_j: v splatted onto the
// grid, blurred along each axis, and sliced at every pixel.
func (g *bilateralGrid) filter(v []float64) []float64 {
	a, b := g.a, g.b
	clear(a)
	for i, val := range v {
		for k := 0; k < 32; k++ {
			a[g.corner[i][k]] += float64(g.weight[i][k]) * val
		}
	}
	for ax := 0; ax < 5; ax++ {
		s := g.stride[ax]
		for j := range a {
			c := (j / s) % g.dims[ax]
			l, r := 0.0, 0.0
			if c > 0 {
				l = a[j-s]
			}
			if c < g.dims[ax]-1 {
				r = a[j+s]
			}
			b[j] = 0.25*l + 0.5*a[j] + 0.25*r
		}
		a, b = b, a
	}
	out := make([]float64, len(v))
	for i := range out {
		s := 0.0
		for k := 0; k < 32; k++ {
			s += float64(g.weight[i][k]) * a[g.corner[i][k]]
		}
		out[i] = s
	}
	return out
}
