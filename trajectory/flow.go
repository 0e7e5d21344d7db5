package trajectory

import (
	"fmt"
	"image"
	"math"
)

// FlowField is a dense displacement field between two frames: the pixel at
// integer position (x, y) of frame t moves to (x+U[i], y+V[i]) in the other
// frame, i = y·W + x (row-major). Forward flow maps frame t to t+1, backward
// flow maps t+1 to t.
type FlowField struct {
	W, H int
	U, V []float32
}

// NewFlowField returns a zero flow field of size w×h.
func NewFlowField(w, h int) *FlowField {
	return &FlowField{W: w, H: h, U: make([]float32, w*h), V: make([]float32, w*h)}
}

// Validate reports a field whose slices do not match W×H.
func (f *FlowField) Validate() error {
	if f == nil {
		return fmt.Errorf("flow field is nil")
	}
	if f.W <= 0 || f.H <= 0 || len(f.U) != f.W*f.H || len(f.V) != f.W*f.H {
		return fmt.Errorf("flow field %dx%d has %d/%d samples", f.W, f.H, len(f.U), len(f.V))
	}
	return nil
}

// At returns the flow at the sub-pixel position (x, y) by bilinear
// interpolation of the four surrounding pixels:
//
//	w(x, y) = Σ (1−|x−xᵢ|)(1−|y−yᵢ|) w(xᵢ, yᵢ),  xᵢ ∈ {⌊x⌋, ⌊x⌋+1}, yᵢ ∈ {⌊y⌋, ⌊y⌋+1}.
//
// ok is false outside [0, W−1]×[0, H−1] (pixel centres at integer coordinates).
func (f *FlowField) At(x, y float64) (u, v float64, ok bool) {
	i0, j0, ax, ay, ok := f.cell(x, y)
	if !ok {
		return 0, 0, false
	}
	return bilinear(f.U, f.W, f.W, i0, j0, ax, ay), bilinear(f.V, f.W, f.W, i0, j0, ax, ay), true
}

// cell returns the top-left pixel of the bilinear cell of (x, y), the right
// and lower neighbours' index offsets and the interpolation weights.
func (f *FlowField) cell(x, y float64) (i0, j0 int, ax, ay float64, ok bool) {
	return bilinearCell(f.W, f.H, x, y)
}

func bilinearCell(w, h int, x, y float64) (i0, j0 int, ax, ay float64, ok bool) {
	if !(x >= 0 && y >= 0 && x <= float64(w-1) && y <= float64(h-1)) { // also rejects NaN
		return 0, 0, 0, 0, false
	}
	i0, j0 = int(x), int(y)
	if i0 == w-1 && i0 > 0 {
		i0--
	}
	if j0 == h-1 && j0 > 0 {
		j0--
	}
	return i0, j0, x - float64(i0), y - float64(j0), true
}

// SampleBilinear interpolates the w×h map m (row-major) at (x, y) as At
// interpolates a flow field; ok is false outside [0, w−1]×[0, h−1].
func SampleBilinear(m []float32, w, h int, x, y float64) (v float64, ok bool) {
	i0, j0, ax, ay, ok := bilinearCell(w, h, x, y)
	if !ok || len(m) != w*h {
		return 0, false
	}
	return bilinear(m, w, w, i0, j0, ax, ay), true
}

// bilinear interpolates the w pixels wide image m (a map's values, or a
// grey image's Pix ending at its last pixel) with rows stride apart inside
// the cell whose top-left pixel is (i0, j0); a degenerate 1-pixel-wide or
// -high image uses the single column/row.
func bilinear[T float32 | uint8](m []T, stride, w, i0, j0 int, ax, ay float64) float64 {
	k := j0*stride + i0
	di, dj := 1, stride
	if i0+1 >= w {
		di = 0
	}
	if k+dj >= len(m) {
		dj = 0
	}
	a := float64(m[k])*(1-ax) + float64(m[k+di])*ax
	b := float64(m[k+dj])*(1-ax) + float64(m[k+dj+di])*ax
	return a*(1-ay) + b*ay
}

// GradientEnergy returns |∇u|² + |∇v|² per pixel, the squared flow gradient
// used by the motion-boundary test of Sundaram, Brox, Keutzer (ECCV 2010,
// Sec. 3.1), with central differences ∂ₓu ≈ (u(x+1)−u(x−1))/2 (one-sided at
// the border).
func (f *FlowField) GradientEnergy() []float32 {
	out := make([]float32, f.W*f.H)
	diff := func(m []float32, k, step, pos, n int) float32 {
		switch {
		case n == 1:
			return 0
		case pos == 0:
			return m[k+step] - m[k]
		case pos == n-1:
			return m[k] - m[k-step]
		default:
			return (m[k+step] - m[k-step]) / 2
		}
	}
	for y := 0; y < f.H; y++ {
		for x := 0; x < f.W; x++ {
			k := y*f.W + x
			ux := diff(f.U, k, 1, x, f.W)
			uy := diff(f.U, k, f.W, y, f.H)
			vx := diff(f.V, k, 1, x, f.W)
			vy := diff(f.V, k, f.W, y, f.H)
			out[k] = ux*ux + uy*uy + vx*vx + vy*vy
		}
	}
	return out
}

// gaussianKernel returns a normalised 1-D Gaussian of standard deviation
// sigma, truncated at ⌈3σ⌉.
func gaussianKernel(sigma float64) []float64 {
	if sigma <= 0 {
		return []float64{1}
	}
	r := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*r+1)
	s := 0.0
	for i := -r; i <= r; i++ {
		k[i+r] = math.Exp(-float64(i*i) / (2 * sigma * sigma))
		s += k[i+r]
	}
	for i := range k {
		k[i] /= s
	}
	return k
}

// smooth convolves the w×h map m in place with the separable kernel k,
// replicating border pixels.
func smooth(m []float64, w, h int, k []float64) {
	r := len(k) / 2
	if r == 0 {
		return
	}
	tmp := make([]float64, len(m))
	clamp := func(i, n int) int {
		if i < 0 {
			return 0
		}
		if i >= n {
			return n - 1
		}
		return i
	}
	for y := 0; y < h; y++ {
		row := m[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			s := 0.0
			if x >= r && x+r < w {
				for i, kv := range k {
					s += kv * row[x+i-r]
				}
			} else {
				for i, kv := range k {
					s += kv * row[clamp(x+i-r, w)]
				}
			}
			tmp[y*w+x] = s
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				s += kv * tmp[clamp(y+i-r, h)*w+x]
			}
			m[y*w+x] = s
		}
	}
}

// MinEigenvalues returns, per pixel, the smaller eigenvalue of the structure
// tensor J = K_σ * (∇I ∇Iᵀ) of the grey image (Brox & Malik ECCV 2010,
// Sec. 2; Shi & Tomasi 1994):
//
//	λ_min = (J₁₁+J₂₂)/2 − sqrt(((J₁₁−J₂₂)/2)² + J₁₂²),
//
// with central-difference gradients of the 0…255 intensities and a Gaussian
// K_σ of standard deviation sigma. It is 0 on constant or 1-D (edge-only)
// structure and large at corners and texture.
func MinEigenvalues(g *image.Gray, sigma float64) []float64 {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	pix := func(x, y int) float64 {
		if x < 0 {
			x = 0
		} else if x >= w {
			x = w - 1
		}
		if y < 0 {
			y = 0
		} else if y >= h {
			y = h - 1
		}
		return float64(g.Pix[y*g.Stride+x])
	}
	jxx := make([]float64, w*h)
	jxy := make([]float64, w*h)
	jyy := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			ix := (pix(x+1, y) - pix(x-1, y)) / 2
			iy := (pix(x, y+1) - pix(x, y-1)) / 2
			k := y*w + x
			jxx[k], jxy[k], jyy[k] = ix*ix, ix*iy, iy*iy
		}
	}
	kern := gaussianKernel(sigma)
	smooth(jxx, w, h, kern)
	smooth(jxy, w, h, kern)
	smooth(jyy, w, h, kern)
	out := jxx // reuse
	for k := range out {
		a, c, bb := jxx[k], jyy[k], jxy[k]
		d := (a - c) / 2
		l := (a+c)/2 - math.Sqrt(d*d+bb*bb)
		if l < 0 {
			l = 0 // rounding
		}
		out[k] = l
	}
	return out
}
