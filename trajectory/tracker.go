package trajectory

import (
	"fmt"
	"image"
	"math"
)

// TrackerOptions configure the point tracker of Brox & Malik (ECCV 2010) and
// Sundaram, Brox, Keutzer (ECCV 2010).
type TrackerOptions struct {
	// Spacing is the seeding grid step in pixels (default 8). Grid cell (i, j)
	// is [i·s, (i+1)·s) × [j·s, (j+1)·s); its seed point is the cell centre
	// (i·s + ⌊s/2⌋, j·s + ⌊s/2⌋).
	Spacing int
	// MinLength drops trajectories with fewer points (frames) than this
	// (default 3).
	MinLength int
	// StructureThreshold α: a grid point is seeded only where the smaller
	// structure-tensor eigenvalue satisfies λ_min > α·mean(λ_min) over the
	// frame (default 0.125, the 1/8 of the mean of the reference
	// implementation), and λ_min > MinAbsStructure.
	StructureThreshold float64
	// MinAbsStructure is an absolute floor for λ_min (intensity² units,
	// default 1) so that a nearly uniform frame seeds nothing.
	MinAbsStructure float64
	// StructureSigma is the Gaussian σ (px) of the structure tensor (default 1.5).
	StructureSigma float64
	// Consistency test of Sundaram et al. (ECCV 2010, Eq. 5):
	// stop when |w + ŵ|² > ConsistencyRel·(|w|² + |ŵ|²) + ConsistencyAbs
	// (defaults 0.01 and 0.5).
	ConsistencyRel, ConsistencyAbs float64
	// Motion-boundary test (Sundaram et al., Eq. 6):
	// stop when |∇u|² + |∇v|² > BoundaryRel·|w|² + BoundaryAbs
	// (defaults 0.01 and 0.002). A negative BoundaryAbs disables the test.
	BoundaryRel, BoundaryAbs float64
	// Appearance τ: stop a point whose 5×5 patch changes between frame t
	// and t+1 by more than τ times its texture (the appearance test on
	// Tracker.AddNext). 0, the default, disables the test.
	Appearance float64
}

// DefaultTrackerOptions returns the options documented on TrackerOptions.
func DefaultTrackerOptions() TrackerOptions {
	return TrackerOptions{
		Spacing:            8,
		MinLength:          3,
		StructureThreshold: 0.125,
		MinAbsStructure:    1,
		StructureSigma:     1.5,
		ConsistencyRel:     0.01,
		ConsistencyAbs:     0.5,
		BoundaryRel:        0.01,
		BoundaryAbs:        0.002,
	}
}

// Validate reports options that cannot work.
func (o TrackerOptions) Validate() error {
	switch {
	case o.Spacing < 1:
		return fmt.Errorf("tracker: spacing must be ≥ 1, got %d", o.Spacing)
	case o.MinLength < 1:
		return fmt.Errorf("tracker: minimum length must be ≥ 1, got %d", o.MinLength)
	case !(o.StructureThreshold >= 0) || math.IsInf(o.StructureThreshold, 0):
		return fmt.Errorf("tracker: structure threshold must be a finite number ≥ 0, got %v", o.StructureThreshold)
	case !(o.MinAbsStructure >= 0) || math.IsInf(o.MinAbsStructure, 0):
		return fmt.Errorf("tracker: absolute structure floor must be a finite number ≥ 0, got %v", o.MinAbsStructure)
	case !(o.StructureSigma >= 0) || o.StructureSigma > 50:
		return fmt.Errorf("tracker: structure sigma must be in [0, 50], got %v", o.StructureSigma)
	case !(o.ConsistencyRel >= 0) || !(o.ConsistencyAbs >= 0):
		return fmt.Errorf("tracker: consistency thresholds must be ≥ 0")
	case !(o.BoundaryRel >= 0) || math.IsNaN(o.BoundaryAbs):
		return fmt.Errorf("tracker: motion-boundary thresholds must be numbers, relative ≥ 0")
	case !(o.Appearance >= 0) || math.IsInf(o.Appearance, 0):
		return fmt.Errorf("tracker: the appearance threshold must be a finite number ≥ 0, got %v", o.Appearance)
	}
	return nil
}

// StopReason counts why trajectories ended (diagnostics).
type StopReason int

const (
	StopInconsistent StopReason = iota // forward/backward disagreement (occlusion, flow error)
	StopBoundary                       // motion boundary
	StopAppearance                     // the patch changed (appearance test)
	StopLeftImage                      // propagated outside the frame
	StopLastFrame                      // still alive at the end of the sequence
	numStopReasons
)

// TrackerStats are diagnostics of one tracking run.
type TrackerStats struct {
	Seeded  int                 // trajectories started
	Stopped [numStopReasons]int // trajectories ended, by reason
	Dropped int                 // shorter than MinLength
	Kept    int                 // written
	Frames  int                 // frames seen
	Covered []float64           // per frame: fraction of grid cells holding a kept track point (filled by Finish)
}

// Tracker propagates grid-seeded points along dense forward flow, one frame
// pair at a time (Brox & Malik ECCV 2010; Sundaram, Brox, Keutzer ECCV 2010).
// Feed frame t with its forward flow t→t+1 and backward flow t+1→t through
// Add for t = 0, 1, …, T−2, then call Finish.
type Tracker struct {
	opt    TrackerOptions
	w, h   int
	gw, gh int // grid cells
	frame  int // index of the next frame Add expects
	active []int
	tracks []Track
	stats  TrackerStats
	cover  []bool
}

// NewTracker returns a tracker for w×h frames.
func NewTracker(opt TrackerOptions, w, h int) (*Tracker, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if w < 1 || h < 1 {
		return nil, fmt.Errorf("tracker: frame size %dx%d", w, h)
	}
	s := opt.Spacing
	return &Tracker{opt: opt, w: w, h: h, gw: (w + s - 1) / s, gh: (h + s - 1) / s,
		cover: make([]bool, ((w+s-1)/s)*((h+s-1)/s))}, nil
}

// Add is AddNext without the next frame: the appearance test is skipped.
func (tr *Tracker) Add(grey *image.Gray, fwd, bwd *FlowField) error {
	return tr.AddNext(grey, nil, fwd, bwd)
}

// AddNext processes frame t = (number of previous calls): it seeds new points on
// the grid where grey frame t has structure and no trajectory is, then moves
// every live point p to p + w(p), w = bilinear forward flow, ending the
// trajectory at frame t when p + w leaves the image, when
// |w + ŵ|² > 0.01(|w|² + |ŵ|²) + 0.5 with ŵ the backward flow at p + w, or
// when |∇u|² + |∇v|² > 0.01|w|² + 0.002 at p (default thresholds), and,
// with Appearance τ > 0 and next (grey frame t+1) given, when the point's
// patch changed (AppearanceChange(grey, next, p, p + w) > τ).
func (tr *Tracker) AddNext(grey, next *image.Gray, fwd, bwd *FlowField) error {
	if grey == nil || grey.Bounds().Dx() != tr.w || grey.Bounds().Dy() != tr.h {
		return fmt.Errorf("tracker: frame %d: grey image is not %dx%d", tr.frame, tr.w, tr.h)
	}
	if next != nil && (next.Bounds().Dx() != tr.w || next.Bounds().Dy() != tr.h) {
		return fmt.Errorf("tracker: frame %d: grey image is not %dx%d", tr.frame+1, tr.w, tr.h)
	}
	for _, f := range []*FlowField{fwd, bwd} {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("tracker: frame %d: %w", tr.frame, err)
		}
		if f.W != tr.w || f.H != tr.h {
			return fmt.Errorf("tracker: frame %d: flow is %dx%d, frames are %dx%d", tr.frame, f.W, f.H, tr.w, tr.h)
		}
	}
	t := tr.frame
	tr.seed(grey, t)

	var energy []float32 // |∇u|² + |∇v|² of the forward flow (nil: test disabled)
	if tr.opt.BoundaryAbs >= 0 {
		energy = fwd.GradientEnergy()
	}
	o := tr.opt
	alive := tr.active[:0]
	for _, id := range tr.active {
		tk := &tr.tracks[id]
		p := tk.Points[len(tk.Points)-1]
		u, v, ok := fwd.At(p.X, p.Y)
		if !ok { // cannot happen for points inside the image
			tr.stats.Stopped[StopLeftImage]++
			continue
		}
		if !finite(u) || !finite(v) {
			tr.stats.Stopped[StopInconsistent]++
			continue
		}
		qx, qy := p.X+u, p.Y+v
		bu, bv, ok := bwd.At(qx, qy)
		if !ok {
			tr.stats.Stopped[StopLeftImage]++
			continue
		}
		du, dv := u+bu, v+bv
		w2, b2 := u*u+v*v, bu*bu+bv*bv
		if !(du*du+dv*dv <= o.ConsistencyRel*(w2+b2)+o.ConsistencyAbs) { // NaN stops too
			tr.stats.Stopped[StopInconsistent]++
			continue
		}
		if energy != nil {
			i0, j0, ax, ay, _ := fwd.cell(p.X, p.Y)
			if bilinear(energy, tr.w, tr.w, i0, j0, ax, ay) > o.BoundaryRel*w2+o.BoundaryAbs {
				tr.stats.Stopped[StopBoundary]++
				continue
			}
		}
		if o.Appearance > 0 && next != nil && AppearanceChange(grey, next, p.X, p.Y, qx, qy) > o.Appearance {
			tr.stats.Stopped[StopAppearance]++
			continue
		}
		tk.Points = append(tk.Points, Point{X: qx, Y: qy, Frame: t + 1})
		alive = append(alive, id)
	}
	tr.active = alive
	tr.frame++
	tr.stats.Frames = tr.frame + 1
	return nil
}

// appearanceRadius r: the appearance test compares (2r+1)×(2r+1) patches.
const appearanceRadius = 2

// appearanceNoise σ_n (grey levels) keeps the test's denominator away from
// 0 on untextured patches, where the difference is sensor and compression
// noise.
const appearanceNoise = 2.0

// AppearanceChange measures how much the patch around (px, py) in frame a
// differs from the patch around (qx, qy) in frame b, relative to their
// texture. With the 5×5 offsets δ, bilinear samples A(δ) = a(p + δ),
// B(δ) = b(q + δ), D(δ) = B(δ) − A(δ) and m̄ the mean over δ,
//
//	c = mean|D − D̄| / (½(mean|A − Ā| + mean|B − B̄|) + σ_n),   σ_n = 2.
//
// The numerator is the zero-mean sum of absolute differences, so a uniform
// change of brightness costs nothing; the denominator is the patches' own
// contrast, so the same sub-pixel flow error costs the same on weak and on
// strong texture. A point that follows its surface gives c well below 1
// (flow errors of a fraction of a pixel); a point that the flow carries
// over a different surface — background seen through a wheel or between a
// boat's rigging, a limb passing in front — gives c near or above 1, as
// two unrelated patches do. This is the dissimilarity monitoring of Shi &
// Tomasi ("Good features to track", CVPR 1994, Sec. 5) between consecutive
// frames, with a translation model and a contrast-normalised residual.
// Offsets whose sample falls outside either frame are left out (a point at
// the border is measured on the part of its patch inside both); with none
// left, c = 0.
func AppearanceChange(a, b *image.Gray, px, py, qx, qy float64) float64 {
	const r = appearanceRadius
	var A, B [(2*r + 1) * (2*r + 1)]float64
	n := 0
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			va, oka := greyAt(a, px+float64(dx), py+float64(dy))
			vb, okb := greyAt(b, qx+float64(dx), qy+float64(dy))
			if oka && okb {
				A[n], B[n] = va, vb
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	var ma, mb float64
	for i := 0; i < n; i++ {
		ma += A[i]
		mb += B[i]
	}
	ma /= float64(n)
	mb /= float64(n)
	md := mb - ma
	var d, sa, sb float64
	for i := 0; i < n; i++ {
		d += math.Abs(B[i] - A[i] - md)
		sa += math.Abs(A[i] - ma)
		sb += math.Abs(B[i] - mb)
	}
	m := float64(n)
	return (d / m) / ((sa+sb)/(2*m) + appearanceNoise)
}

// greyAt samples g bilinearly at (x, y); ok is false outside the image.
func greyAt(g *image.Gray, x, y float64) (v float64, ok bool) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	i0, j0, ax, ay, ok := bilinearCell(w, h, x, y)
	if !ok {
		return 0, false
	}
	// Pix of a sub-image runs on past its rectangle: cut it at the last pixel
	return bilinear(g.Pix[:(h-1)*g.Stride+w], g.Stride, w, i0, j0, ax, ay), true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// seed starts trajectories at frame t in grid cells that hold no live point,
// where λ_min > max(α·mean λ_min, floor).
func (tr *Tracker) seed(grey *image.Gray, t int) {
	s := tr.opt.Spacing
	for i := range tr.cover {
		tr.cover[i] = false
	}
	for _, id := range tr.active {
		p := tr.tracks[id].Points[len(tr.tracks[id].Points)-1]
		if c := tr.cellOf(p.X, p.Y); c >= 0 {
			tr.cover[c] = true
		}
	}
	lam := MinEigenvalues(grey, tr.opt.StructureSigma)
	mean := 0.0
	for _, l := range lam {
		mean += l
	}
	mean /= float64(len(lam))
	thr := math.Max(tr.opt.StructureThreshold*mean, tr.opt.MinAbsStructure)
	for j := 0; j < tr.gh; j++ {
		y := j*s + s/2
		if y >= tr.h {
			y = tr.h - 1
		}
		for i := 0; i < tr.gw; i++ {
			if tr.cover[j*tr.gw+i] {
				continue
			}
			x := i*s + s/2
			if x >= tr.w {
				x = tr.w - 1
			}
			if lam[y*tr.w+x] <= thr {
				continue
			}
			tr.tracks = append(tr.tracks, Track{Points: []Point{{X: float64(x), Y: float64(y), Frame: t}}})
			tr.active = append(tr.active, len(tr.tracks)-1)
			tr.stats.Seeded++
		}
	}
}

// cellOf returns the grid cell index of (x, y), or -1 outside the frame.
func (tr *Tracker) cellOf(x, y float64) int {
	xi, yi := int(math.Floor(x+0.5)), int(math.Floor(y+0.5))
	if xi < 0 || yi < 0 || xi >= tr.w || yi >= tr.h {
		return -1
	}
	return (yi/tr.opt.Spacing)*tr.gw + xi/tr.opt.Spacing
}

// Finish ends all live trajectories at the last frame and returns the ones
// with at least MinLength points, all labelled 0, ordered by start frame and
// seeding order. The tracker must not be used afterwards.
func (tr *Tracker) Finish() *TrackSet {
	tr.stats.Stopped[StopLastFrame] += len(tr.active)
	tr.active = nil
	frames := tr.frame + 1
	if tr.frame == 0 {
		frames = 0
	}
	ts := &TrackSet{Frames: frames}
	counts := make([][]int, frames)
	for i := range counts {
		counts[i] = make([]int, tr.gw*tr.gh)
	}
	for _, tk := range tr.tracks {
		if len(tk.Points) < tr.opt.MinLength {
			tr.stats.Dropped++
			continue
		}
		tk.Label = 0
		ts.Tracks = append(ts.Tracks, tk)
		for _, p := range tk.Points {
			if c := tr.cellOf(p.X, p.Y); c >= 0 {
				counts[p.Frame][c] = 1
			}
		}
	}
	tr.stats.Kept = len(ts.Tracks)
	tr.stats.Covered = make([]float64, frames)
	for f, cs := range counts {
		n := 0
		for _, c := range cs {
			n += c
		}
		tr.stats.Covered[f] = float64(n) / float64(len(cs))
	}
	tr.tracks = nil
	return ts
}

// Stats returns the diagnostics (complete after Finish).
func (tr *Tracker) Stats() TrackerStats { return tr.stats }
