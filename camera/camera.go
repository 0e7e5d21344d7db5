// Package camera estimates the dominant (camera) motion of a video from its
// point trajectories and measures how far each trajectory departs from it.
//
// Between frames t and t+T the displacement of the trajectories that are
// alive in both is explained by a planar homography H_t (8 degrees of
// freedom: camera rotation, zoom and the motion of a distant or planar
// background), fitted robustly by RANSAC (Fischler & Bolles, CACM 1981) with
// the normalised direct linear transform (Hartley & Zisserman, "Multiple View
// Geometry", 2nd ed., Alg. 4.2) on minimal samples of four correspondences
// and a least-squares refit on the consensus set. The residual of a
// trajectory point,
//
//	r_i(t) = x_i(t+T) − H_t(x_i(t)),
//
// is the motion the camera does not explain: near 0 on the background, the
// object's own motion on an independently moving object (up to parallax).
// Residuals are reported in pixels per frame (divided by T) and normalised by
// a robust scale of the frame's residuals,
//
//	s_t = max(S0, 1.4826 · median_i |r_i(t)|)   (over all correspondences),
//
// so that |r|/s is comparable across frames and sequences. The median over
// all points (most of which are background) includes the background's own
// departures from a homography (parallax, water, foliage): a residual counts
// as large relative to what the background of that frame does. On the ten
// DAVIS development sequences this normalisation gave a higher leave-one-
// sequence-out F than the scale of the RANSAC inliers alone (84.4 vs 83.1).
package camera

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/densify/densify/trajectory"
	"gonum.org/v1/gonum/mat"
)

// Options control Estimate.
type Options struct {
	// Step is the frame step T of the displacement x(t) → x(t+T); it is
	// clipped to the end of each trajectory (as the motion features do).
	Step int `json:"step"`
	// Iterations of RANSAC per frame.
	Iterations int `json:"iterations"`
	// Threshold is the inlier threshold on |r| in px per frame.
	Threshold float64 `json:"threshold"`
	// MinScale is the floor S0 of the noise scale s_t in px per frame.
	MinScale float64 `json:"min_scale"`
	// Sample is the number of correspondences a hypothesis is scored on
	// (a fixed random subset; all of them are used for the refit).
	Sample int `json:"sample"`
	// Seed of the random number generator (frame t uses Seed+t).
	Seed uint64 `json:"seed"`
	// Border, when > 0, fits each frame's homography only on the points
	// within Border × min(width, height) of the image border (the extent of
	// all trajectory points), when at least 8 of them are there: the
	// dominant motion of the border, which is the background's even when
	// the camera follows an object that fills the middle of the frame (the
	// object is then nearly static and would be the largest consistent
	// motion of the whole frame). Residuals are still computed for every
	// point.
	Border float64 `json:"border,omitempty"`
}

// DefaultOptions are the defaults of Estimate.
func DefaultOptions() Options {
	return Options{Step: 5, Iterations: 400, Threshold: 0.75, MinScale: 0.1, Sample: 2000, Seed: 1}
}

// Validate checks the option ranges.
func (o Options) Validate() error {
	switch {
	case o.Step < 1:
		return fmt.Errorf("camera: step must be ≥ 1, got %d", o.Step)
	case o.Iterations < 1 || o.Iterations > 1_000_000:
		return fmt.Errorf("camera: iterations must be in [1, 1e6], got %d", o.Iterations)
	case !(o.Threshold > 0) || math.IsInf(o.Threshold, 0):
		return fmt.Errorf("camera: threshold must be > 0, got %v", o.Threshold)
	case !(o.MinScale > 0) || math.IsInf(o.MinScale, 0):
		return fmt.Errorf("camera: min scale must be > 0, got %v", o.MinScale)
	case !(o.Border >= 0 && o.Border <= 0.5):
		return fmt.Errorf("camera: border must be in [0, 0.5], got %v", o.Border)
	case o.Sample < 4:
		return fmt.Errorf("camera: sample must be ≥ 4, got %d", o.Sample)
	}
	return nil
}

// Homography maps (x, y) to ((h0 x + h1 y + h2)/w, (h3 x + h4 y + h5)/w),
// w = h6 x + h7 y + h8.
type Homography [9]float64

// Identity is the identity homography.
var Identity = Homography{1, 0, 0, 0, 1, 0, 0, 0, 1}

// Apply maps a point; ok is false when it maps to infinity.
func (h *Homography) Apply(x, y float64) (float64, float64, bool) {
	w := h[6]*x + h[7]*y + h[8]
	if math.Abs(w) < 1e-12 {
		return 0, 0, false
	}
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w, true
}

// Frame is the camera motion from frame t to t+T.
type Frame struct {
	H       Homography `json:"h"`
	Step    int        `json:"step"`    // T_t = min(T, frames−1−t)
	Valid   bool       `json:"valid"`   // false: fewer than 8 correspondences (H = identity)
	Points  int        `json:"points"`  // correspondences
	Inliers int        `json:"inliers"` // |r| ≤ Threshold
	Scale   float64    `json:"scale"`   // s_t in px per frame (robust scale of all residuals)
}

// Motion is the camera motion of a sequence and the per-point residuals of
// its trajectories.
type Motion struct {
	Options Options
	Frames  []Frame // Frames[t]: t → t+T (t+T clipped per trajectory; see Residual)
	// Res[i][k] is the residual of point k of trajectory i in px per frame
	// (k < len(points)−1; the last point has none).
	ResX, ResY [][]float32
	// Norm[i][k] = |r| / s_t.
	Norm [][]float32
}

// Estimate fits the camera motion of every frame of ts and computes the
// residual of every trajectory point that has a successor.
//
// Frame t's homography maps x(t) to x(t+T_t), T_t = min(T, frames−1−t),
// fitted on every trajectory alive in both frames. The residual of point k
// (in frame t) of a trajectory is the difference of velocities
//
//	r = (x(t+T') − x(t))/T' − (H_t(x(t)) − x(t))/T_t,   T' = min(T_t, last−k),
//
// so a trajectory that ends before t+T_t is compared with the camera's mean
// velocity over the frame's step.
func Estimate(ts *trajectory.TrackSet, opt Options) (*Motion, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	nf := ts.Frames
	for i := range ts.Tracks {
		nf = max(nf, ts.Tracks[i].End()+1)
	}
	// correspondences per frame: x(t) → x(t+T_t), T_t = min(T, nf−1−t)
	type corr struct{ x0, y0, x1, y1 []float64 }
	cs := make([]corr, nf)
	step := func(t int) int { return max(min(opt.Step, nf-1-t), 1) }
	var inBand func(x, y float64) bool // nil: no band
	if opt.Border > 0 {
		inBand = BorderBand(ts, opt.Border)
	}
	border := make([]corr, nf)
	for i := range ts.Tracks {
		pts := ts.Tracks[i].Points
		for k := range pts {
			t := pts[k].Frame
			Tt := step(t)
			if k+Tt >= len(pts) {
				break
			}
			if inBand != nil && inBand(pts[k].X, pts[k].Y) {
				c := &border[t]
				c.x0 = append(c.x0, pts[k].X)
				c.y0 = append(c.y0, pts[k].Y)
				c.x1 = append(c.x1, pts[k+Tt].X)
				c.y1 = append(c.y1, pts[k+Tt].Y)
			}
			c := &cs[t]
			c.x0 = append(c.x0, pts[k].X)
			c.y0 = append(c.y0, pts[k].Y)
			c.x1 = append(c.x1, pts[k+Tt].X)
			c.y1 = append(c.y1, pts[k+Tt].Y)
		}
	}
	m := &Motion{Options: opt, Frames: make([]Frame, nf)}
	for t := range nf {
		c := &cs[t]
		if len(border[t].x0) >= 8 {
			c = &border[t]
		}
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(t)))
		m.Frames[t] = fitFrame(c.x0, c.y0, c.x1, c.y1, step(t), opt, rng)
		border[t] = corr{}
		m.Frames[t].Step = step(t)
		cs[t] = corr{}
	}
	// residuals per frame (velocities), normalised by the frame's scale
	m.ResX = make([][]float32, len(ts.Tracks))
	m.ResY = make([][]float32, len(ts.Tracks))
	m.Norm = make([][]float32, len(ts.Tracks))
	for i := range ts.Tracks {
		pts := ts.Tracks[i].Points
		n := max(len(pts)-1, 0)
		rx, ry, nm := make([]float32, n), make([]float32, n), make([]float32, n)
		for k := range n {
			f := &m.Frames[pts[k].Frame]
			tt := min(f.Step, len(pts)-1-k)
			hx, hy, ok := f.H.Apply(pts[k].X, pts[k].Y)
			if !ok {
				hx, hy = pts[k].X, pts[k].Y
			}
			ux := (pts[k+tt].X-pts[k].X)/float64(tt) - (hx-pts[k].X)/float64(f.Step)
			uy := (pts[k+tt].Y-pts[k].Y)/float64(tt) - (hy-pts[k].Y)/float64(f.Step)
			rx[k], ry[k] = float32(ux), float32(uy)
			nm[k] = float32(math.Hypot(ux, uy) / f.Scale)
		}
		m.ResX[i], m.ResY[i], m.Norm[i] = rx, ry, nm
	}
	return m, nil
}

// UpperQuartile is the quantile of the second column of camera.csv: the
// upper quartile of a trajectory's normalised residuals exceeds a few
// units when the trajectory moves on its own over at least a quarter of
// its life, which the median misses where a part of an object rests half
// of the time: the hoof of a walking animal stands on the ground while the
// leg swings past it, and a grazing head is still between moves.
const UpperQuartile = 0.75

// TrackQuantiles returns, for each q of qs (0 ≤ q < 1) and every
// trajectory i, the q-quantile of its normalised residuals Norm[i]: the
// value of rank ⌊q·n⌋ (0-based) of its n sorted residuals, so q = ½ is the
// median (the upper one for an even n); NaN when it has none (a single
// point). out[j][i] is qs[j]'s for trajectory i; each trajectory is sorted
// once for all of qs. A trajectory whose median exceeds a few units is not
// carried by the camera motion over most of its life: it moves on its own
// (or with parallax far beyond the background's typical departure s_t).
func (m *Motion) TrackQuantiles(qs ...float64) [][]float64 {
	out := make([][]float64, len(qs))
	for j := range out {
		out[j] = make([]float64, len(m.Norm))
	}
	buf := []float32{}
	for i, r := range m.Norm {
		if len(r) == 0 {
			for j := range out {
				out[j][i] = math.NaN()
			}
			continue
		}
		buf = append(buf[:0], r...)
		slices.Sort(buf)
		for j, q := range qs {
			out[j][i] = float64(buf[min(len(buf)-1, int(q*float64(len(buf))))])
		}
	}
	return out
}

// BorderBand returns the test for the image-border band of Options.Border:
// a point lies in it when it is within border × min(width, height) of the
// border of the extent of all of ts's points (the frame, as far as the
// trajectories cover it).
func BorderBand(ts *trajectory.TrackSet, border float64) func(x, y float64) bool {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range ts.Tracks {
		for _, q := range ts.Tracks[i].Points {
			x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
		}
	}
	b := border * math.Min(x1-x0, y1-y0)
	return func(x, y float64) bool { return x-x0 <= b || x1-x <= b || y-y0 <= b || y1-y <= b }
}

// fitFrame runs RANSAC on one frame's correspondences (displacements over T
// frames) and returns the refitted homography and the inlier statistics, with
// Threshold and Scale in px per frame.
func fitFrame(x0, y0, x1, y1 []float64, step int, opt Options, rng *rand.Rand) Frame {
	n := len(x0)
	T := float64(step)
	f := Frame{H: Identity, Points: n, Scale: opt.MinScale}
	if n < 8 {
		return f
	}
	thr := opt.Threshold * T // threshold on the T-frame residual
	thr2 := thr * thr
	score := make([]int, 0, min(n, opt.Sample))
	if n <= opt.Sample {
		for i := range n {
			score = append(score, i)
		}
	} else {
		for _, i := range rng.Perm(n)[:opt.Sample] {
			score = append(score, i)
		}
	}
	best, bestCount := Identity, -1
	var sample [4]int
	for range opt.Iterations {
		for k := 0; k < 4; k++ {
		again:
			sample[k] = rng.IntN(n)
			for j := range k {
				if sample[j] == sample[k] {
					goto again
				}
			}
		}
		h, ok := fitMinimal(x0, y0, x1, y1, sample)
		if !ok {
			continue
		}
		// A hypothesis is kept only when it beats bestCount, so scoring stops
		// as soon as the points left cannot lift it above (same choice as
		// scoring every point).
		cnt, left := 0, len(score)
		for _, i := range score {
			if cnt+left <= bestCount {
				break
			}
			left--
			if r2(&h, x0[i], y0[i], x1[i], y1[i]) <= thr2 {
				cnt++
			}
		}
		if cnt > bestCount {
			best, bestCount = h, cnt
		}
	}
	// the identity (a static camera) is always a hypothesis
	cnt := 0
	for _, i := range score {
		if r2(&Identity, x0[i], y0[i], x1[i], y1[i]) <= thr2 {
			cnt++
		}
	}
	if cnt >= bestCount {
		best = Identity
	}
	// refit on all inliers (twice: the refit may gain inliers)
	h := best
	var inl []int
	for range 2 {
		inl = inl[:0]
		for i := range n {
			if r2(&h, x0[i], y0[i], x1[i], y1[i]) <= thr2 {
				inl = append(inl, i)
			}
		}
		if len(inl) < 8 {
			break
		}
		if hr, ok := fitDLT(x0, y0, x1, y1, inl); ok {
			h = hr
		}
	}
	inl = inl[:0]
	res := make([]float64, 0, n)
	for i := range n {
		d2 := r2(&h, x0[i], y0[i], x1[i], y1[i])
		if d2 <= thr2 {
			inl = append(inl, i)
		}
		res = append(res, math.Sqrt(d2))
	}
	f.H, f.Valid, f.Inliers = h, true, len(inl)
	if len(res) > 0 {
		slices.Sort(res)
		f.Scale = math.Max(opt.MinScale, 1.4826*res[len(res)/2]/T)
	}
	return f
}

// r2 is the squared transfer error |x1 − H(x0)|².
func r2(h *Homography, x0, y0, x1, y1 float64) float64 {
	hx, hy, ok := h.Apply(x0, y0)
	if !ok {
		return math.Inf(1)
	}
	dx, dy := x1-hx, y1-hy
	return dx*dx + dy*dy
}

// fitDLT fits a homography to the correspondences idx with the normalised
// DLT (Hartley & Zisserman Alg. 4.2): both point sets are translated to their
// centroid and scaled to mean distance √2, the 2n×9 system A h = 0 is solved
// by the right singular vector of the smallest singular value, and the
// normalisation is undone. ok is false for degenerate configurations.
func fitDLT(x0, y0, x1, y1 []float64, idx []int) (Homography, bool) {
	n := len(idx)
	if n < 4 {
		return Identity, false
	}
	n0 := normaliser(x0, y0, idx)
	n1 := normaliser(x1, y1, idx)
	if n0[0] == 0 || n1[0] == 0 {
		return Identity, false
	}
	a := mat.NewDense(max(2*n, 9), 9, nil)
	for r, i := range idx {
		r0, r1 := dltRows(x0, y0, x1, y1, i, n0, n1)
		a.SetRow(2*r, r0[:])
		a.SetRow(2*r+1, r1[:])
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDFullV) {
		return Identity, false
	}
	var v mat.Dense
	svd.VTo(&v)
	var hn Homography
	for j := range 9 {
		hn[j] = v.At(j, 8)
	}
	return denormalise(hn, n0, n1)
}

// fitMinimal is fitDLT on a minimal sample of four correspondences, the
// RANSAC hypotheses: in normalised coordinates the 8×9 system A h = 0 has,
// for four points in general position, a one-dimensional null space, which
// with h₈ = 1 is the solution of the 8×8 system of A's first eight columns
// against minus its last (Gaussian elimination with partial pivoting; Hartley
// & Zisserman Sec. 4.1.2) instead of a singular value decomposition. The
// homography is the same up to rounding (H is scaled to h₈ = 1 either way);
// ok is false for degenerate samples (coincident points, three collinear:
// a pivot below 1e-10, the normalised coordinates being of order 1) and where
// the null vector has h₈ = 0, which the DLT would have turned into a point
// at infinity.
func fitMinimal(x0, y0, x1, y1 []float64, idx [4]int) (Homography, bool) {
	n0 := normaliser(x0, y0, idx[:])
	n1 := normaliser(x1, y1, idx[:])
	if n0[0] == 0 || n1[0] == 0 {
		return Identity, false
	}
	var m [8][9]float64 // augmented: 8 unknowns h0..h7, right-hand side
	for r, i := range idx {
		m[2*r], m[2*r+1] = dltRows(x0, y0, x1, y1, i, n0, n1)
		m[2*r][8], m[2*r+1][8] = -m[2*r][8], -m[2*r+1][8] // h₈ = 1 moves to the right
	}
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-10 {
			return Identity, false
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < 8; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 9; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var hn Homography
	hn[8] = 1
	for c := 7; c >= 0; c-- {
		v := m[c][8]
		for k := c + 1; k < 8; k++ {
			v -= m[c][k] * hn[k]
		}
		hn[c] = v / m[c][c]
	}
	return denormalise(hn, n0, n1)
}

// dltRows returns the two rows of the DLT system A h = 0 (Hartley &
// Zisserman Eq. 4.3) for correspondence i, in the coordinates normalised by
// n0 (of x(t)) and n1 (of x(t+T)).
func dltRows(x0, y0, x1, y1 []float64, i int, n0, n1 [3]float64) (r0, r1 [9]float64) {
	px, py := n0[0]*(x0[i]-n0[1]), n0[0]*(y0[i]-n0[2])
	qx, qy := n1[0]*(x1[i]-n1[1]), n1[0]*(y1[i]-n1[2])
	return [9]float64{0, 0, 0, -px, -py, -1, qy * px, qy * py, qy},
		[9]float64{px, py, 1, 0, 0, 0, -qx * px, -qx * py, -qx}
}

// denormalise undoes the Hartley normalisations n0 (of x(t)) and n1 (of
// x(t+T)) of a homography hn fitted in normalised coordinates and scales the
// result to h₈ = 1; ok is false when h₈ vanishes or an entry is not finite.
func denormalise(hn Homography, n0, n1 [3]float64) (Homography, bool) {
	// H = N1⁻¹ · Hn · N0 with N = [s 0 −s·cx; 0 s −s·cy; 0 0 1]
	s0, cx0, cy0 := n0[0], n0[1], n0[2]
	s1, cx1, cy1 := n1[0], n1[1], n1[2]
	// Hn · N0
	var b [9]float64
	for r := range 3 {
		b[r*3+0] = hn[r*3+0] * s0
		b[r*3+1] = hn[r*3+1] * s0
		b[r*3+2] = -hn[r*3+0]*s0*cx0 - hn[r*3+1]*s0*cy0 + hn[r*3+2]
	}
	// N1⁻¹ = [1/s 0 cx; 0 1/s cy; 0 0 1]
	var h Homography
	for c := range 3 {
		h[0*3+c] = b[0*3+c]/s1 + cx1*b[2*3+c]
		h[1*3+c] = b[1*3+c]/s1 + cy1*b[2*3+c]
		h[2*3+c] = b[2*3+c]
	}
	if math.Abs(h[8]) < 1e-12 {
		return Identity, false
	}
	for j := range 9 {
		h[j] /= h[8]
	}
	for _, x := range h {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Identity, false
		}
	}
	return h, true
}

// normaliser returns (s, cx, cy) of the Hartley normalisation of the points
// idx; s = 0 when they all coincide.
func normaliser(xs, ys []float64, idx []int) [3]float64 {
	var cx, cy float64
	for _, i := range idx {
		cx += xs[i]
		cy += ys[i]
	}
	cx /= float64(len(idx))
	cy /= float64(len(idx))
	d := 0.0
	for _, i := range idx {
		d += math.Hypot(xs[i]-cx, ys[i]-cy)
	}
	d /= float64(len(idx))
	if d < 1e-9 {
		return [3]float64{0, cx, cy}
	}
	return [3]float64{math.Sqrt2 / d, cx, cy}
}
