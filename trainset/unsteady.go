package trainset

import (
	"math"
	"slices"

	"github.com/densify/densify/trajectory"
)

// MinSteadyPoints is the length from which a trajectory takes part in the
// steadiness test of unsteadyForeground: two accelerations at least.
const MinSteadyPoints = 4

// SteadyFloor (pixels per frame²) bounds a segment's typical jitter m_c
// from below in unsteadyForeground: the tracker's sub-pixel noise, so that
// a segment that hardly moves does not mark every trajectory that shakes by
// a tenth of a pixel.
const SteadyFloor = 0.1

// UnsteadyColourMargin (nats) is the colour evidence for the object that
// keeps a trajectory's labels however it shakes (Prepare, with the colour
// check on): colours on average e ≈ 2.7 times more probable under the
// object's colour model than under the background's per point, Λ_i < −1
// (colourEvidence). Water that moves with an object shows the object's
// colours at most as a blurred reflection; the parts of a fast object that
// shake about the segment's mean acceleration (a motorbike's hub and swing
// arm in a jump) look like the object. Measured on boat and motocross-jump
// only (docs/results.md), so it is a round number, not a fitted one.
const UnsteadyColourMargin = 1.0

// unsteadyForeground marks the foreground trajectories whose motion
// shakes about their segment's common motion far more than the segment's
// typical trajectory does. With x_i(t) the position of trajectory i in
// frame t, its acceleration at an interior frame t (t−1, t, t+1 all on
// the trajectory) is
//
//	a_i(t) = x_i(t+1) − 2 x_i(t) + x_i(t−1),
//
// ā_c(t) is the mean of a_j(t) over the trajectories j of segment c of at
// least MinSteadyPoints points, and the trajectory's jitter is the median
// over its interior frames
//
//	r_i = median_t ‖a_i(t) − ā_c(t)‖.
//
// A trajectory of a foreground segment (fg(label)) with at least
// MinSteadyPoints points is marked when
//
//	r_i > K · max(m_c, SteadyFloor),   K = factor,
//
// m_c the median of r_j over the trajectories j of c of at least
// MinSteadyPoints points, each counted once per point. Nothing is marked
// when factor is 0.
//
// Why: the multicut joins to an object what moves with it on average, and
// water does: the wake beside a hull, the reflection under it, the spray
// off a kite-surfer. There the tracker follows ripples whose pattern is
// renewed every few frames, so the trajectories shake about the common
// motion; a rigid body's points share its accelerations, and the limbs of
// an articulated one swing smoothly. Subtracting ā_c(t) takes out what all
// of the segment does at once (the object's translation, the camera's
// shake), and the factor of the segment's own median leaves segments whose
// trajectories all shake (a flag in the wind) alone. The marked points are
// left unlabelled; the densifier fills them in from their neighbours.
//
// Where it fails: the parts of a large, fast object shake about one mean
// acceleration per segment as water does (a motorbike that fills the frame
// in its jump). Prepare therefore keeps, with the colour check on, the
// shaking trajectories whose colours say object (UnsteadyColourMargin).
func unsteadyForeground(ts *trajectory.TrackSet, fg func(label int) bool, factor float64) []bool {
	out := make([]bool, len(ts.Tracks))
	if !(factor > 0) {
		return out
	}
	type key struct{ label, frame int }
	type sum struct {
		x, y float64
		n    int
	}
	// accelerations calls visit with a_i(t) at every interior frame t of t's
	// points (t−1, t, t+1 all on the trajectory).
	accelerations := func(t trajectory.Track, visit func(frame int, ax, ay float64)) {
		for k := 1; k+1 < len(t.Points); k++ {
			p, q, r := t.Points[k-1], t.Points[k], t.Points[k+1]
			if p.Frame+1 == q.Frame && q.Frame+1 == r.Frame {
				visit(q.Frame, r.X-2*q.X+p.X, r.Y-2*q.Y+p.Y)
			}
		}
	}
	tested := func(t trajectory.Track) bool { return fg(t.Label) && len(t.Points) >= MinSteadyPoints }
	common := map[key]*sum{}
	for _, t := range ts.Tracks {
		if !tested(t) {
			continue
		}
		accelerations(t, func(frame int, ax, ay float64) {
			kk := key{t.Label, frame}
			s := common[kk]
			if s == nil {
				s = &sum{}
				common[kk] = s
			}
			s.x, s.y, s.n = s.x+ax, s.y+ay, s.n+1
		})
	}
	jitter := make([]float64, len(ts.Tracks))
	perSegment := map[int][]float64{}
	var dev []float64
	for i, t := range ts.Tracks {
		jitter[i] = math.NaN()
		if !tested(t) {
			continue
		}
		dev = dev[:0]
		accelerations(t, func(frame int, ax, ay float64) {
			s := common[key{t.Label, frame}]
			dev = append(dev, math.Hypot(ax-s.x/float64(s.n), ay-s.y/float64(s.n)))
		})
		if len(dev) == 0 {
			continue
		}
		slices.Sort(dev)
		jitter[i] = dev[len(dev)/2]
		for range t.Points {
			perSegment[t.Label] = append(perSegment[t.Label], jitter[i])
		}
	}
	limit := map[int]float64{}
	for c, r := range perSegment {
		slices.Sort(r)
		limit[c] = factor * max(r[len(r)/2], SteadyFloor)
	}
	for i, t := range ts.Tracks {
		if lim, ok := limit[t.Label]; ok {
			out[i] = jitter[i] > lim // false for NaN
		}
	}
	return out
}
