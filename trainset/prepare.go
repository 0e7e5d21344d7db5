// Package trainset turns a labelled sparse segmentation (trajectories with
// cluster labels and per-trajectory uncertainties) into training data for the
// dense U-Net: per frame a sparse label map and a per-pixel loss weight map.
//
// It follows Kardoost, Ho, Ochs, Keuper, "Self-supervised sparse to dense
// motion segmentation" (ACCV 2020) for labels, clean-up and class balance, and
// Kardoost & Keuper, "Uncertainty in minimum cost multicuts for image and
// motion segmentation" (UAI 2021, Sec. 4.3) for hard examples:
//
//	μ_A = (1/|A|) Σ_{v∈A} u_v                          (mean uncertainty of segment A)
//	hard(v) ⇔ u_v > μ_A  ∧  μ_A > φ                    (uncertain points of uncertain segments)
//
// The set keeps the two apart: per pixel the base weight w_class(v) (class
// balance, below) and the hard-example mask hard(v); Options.Factor is
// recorded in the manifest. The trainer composes the loss weight of the
// variant it trains (package train, Variant), e.g. w_class(v) · factor at hard
// examples: oversampling a hard example k times in a mean loss equals giving
// it weight k in a weighted mean (Σ_i w_i ℓ_i / Σ_i w_i), so nothing is copied
// and memory does not grow with the factor.
//
// Class balance (ACCV 2020): per frame, with n_c labelled pixels of class c
// and n_major = max_c n_c, every other class is weighted
//
//	w_c = ⌊n_major / n_c / 10⌋ + 1,
//
// the majority class 1.
package trainset

import (
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/densify/densify/internal/parallel"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
)

// Unlabelled marks pixels without a label in label maps.
const Unlabelled int16 = -1

// Input is one sequence's sparse segmentation.
type Input struct {
	Tracks *trajectory.TrackSet
	// Uncertainty[i] is u of track i in [0,1]; nil means no uncertainty
	// (no hard examples).
	Uncertainty []float64
	// CameraResidual[i] is the median normalised camera residual of track i
	// (NaN: none; motiongraph.SegmentResult.CameraResidual.Median); nil turns
	// Options.BackgroundResidual off.
	CameraResidual []float64
	// CameraResidualUpper[i] is the upper quartile of the same residuals
	// (motiongraph.SegmentResult.CameraResidual.Upper); nil: the median
	// stands in for it (a camera.csv written before it).
	CameraResidualUpper []float64
	Width, Height       int
	// Frame returns frame f's image (Options.ColourWindow and
	// CutBackground; nil: no frames). Prepare reads every frame once for
	// each, the background cut on several goroutines at once, so Frame must
	// be safe for concurrent use.
	Frame func(f int) (image.Image, error)
}

// Frame is the training data of one frame.
type Frame struct {
	Frame   int       // 0-based frame index
	Labels  []int16   // Height*Width, class or Unlabelled
	Weights []float32 // Height*Width: base weight (class balance), 0 where unlabelled
	Hard    []uint8   // Height*Width, 1 where the pixel is a hard example
	// U is the uncertainty u_v of the trajectory labelling the pixel (0 at
	// unlabelled pixels and at added border and far-background points).
	U []float32
	// Mu is the mean uncertainty μ_A of the segment of that trajectory (0
	// where U is), so that a trainer can redraw the hard examples for
	// another φ: hard ⇔ U > Mu ∧ Mu > φ.
	Mu []float32
	// Gamma is the uncertainty γ_v of the trajectory labelling the pixel,
	// the cost of moving it to another cluster (Kardoost & Keuper, UAI 2021,
	// Eq. 13: u_v = σ(−γ_v)), kept apart from U because float32 u underflows
	// for γ > 103 while a calibrated u_T = σ(−γ/T) still resolves it; +Inf at
	// unlabelled pixels, at added points and without uncertainties.
	Gamma []float32
	// Length is the number of points of the trajectory labelling the pixel
	// (capped at 65535; 0 at unlabelled pixels and at added points): the
	// label quality is broken down by it (ScoreLabels). Not written.
	Length  []uint16
	Counts  []int // labelled pixels per class
	NHard   int   // hard-example pixels
	NBorder int   // added border points
	NFar    int   // added far-background points
	NCut    int   // added background-cut points
}

// Segment describes one cluster of the sparse segmentation.
type Segment struct {
	Cluster         int     `json:"cluster"`
	Class           int     `json:"class"` // -1 when dropped
	Trajectories    int     `json:"trajectories"`
	MeanUncertainty float64 `json:"mean_uncertainty"`
	Uncertain       bool    `json:"uncertain"` // μ_A > φ
	HardTracks      int     `json:"hard_trajectories"`
	Dropped         string  `json:"dropped,omitempty"`
	// Unexplained counts its trajectories left unlabelled because the
	// camera motion does not explain them (unexplainedBackground).
	Unexplained int `json:"unexplained_trajectories,omitempty"`
}

// Set is a prepared training set.
type Set struct {
	Width, Height   int
	Classes         int
	Background      int // cluster id
	Segments        []Segment
	Frames          []Frame
	Options         Options
	DroppedIsolated int
	// DroppedUnsupported counts the foreground points of short trajectories
	// dropped for want of a long trajectory nearby (Options.SupportRadius).
	DroppedUnsupported int
	// DroppedColour counts the foreground points dropped for their colour
	// (Options.ColourWindow), and DroppedColourTracks the foreground
	// trajectories the colour check rejected.
	DroppedColour       int
	DroppedColourTracks int
	// DroppedUnsteady counts the foreground points dropped because their
	// trajectory shakes about its segment's motion (Options.Unsteady), and
	// DroppedUnsteadyTracks those trajectories. They are dropped before the
	// support rule and the colour check, so a point that the colour check
	// would drop too counts here, not in DroppedColour.
	DroppedUnsteady       int
	DroppedUnsteadyTracks int
	// DroppedHard counts the points of hard examples among the points
	// the label clean-ups above dropped: hard examples are uncertain
	// trajectories, often short or off the object's colours, which the
	// clean-ups remove as likely wrong.
	DroppedHard int
	// BeyondPrimary counts the points given to the background because they
	// lie beyond the primary object (Options.PrimaryObject,
	// primaryBackground).
	BeyondPrimary int
	// TrajectoryGamma is γ of every trajectory of a kept segment (class ≥ 0),
	// ascending: the most uncertain first. A trainer that drops the labels
	// of the q most uncertain trajectories (train.VariantPrune) reads its
	// threshold here.
	TrajectoryGamma []float32
}

// Prepare builds the training set of one sequence. After checkInput, a
// preparation runs its steps in order: the clusters and the background,
// the classes, the hard examples, the unexplained background, the long
// trajectories, the points of every frame, the colour check, the
// steadiness test, the labels of every frame (with their clean-ups,
// far-background and border points), the background cut and the weights.
func Prepare(in Input, opt Options) (*Set, error) {
	if err := checkInput(in, opt); err != nil {
		return nil, err
	}
	p := newPreparation(in, opt)
	if err := p.chooseBackground(); err != nil {
		return nil, err
	}
	p.assignClasses()
	p.markHardExamples()
	p.markUnexplained()
	p.markLongTrajectories()
	p.collectPoints()
	if err := p.checkColours(); err != nil {
		return nil, err
	}
	p.markUnsteady()
	p.labelFrames()
	if len(p.set.Frames) == 0 {
		return nil, errors.New("prepare: no trajectory point falls inside the image: nothing to train on")
	}
	if err := p.cutBackground(); err != nil {
		return nil, err
	}
	for k := range p.set.Frames {
		p.set.Frames[k].weigh(opt.Balance)
	}
	return p.set, nil
}

// checkInput checks the options (Options.Validate) and that the input
// fits them: trajectories inside a W×H image, one uncertainty in [0, 1]
// and one camera residual per trajectory where given, and the frames where
// the background cut needs them.
func checkInput(in Input, opt Options) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	ts := in.Tracks
	if ts == nil || len(ts.Tracks) == 0 {
		return errors.New("prepare: no trajectories")
	}
	if in.Width <= 0 || in.Height <= 0 {
		return fmt.Errorf("prepare: invalid image size %dx%d", in.Width, in.Height)
	}
	if opt.CutsBackground() && in.Frame == nil {
		return errors.New("prepare: the background cut needs the frames")
	}
	if err := ts.CheckBounds("", in.Width, in.Height); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	if in.Uncertainty != nil && len(in.Uncertainty) != len(ts.Tracks) {
		return fmt.Errorf("prepare: %d uncertainties for %d trajectories", len(in.Uncertainty), len(ts.Tracks))
	}
	if in.CameraResidual != nil && len(in.CameraResidual) != len(ts.Tracks) {
		return fmt.Errorf("prepare: %d camera residuals for %d trajectories", len(in.CameraResidual), len(ts.Tracks))
	}
	if in.CameraResidualUpper != nil && len(in.CameraResidualUpper) != len(in.CameraResidual) {
		return fmt.Errorf("prepare: %d upper camera residuals for %d medians", len(in.CameraResidualUpper), len(in.CameraResidual))
	}
	for i, u := range in.Uncertainty {
		if math.IsNaN(u) || u < 0 || u > 1 {
			return fmt.Errorf("prepare: uncertainty of trajectory %d is %v, want a value in [0,1]", i, u)
		}
	}
	return nil
}

// preparation is the state of one Prepare: its input, the set it fills
// in, and what each step leaves for the later ones. Per-trajectory slices
// are indexed like in.Tracks.Tracks, per-frame ones by frame.
type preparation struct {
	in   Input
	opt  Options
	ts   *trajectory.TrackSet
	W, H int
	set  *Set

	size   map[int]int  // trajectories per cluster
	ids    []int        // cluster ids, ascending
	isBG   map[int]bool // the background clusters (class 0)
	class  map[int]int  // cluster → class, −1 for a dropped segment
	segIdx map[int]int  // cluster → index in set.Segments

	hard         []bool    // hard examples
	gamma        []float32 // γ of every trajectory (GammaOf its u), float32 as written
	unexplained  []bool    // left unlabelled (unexplainedBackground)
	long         []bool    // long in their segment (SupportRadius; nil when off)
	colourLong   []bool    // long in the foreground (ColourWindow; nil when off)
	colourReject []bool    // rejected by the colour check (nil when off)
	colourLambda []float64 // the colour check's Λ_i (colourEvidence; nil when off)
	unsteady     []bool    // foreground trajectories that shake (unsteadyForeground; nil when off)
	// primaryBoxes is, per frame, the primary object's grown box
	// (PrimaryObject; nil when off or when there is no foreground).
	primaryBoxes map[int][4]float64

	points [][]framePoint // the labelled points of every frame
	// avoid holds the points of every frame that far-background (and, for
	// the first nUnexplained[f], background-cut) points keep FarGap away
	// from: the unexplained trajectories' points, then the points dropped
	// by the clean-ups.
	avoid        [][][2]int
	nUnexplained []int
}

// framePoint is a trajectory's point in a frame: the pixel y·W + x, the
// trajectory's index and its class.
type framePoint struct {
	pix, track int
	class      int16
	// beyond marks a background point beyond the primary object
	// (primaryBackground): it takes no part in the colour models.
	beyond bool
}

func newPreparation(in Input, opt Options) *preparation {
	p := &preparation{in: in, opt: opt, ts: in.Tracks, W: in.Width, H: in.Height,
		set: &Set{Width: in.Width, Height: in.Height, Options: opt}}
	if in.Tracks != nil {
		p.gamma = make([]float32, len(in.Tracks.Tracks))
		for i := range p.gamma {
			p.gamma[i] = float32(GammaOf(p.u(i)))
		}
	}
	return p
}

// u is the uncertainty u_v of trajectory i (0 without uncertainties).
func (p *preparation) u(i int) float64 {
	if p.in.Uncertainty == nil {
		return 0
	}
	return p.in.Uncertainty[i]
}

// GammaOf is γ = ln((1 − u)/u), the inverse of u = σ(−γ) (Kardoost &
// Keuper, UAI 2021, Eq. 13): +Inf at u = 0 (and for a trajectory without
// uncertainties), −Inf at u = 1. In float64 it is exact to rounding for
// every γ whose u does not underflow (γ < 745).
func GammaOf(u float64) float64 {
	return math.Log1p(-u) - math.Log(u)
}

// chooseBackground counts the trajectories of every cluster and picks the
// background: the clusters Options.BackgroundClusters (set.Background is
// the smallest of them), else the cluster Options.Background, else the
// cluster with most points near the border (borderCluster). A named
// cluster that does not exist is an error.
func (p *preparation) chooseBackground() error {
	p.size = map[int]int{}
	for _, t := range p.ts.Tracks {
		p.size[t.Label]++
	}
	p.ids = make([]int, 0, len(p.size))
	for id := range p.size {
		p.ids = append(p.ids, id)
	}
	sort.Ints(p.ids)
	exists := func(c int) error {
		if _, ok := p.size[c]; !ok {
			return fmt.Errorf("prepare: background cluster %d does not exist (clusters %v)", c, p.ids)
		}
		return nil
	}
	bg := p.opt.Background
	p.isBG = map[int]bool{}
	for _, c := range p.opt.BackgroundClusters {
		if err := exists(c); err != nil {
			return err
		}
		p.isBG[c] = true
	}
	switch {
	case len(p.isBG) > 0:
		bg = slices.Min(p.opt.BackgroundClusters)
	case bg >= 0:
		if err := exists(bg); err != nil {
			return err
		}
	default:
		bg = borderCluster(p.ts, p.ids, p.size, float64(p.opt.BorderMargin), p.W, p.H)
	}
	if len(p.isBG) == 0 {
		p.isBG[bg] = true
	}
	p.set.Background = bg
	return nil
}

// borderCluster is the cluster with most trajectory points within margin
// pixels of the border of a W×H image; ties go to the cluster with more
// trajectories (size), then to the smaller id (ids ascending).
func borderCluster(ts *trajectory.TrackSet, ids []int, size map[int]int, margin float64, W, H int) int {
	border := map[int]int{}
	for _, t := range ts.Tracks {
		for _, q := range t.Points {
			if q.X < margin || q.Y < margin || q.X > float64(W-1)-margin || q.Y > float64(H-1)-margin {
				border[t.Label]++
			}
		}
	}
	best := -1
	for _, id := range ids {
		if best < 0 || border[id] > border[best] || (border[id] == border[best] && size[id] > size[best]) {
			best = id
		}
	}
	return best
}

// assignClasses gives every cluster its segment and class: 0 for the
// background, −1 (dropped) for a segment of fewer than MinSegment
// trajectories, otherwise 1, or in multi-label mode 1, 2, … in increasing
// cluster id. set.Classes is 2, or in multi-label mode one more than the
// last class given.
func (p *preparation) assignClasses() {
	p.class, p.segIdx = map[int]int{}, map[int]int{}
	segs := make([]Segment, 0, len(p.ids))
	next := 1
	var primary map[int]bool
	if p.opt.PrimaryObject {
		primary, p.primaryBoxes = p.primaryObject()
	}
	for _, id := range p.ids {
		s := Segment{Cluster: id, Trajectories: p.size[id], Class: -1}
		switch {
		case p.isBG[id]:
			s.Class = 0
		case p.opt.MinSegment > 0 && p.size[id] < p.opt.MinSegment:
			s.Dropped = fmt.Sprintf("fewer than %d trajectories", p.opt.MinSegment)
		case primary != nil && !primary[id]:
			s.Dropped = notPrimary
		case p.opt.Multi:
			s.Class = next
			next++
		default:
			s.Class = 1
		}
		p.class[id] = s.Class
		p.segIdx[id] = len(segs)
		segs = append(segs, s)
	}
	p.set.Segments, p.set.Classes = segs, 2
	if p.opt.Multi {
		p.set.Classes = next
	}
}

// markHardExamples computes every segment's mean uncertainty μ_A and marks
// the hard examples (UAI'21 Sec. 4.3): the trajectories of kept segments
// with μ_A > φ whose u_v exceeds μ_A.
func (p *preparation) markHardExamples() {
	segs := p.set.Segments
	for i, t := range p.ts.Tracks {
		segs[p.segIdx[t.Label]].MeanUncertainty += p.u(i)
	}
	for i := range segs {
		segs[i].MeanUncertainty /= float64(segs[i].Trajectories)
		segs[i].Uncertain = segs[i].MeanUncertainty > p.opt.Phi
	}
	p.hard = make([]bool, len(p.ts.Tracks))
	p.set.TrajectoryGamma = p.set.TrajectoryGamma[:0]
	for i, t := range p.ts.Tracks {
		s := &segs[p.segIdx[t.Label]]
		if s.Class >= 0 {
			p.set.TrajectoryGamma = append(p.set.TrajectoryGamma, p.gamma[i])
		}
		if s.Class >= 0 && uncertainty.HardExample(p.u(i), s.MeanUncertainty, p.opt.Phi) {
			p.hard[i] = true
			s.HardTracks++
		}
	}
	slices.Sort(p.set.TrajectoryGamma)
}

// isHard reports whether trajectory i is a hard example (false before
// markHardExamples).
func (p *preparation) isHard(i int) bool { return i < len(p.hard) && p.hard[i] }

// markUnexplained marks the background trajectories that the camera
// motion does not explain (unexplainedBackground) and counts them per
// segment.
func (p *preparation) markUnexplained() {
	p.unexplained = unexplainedBackground(p.ts, p.in.CameraResidual, p.in.CameraResidualUpper, p.opt, p.isBG)
	for i, t := range p.ts.Tracks {
		if p.unexplained[i] {
			p.set.Segments[p.segIdx[t.Label]].Unexplained++
		}
	}
}

// markUnsteady marks the foreground trajectories that shake about their
// segment's motion (unsteadyForeground; Options.Unsteady) and counts them.
// With the colour check on, a trajectory whose colours say object, Λ_i <
// −UnsteadyColourMargin (colourEvidence), keeps its labels however it
// shakes.
func (p *preparation) markUnsteady() {
	if !(p.opt.Unsteady > 0) {
		return
	}
	p.unsteady = unsteadyForeground(p.ts, func(label int) bool { return p.class[label] >= 1 }, p.opt.Unsteady)
	for i, u := range p.unsteady {
		if u && p.colourLambda != nil && p.colourLambda[i] < -UnsteadyColourMargin {
			p.unsteady[i] = false
		}
		if p.unsteady[i] {
			p.set.DroppedUnsteadyTracks++
		}
	}
}

// markLongTrajectories marks the long foreground trajectories
// (longTrajectories): per segment for SupportRadius, and for the colour
// check per foreground as a whole, not per segment: a segment made only of
// short trajectories (spray thrown off by an object) is short as a whole
// and does not shape the model it is tested against. In multi-label mode,
// where every segment is its own class, the classes are pooled the same way
// (colourClass): the check asks object or background, and a spray segment
// tested against a model of its own colours would never be rejected.
func (p *preparation) markLongTrajectories() {
	if p.opt.SupportRadius > 0 {
		p.long = longTrajectories(p.ts, func(label int) (int, bool) { return label, p.class[label] >= 1 }, p.opt.SupportLength)
	}
	if p.opt.ColourWindow > 0 {
		p.colourLong = longTrajectories(p.ts, func(label int) (int, bool) { return min(p.class[label], 1), p.class[label] >= 1 }, p.opt.SupportLength)
	}
}

// collectPoints lists, per frame, the points inside the image of every
// trajectory of a kept segment that is not unexplained, in trajectory
// order, and (with FarGap > 0) the points of the unexplained trajectories
// in avoid. With PrimaryObject, the points beyond the primary object of the
// segments dropped as not part of it are background points
// (primaryBackground).
func (p *preparation) collectPoints() {
	frames := p.ts.Frames
	p.points = make([][]framePoint, frames)
	p.avoid = make([][][2]int, frames)
	inImage := func(q trajectory.Point) (x, y int, ok bool) {
		x, y = q.Pixel()
		return x, y, x >= 0 && y >= 0 && x < p.W && y < p.H && q.Frame >= 0 && q.Frame < frames
	}
	for i, t := range p.ts.Tracks {
		c := p.class[t.Label]
		if p.unexplained[i] && p.opt.FarGap > 0 {
			for _, q := range t.Points {
				if x, y := q.Pixel(); q.Frame >= 0 && q.Frame < frames {
					p.avoid[q.Frame] = append(p.avoid[q.Frame], [2]int{x, y})
				}
			}
		}
		if p.primaryBackground(i) {
			for _, q := range t.Points {
				if x, y, ok := inImage(q); ok && p.beyondPrimary(q) {
					p.points[q.Frame] = append(p.points[q.Frame], framePoint{pix: y*p.W + x, track: i, class: 0, beyond: true})
					p.set.BeyondPrimary++
				}
			}
			continue
		}
		if c < 0 || p.unexplained[i] {
			continue
		}
		for _, q := range t.Points {
			x, y, ok := inImage(q)
			if !ok {
				continue
			}
			p.points[q.Frame] = append(p.points[q.Frame], framePoint{pix: y*p.W + x, track: i, class: int16(c)})
		}
	}
	p.nUnexplained = make([]int, frames)
	for f := range p.avoid {
		p.nUnexplained[f] = len(p.avoid[f])
	}
}

// checkColours runs the colour check (Options.ColourWindow): the colours
// under every frame's points (colourSamples), the colour models of every
// frame (colourModels) and the trajectories they reject (colourRejected).
func (p *preparation) checkColours() error {
	if p.opt.ColourWindow <= 0 {
		return nil
	}
	if p.in.Frame == nil {
		return errors.New("prepare: the colour check (colour window > 0) needs the frames")
	}
	samples, err := p.colourSamples()
	if err != nil {
		return err
	}
	colours, err := colourModels(samples, p.opt.ColourWindow)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	p.colourLambda = colourEvidence(len(p.ts.Tracks), samples, colours)
	p.colourReject = colourRejected(p.colourLambda)
	for _, r := range p.colourReject {
		if r {
			p.set.DroppedColourTracks++
		}
	}
	return nil
}

// colourSamples reads, on several cores, the colour under every point of
// every frame, with the point's trajectory, colour class (colourClass) and
// whether the trajectory is long in the foreground.
func (p *preparation) colourSamples() ([][]colourSample, error) {
	samples := make([][]colourSample, len(p.points))
	err := parallel.For(len(p.points), 0, func(f int) error {
		pts := p.points[f]
		if len(pts) == 0 {
			return nil
		}
		img, err := frameImage(p.in, f, p.W, p.H)
		if err != nil {
			return err
		}
		samples[f] = make([]colourSample, len(pts))
		for k, q := range pts {
			cl := colourClass(q.class)
			if q.beyond {
				cl = -1 // neither side's model: they may share the object's colours
			}
			samples[f][k] = colourSample{q.track, cl, p.colourLong[q.track], rgbAt(img, q.pix%p.W, q.pix/p.W)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return samples, nil
}

// labelFrames builds the frame of every frame with points: the most
// confident trajectory labels a pixel (ownedPoints), the clean-ups drop
// points (dropUnsteady, dropUnsupported, dropColourRejected, then the
// isolated ones in labelPoints), and far-background and border points are
// added to the rest (addGridPoints).
func (p *preparation) labelFrames() {
	owner := make([]int32, p.W*p.H)
	for f, pts := range p.points {
		if len(pts) == 0 {
			continue
		}
		pts = ownedPoints(pts, owner, p.u)
		fr := newFrame(f, p.W, p.H, p.set.Classes)
		pts = p.dropUnsteady(f, pts)
		pts = p.dropUnsupported(f, pts)
		pts = p.dropColourRejected(f, pts)
		p.labelPoints(&fr, pts)
		p.addGridPoints(&fr)
		p.set.Frames = append(p.set.Frames, fr)
	}
}

// ownedPoints keeps, of the points pts of one frame, the one point per
// pixel whose trajectory is the most confident: the lowest u, on a tie the
// lowest trajectory index. It filters pts in place, keeping their order,
// and uses owner (one entry per pixel) as scratch space.
func ownedPoints(pts []framePoint, owner []int32, u func(track int) float64) []framePoint {
	for i := range owner {
		owner[i] = -1
	}
	for k, q := range pts {
		o := owner[q.pix]
		if o < 0 || u(q.track) < u(pts[o].track) || (u(q.track) == u(pts[o].track) && q.track < pts[o].track) {
			owner[q.pix] = int32(k)
		}
	}
	kept := pts[:0]
	for k, q := range pts {
		if owner[q.pix] == int32(k) {
			kept = append(kept, q)
		}
	}
	return kept
}

// newFrame is frame f of a W×H set of the given classes, every pixel
// unlabelled.
func newFrame(f, W, H, classes int) Frame {
	fr := Frame{Frame: f, Labels: make([]int16, W*H), Weights: make([]float32, W*H), Hard: make([]uint8, W*H),
		U: make([]float32, W*H), Mu: make([]float32, W*H), Gamma: make([]float32, W*H), Length: make([]uint16, W*H), Counts: make([]int, classes)}
	inf := float32(math.Inf(1))
	for i := range fr.Labels {
		fr.Labels[i] = Unlabelled
		fr.Gamma[i] = inf
	}
	return fr
}

// drop removes from pts, the points of frame f, those that reject names,
// adds their number to count and (with FarGap > 0) appends them to
// avoid[f], so that far-background points keep away from them.
func (p *preparation) drop(f int, pts []framePoint, reject func(k int, q framePoint) bool, count *int) []framePoint {
	kept := pts[:0]
	for k, q := range pts {
		if !reject(k, q) {
			kept = append(kept, q)
			continue
		}
		*count++
		if p.isHard(q.track) {
			p.set.DroppedHard++
		}
		if p.opt.FarGap > 0 {
			p.avoid[f] = append(p.avoid[f], [2]int{q.pix % p.W, q.pix / p.W})
		}
	}
	return kept
}

// dropUnsupported drops the foreground points of short trajectories with
// no long trajectory of their segment nearby (unsupportedPoints;
// Options.SupportRadius).
func (p *preparation) dropUnsupported(f int, pts []framePoint) []framePoint {
	if p.long == nil {
		return pts
	}
	unsupported := unsupportedPoints(pts, func(q framePoint) (int, int, int, bool) {
		if q.class == 0 {
			return q.pix % p.W, q.pix / p.W, -1, true
		}
		return q.pix % p.W, q.pix / p.W, p.ts.Tracks[q.track].Label, p.long[q.track]
	}, p.opt.SupportRadius, p.opt.SupportAlone)
	return p.drop(f, pts, func(k int, _ framePoint) bool { return unsupported[k] }, &p.set.DroppedUnsupported)
}

// dropUnsteady drops the points of the foreground trajectories that shake
// about their segment's motion (markUnsteady), before the support rule, so
// that they support no short trajectory.
func (p *preparation) dropUnsteady(f int, pts []framePoint) []framePoint {
	if p.unsteady == nil {
		return pts
	}
	return p.drop(f, pts, func(_ int, q framePoint) bool { return q.class != 0 && p.unsteady[q.track] }, &p.set.DroppedUnsteady)
}

// dropColourRejected drops the foreground points of the trajectories the
// colour check rejected.
func (p *preparation) dropColourRejected(f int, pts []framePoint) []framePoint {
	if p.colourReject == nil {
		return pts
	}
	return p.drop(f, pts, func(_ int, q framePoint) bool { return q.class != 0 && p.colourReject[q.track] }, &p.set.DroppedColour)
}

// labelPoints writes the points into fr: label, u_v, the trajectory's
// length, μ_A of its segment and the hard-example mask; with DropIsolated
// it leaves out, and counts, the isolated foreground points
// (isolatedPoints).
func (p *preparation) labelPoints(fr *Frame, pts []framePoint) {
	isolated := map[int]bool{}
	if p.opt.DropIsolated {
		isolated = isolatedPoints(pts, func(q framePoint) (int, int, int) { return q.pix % p.W, q.pix / p.W, int(q.class) }, p.opt.IsolatedRadius)
	}
	for k, q := range pts {
		if q.class != 0 && isolated[k] {
			p.set.DroppedIsolated++
			if p.isHard(q.track) {
				p.set.DroppedHard++
			}
			continue
		}
		t := &p.ts.Tracks[q.track]
		fr.Labels[q.pix] = q.class
		fr.U[q.pix] = float32(p.u(q.track))
		fr.Gamma[q.pix] = p.gamma[q.track]
		fr.Length[q.pix] = uint16(min(len(t.Points), math.MaxUint16))
		fr.Mu[q.pix] = float32(p.set.Segments[p.segIdx[t.Label]].MeanUncertainty)
		if p.hard[q.track] {
			fr.Hard[q.pix] = 1
		}
	}
}

// addGridPoints adds the far-background points (addFarBackground, away
// from every point of avoid) and the border points (addBorderPoints) to
// fr, as the options ask.
func (p *preparation) addGridPoints(fr *Frame) {
	if p.opt.FarBackground > 0 {
		fr.NFar = addFarBackground(fr.Labels, p.W, p.H, p.opt.BorderStep, p.opt.FarRadius(p.W, p.H), p.avoid[fr.Frame], p.opt.FarGap)
	}
	if p.opt.BorderPoints {
		fr.NBorder = addBorderPoints(fr.Labels, p.W, p.H, p.opt.BorderStep, p.opt.BorderInsets)
	}
}

// cutBackground adds the background-cut points of every frame
// (addCutBackground, away from the unexplained trajectories' points) when
// the options ask for them (Options.CutsBackground). One cut per frame,
// each on its own labels: the frames are independent, so they run on
// several cores (parallel.For), one frame and its cut in memory per core
// (cutWorkers); Options.Progress is told after each.
func (p *preparation) cutBackground() error {
	if !p.opt.CutsBackground() {
		return nil
	}
	r := p.opt.FarRadius(p.W, p.H)
	frames := p.set.Frames
	var (
		mu   sync.Mutex // guards done and the calls of opt.Progress
		done int
	)
	return parallel.For(len(frames), cutWorkers(p.W, p.H, runtime.GOMAXPROCS(0)), func(k int) error {
		fr := &frames[k]
		img, err := frameImage(p.in, fr.Frame, p.W, p.H)
		if err != nil {
			return err
		}
		avoid := p.avoid[fr.Frame][:p.nUnexplained[fr.Frame]]
		if fr.NCut, err = addCutBackground(img, fr.Labels, p.W, p.H, p.opt.BorderStep, r, p.opt.CutMargin, avoid, p.opt.FarGap); err != nil {
			return fmt.Errorf("prepare: frame %d: %w", fr.Frame, err)
		}
		if p.opt.Progress != nil {
			mu.Lock()
			done++
			p.opt.Progress(done, len(frames))
			mu.Unlock()
		}
		return nil
	})
}

// weigh counts fr's labels per class and hard examples and gives every
// labelled pixel its class's weight (classWeights).
func (fr *Frame) weigh(balance bool) {
	for _, l := range fr.Labels {
		if l >= 0 {
			fr.Counts[l]++
		}
	}
	cw := classWeights(fr.Counts, balance)
	for i, l := range fr.Labels {
		if l < 0 {
			continue
		}
		if fr.Hard[i] == 1 {
			fr.NHard++
		}
		fr.Weights[i] = float32(cw[l])
	}
}

// cutMemory bounds the memory of the background cuts that run at once, and
// cutBytesPerPixel is what one cut allocates per pixel of its frame
// (BenchmarkPrepareBackgroundCut854x480: 168 MB per 854×480 frame, colours,
// distance maps, pair weights and the max-flow graph).
const (
	cutMemory        = 2 << 30
	cutBytesPerPixel = 400
)

// cutWorkers is how many W×H frames Prepare cuts at once on procs cores:
// as many as cutMemory holds, at least one, at most procs (13 at 854×480,
// 2 at 1920×1080).
func cutWorkers(W, H, procs int) int {
	return max(1, min(procs, cutMemory/(cutBytesPerPixel*W*H)))
}

// colourClass is the class of the colour check for a point of class c:
// 0 for the background, 1 for every foreground class (binary mode's
// classes already are 0 and 1).
func colourClass(c int16) int16 { return min(c, 1) }

// frameImage reads frame f of in and checks that it is W×H.
func frameImage(in Input, f, W, H int) (image.Image, error) {
	img, err := in.Frame(f)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if b := img.Bounds(); b.Dx() != W || b.Dy() != H {
		return nil, fmt.Errorf("prepare: frame %d is %dx%d, the tracks' frames %dx%d", f, b.Dx(), b.Dy(), W, H)
	}
	return img, nil
}
