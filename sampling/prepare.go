// Package sampling turns a labelled sparse segmentation (trajectories with
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
package sampling

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
)

// Unlabelled marks pixels without a label in label maps.
const Unlabelled int16 = -1

// Options controls the preparation; DefaultOptions gives the defaults.
type Options struct {
	// Multi selects multi-label mode (background = class 0, every other
	// segment its own class, in increasing cluster id). Otherwise binary:
	// background = 0, every moving segment = 1.
	Multi bool
	// Background is the cluster id of the background; -1 picks the cluster
	// with most trajectory points within BorderMargin pixels of the image border.
	Background   int
	BorderMargin int
	// BackgroundClusters, when not empty, are the background clusters
	// (class 0), e.g. the clusters the camera motion explains
	// (motiongraph.CameraEvidence, written to segment.json); it takes
	// precedence over Background.
	BackgroundClusters []int `json:",omitempty"`
	// MinSegment drops segments with fewer trajectories (0 keeps all).
	MinSegment int
	// DropIsolated removes foreground points that have no other point of the
	// same class within IsolatedRadius pixels in the same frame.
	DropIsolated   bool
	IsolatedRadius float64
	// BorderPoints adds background points along the four image borders every
	// BorderStep pixels, at the insets BorderInsets (pixels in from the edge),
	// where no trajectory labels the pixel.
	BorderPoints bool
	BorderStep   int
	BorderInsets []int
	// FarBackground, when > 0, adds background points where no trajectory
	// is: on the grid of BorderStep pixels, every unlabelled pixel farther
	// than FarBackground × the image diagonal from every foreground point of
	// its frame (addFarBackground). Textureless regions (sky, water, walls)
	// carry no trajectory and hence no label; without these points the
	// U-Net is free to paint them foreground.
	FarBackground float64 `json:",omitempty"`
	// BackgroundResidual, when > 0, leaves unlabelled every trajectory of a
	// CameraBackground cluster whose normalised camera residual moves it on
	// its own (Input.CameraResidual, CameraResidualUpper;
	// unexplainedBackground).
	// CameraBackground are the background clusters that the camera motion
	// explains as a whole (motiongraph.SegmentReport.CameraBackground).
	BackgroundResidual float64 `json:",omitempty"`
	CameraBackground   []int   `json:",omitempty"`
	// FarGap, when > 0, keeps far-background points more than FarGap pixels
	// away from every point, in the same frame, of a trajectory left
	// unlabelled by BackgroundResidual: they are textured pixels whose label
	// the segmentation could not decide, not the textureless regions the
	// far-background points are for.
	FarGap float64 `json:",omitempty"`
	// SupportRadius, when > 0, keeps a foreground point of a short
	// trajectory only where a point of a long trajectory of the same
	// segment lies within SupportRadius pixels in the same frame
	// (unsupportedPoints); short means shorter than the segment's
	// point-weighted median length. Dropped points are treated like those of
	// unexplained background trajectories by FarGap.
	SupportRadius float64 `json:",omitempty"`
	// SupportLength, when > 0, caps the length that counts as long for
	// SupportRadius: a trajectory of at least SupportLength points is long
	// whatever its segment's median (0: no cap, the default). It is meant
	// for slow objects whose median is long; it is not the default because
	// on the DAVIS 2016 development sequences a cap of 32 points, while it
	// helped cows, supported part of blackswan's reflection again and cost
	// more dense J there than it gained.
	SupportLength int `json:",omitempty"`
	// ColourWindow, when > 0, also drops the foreground points of every
	// trajectory whose colours are, on the whole, more probable under the
	// background's colour model than under its class's (colourRejected: the
	// mean log-likelihood ratio over the trajectory's points is positive):
	// per frame, GrabCut mixtures (K = 5) fitted to the colours under the
	// class's long trajectories (at least the point-weighted median length
	// of the class, not of the segment: a segment made only of short
	// trajectories does not shape the model; SupportLength caps it) and
	// under the background's trajectories in the frames within ColourWindow
	// of it (colourModel). The multicut cannot tell apart what moves with an
	// object but is not part of it: kite-surf's spray and the water between
	// the kite lines and between arms and body, blackswan's reflection.
	// Their colour is the background's. Dropped points are treated like
	// SupportRadius's. Needs Input.Frame.
	ColourWindow int `json:",omitempty"`
	// CutBackground adds background points in the ring that FarBackground
	// leaves open: on the grid of BorderStep pixels, every unlabelled pixel
	// within FarBackground × the diagonal of a foreground label that the
	// background cut (Boykov & Jolly's graph cut with the frame's labels as
	// hard constraints) gives to the background, more than CutMargin pixels
	// from every pixel it gives to the object and more than FarGap from the
	// unexplained background trajectories' points (addCutBackground). Off
	// when FarBackground is 0 (there is no ring); needs Input.Frame.
	CutBackground bool    `json:",omitempty"`
	CutMargin     float64 `json:",omitempty"`
	// Progress, when set, is told after every frame's background cut how
	// many of the set's frames are cut (one call at a time; the cuts are the
	// slow part of Prepare, about 0.24 s of a core per 854×480 frame).
	Progress func(done, total int) `json:"-"`
	// Balance enables the ACCV'20 class balance weights.
	Balance bool
	// Oracle records that the labels come from the ground truth
	// (PrepareOracleFiles), not from the segmentation.
	Oracle bool `json:",omitempty"`
	// Phi is the segment-uncertainty threshold φ and Factor the loss-weight
	// factor of hard examples (recorded for the trainer; 1 disables them).
	Phi    float64
	Factor float64
}

// DefaultPhi is the default segment-uncertainty threshold φ: the median of
// μ_A over the segments of ≥ 20 trajectories of the ten DAVIS 2016
// development sequences under the current defaults, so that the more
// uncertain half of the segments is eligible and the large, confident
// background segments are left alone.
const DefaultPhi = 0.0005

// DefaultFarBackground is the default far-background distance: 0.1 of the
// image diagonal (98 px at 854×480), the value that raised dense J on most
// of the DAVIS 2016 development sequences it was measured on.
const DefaultFarBackground = 0.1

// DefaultBackgroundResidual is the default of Options.BackgroundResidual:
// motiongraph.BackgroundResidual, the residual up to which the segmentation
// counts a point as explained by the camera, so that both speak of the same
// "explained" (not tuned further).
const DefaultBackgroundResidual = 3.0

// DefaultFarGap is the default of Options.FarGap: one step of the
// far-background grid (DefaultOptions' BorderStep), so that no grid point
// takes the place of an unexplained trajectory's point next to it. Not
// tuned: 10 px was the only value tried.
const DefaultFarGap = 10.0

// DefaultSupportRadius is the default of Options.SupportRadius: the
// IsolatedRadius of the ACCV'20 clean-up (16 px), not tuned; with it the
// mean dense J over the ten DAVIS 2016 development sequences rose.
const DefaultSupportRadius = 16.0

// DefaultOptions returns the defaults: binary, automatic background, all
// ACCV'20 clean-ups on, far-background points at DefaultFarBackground,
// short trajectories supported within DefaultSupportRadius, φ = DefaultPhi,
// factor 1000.
func DefaultOptions() Options {
	return Options{
		Background: -1, BorderMargin: 10,
		MinSegment: 20, DropIsolated: true, IsolatedRadius: 16,
		BorderPoints: true, BorderStep: 10, BorderInsets: []int{5, 15}, FarBackground: DefaultFarBackground,
		BackgroundResidual: DefaultBackgroundResidual, FarGap: DefaultFarGap, SupportRadius: DefaultSupportRadius, ColourWindow: DefaultColourWindow,
		CutBackground: true, CutMargin: DefaultCutMargin,
		Balance: true, Phi: DefaultPhi, Factor: 1000,
	}
}

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
}

// Validate checks the ranges: background ≥ −1, border margin, minimum
// segment and border step ≥ 0 (border step ≥ 1 with border points),
// isolated radius finite in [0, 10000] px, φ in [0, 1], factor finite in
// (0, 1e6] (a loss weight; beyond that float32 losses lose all precision).
func (o Options) Validate() error {
	switch {
	case o.Background < -1:
		return fmt.Errorf("prepare: background must be a cluster id ≥ 0 or −1 (automatic), got %d", o.Background)
	case o.BorderMargin < 0 || o.MinSegment < 0:
		return fmt.Errorf("prepare: border margin and minimum segment must be ≥ 0, got %d, %d", o.BorderMargin, o.MinSegment)
	case o.BorderPoints && o.BorderStep < 1:
		return fmt.Errorf("prepare: border step must be ≥ 1, got %d", o.BorderStep)
	case o.FarBackground > 0 && o.BorderStep < 1:
		return fmt.Errorf("prepare: far-background points need a grid step ≥ 1, got %d", o.BorderStep)
	case !(o.BackgroundResidual >= 0) || math.IsInf(o.BackgroundResidual, 0):
		return fmt.Errorf("prepare: background residual must be a finite number ≥ 0 (0: off), got %v", o.BackgroundResidual)
	case !(o.FarBackground >= 0 && o.FarBackground <= 2):
		return fmt.Errorf("prepare: far-background distance must be in [0, 2] image diagonals, got %v", o.FarBackground)
	case !(o.FarGap >= 0 && o.FarGap <= 10000):
		return fmt.Errorf("prepare: far gap must be in [0, 10000] px (0: off), got %v", o.FarGap)
	case !(o.SupportRadius >= 0 && o.SupportRadius <= 10000):
		return fmt.Errorf("prepare: support radius must be in [0, 10000] px (0: off), got %v", o.SupportRadius)
	case !(o.CutMargin >= 0 && o.CutMargin <= 10000):
		return fmt.Errorf("prepare: cut margin must be in [0, 10000] px, got %v", o.CutMargin)
	case o.ColourWindow < 0 || o.ColourWindow > 1000:
		return fmt.Errorf("prepare: colour window must be in [0, 1000] frames (0: off), got %d", o.ColourWindow)
	case o.SupportLength < 0 || o.SupportLength > 1e6:
		return fmt.Errorf("prepare: support length must be in [0, 1000000] points (0: no cap), got %d", o.SupportLength)
	case !(o.IsolatedRadius >= 0 && o.IsolatedRadius <= 10000):
		return fmt.Errorf("prepare: isolated radius must be in [0, 10000] px, got %v", o.IsolatedRadius)
	case !(o.Phi >= 0 && o.Phi <= 1):
		return fmt.Errorf("prepare: φ must be in [0, 1] (a mean uncertainty), got %v", o.Phi)
	case !(o.Factor > 0 && o.Factor <= 1e6):
		return fmt.Errorf("prepare: hard-example factor must be in (0, 1e6], got %v", o.Factor)
	}
	return nil
}

// Prepare builds the training set of one sequence.
func Prepare(in Input, opt Options) (*Set, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	ts := in.Tracks
	if ts == nil || len(ts.Tracks) == 0 {
		return nil, errors.New("prepare: no trajectories")
	}
	if in.Width <= 0 || in.Height <= 0 {
		return nil, fmt.Errorf("prepare: invalid image size %dx%d", in.Width, in.Height)
	}
	if opt.CutsBackground() && in.Frame == nil {
		return nil, errors.New("prepare: the background cut needs the frames")
	}
	if err := ts.CheckBounds("", in.Width, in.Height); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if in.Uncertainty != nil && len(in.Uncertainty) != len(ts.Tracks) {
		return nil, fmt.Errorf("prepare: %d uncertainties for %d trajectories", len(in.Uncertainty), len(ts.Tracks))
	}
	if in.CameraResidual != nil && len(in.CameraResidual) != len(ts.Tracks) {
		return nil, fmt.Errorf("prepare: %d camera residuals for %d trajectories", len(in.CameraResidual), len(ts.Tracks))
	}
	if in.CameraResidualUpper != nil && len(in.CameraResidualUpper) != len(in.CameraResidual) {
		return nil, fmt.Errorf("prepare: %d upper camera residuals for %d medians", len(in.CameraResidualUpper), len(in.CameraResidual))
	}
	for i, u := range in.Uncertainty {
		if math.IsNaN(u) || u < 0 || u > 1 {
			return nil, fmt.Errorf("prepare: uncertainty of trajectory %d is %v, want a value in [0,1]", i, u)
		}
	}
	if opt.Factor <= 0 || math.IsNaN(opt.Factor) || math.IsInf(opt.Factor, 0) {
		return nil, fmt.Errorf("prepare: hard-example factor must be positive and finite, got %v", opt.Factor)
	}
	W, H := in.Width, in.Height
	unc := func(i int) float64 {
		if in.Uncertainty == nil {
			return 0
		}
		return in.Uncertainty[i]
	}

	// Segments and their sizes.
	size := map[int]int{}
	for _, t := range ts.Tracks {
		size[t.Label]++
	}
	ids := make([]int, 0, len(size))
	for id := range size {
		ids = append(ids, id)
	}
	sort.Ints(ids)

	// Background: the given set, the given cluster, or the cluster with most
	// points near the border.
	bg := opt.Background
	isBG := map[int]bool{}
	for _, c := range opt.BackgroundClusters {
		if _, ok := size[c]; !ok {
			return nil, fmt.Errorf("prepare: background cluster %d does not exist (clusters %v)", c, ids)
		}
		isBG[c] = true
	}
	if len(isBG) > 0 {
		bg = slices.Min(opt.BackgroundClusters)
	} else if bg >= 0 {
		if _, ok := size[bg]; !ok {
			return nil, fmt.Errorf("prepare: background cluster %d does not exist (clusters %v)", bg, ids)
		}
	} else {
		border := map[int]int{}
		m := float64(opt.BorderMargin)
		for _, t := range ts.Tracks {
			for _, p := range t.Points {
				if p.X < m || p.Y < m || p.X > float64(W-1)-m || p.Y > float64(H-1)-m {
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
		bg = best
	}
	if len(isBG) == 0 {
		isBG[bg] = true
	}

	// Classes; small segments dropped (never the background).
	class := map[int]int{}
	segs := make([]Segment, 0, len(ids))
	next := 1
	for _, id := range ids {
		s := Segment{Cluster: id, Trajectories: size[id], Class: -1}
		switch {
		case isBG[id]:
			s.Class = 0
		case opt.MinSegment > 0 && size[id] < opt.MinSegment:
			s.Dropped = fmt.Sprintf("fewer than %d trajectories", opt.MinSegment)
		case opt.Multi:
			s.Class = next
			next++
		default:
			s.Class = 1
		}
		class[id] = s.Class
		segs = append(segs, s)
	}
	classes := 2
	if opt.Multi {
		classes = next
	}

	// Hard examples: μ_A per segment, u_v > μ_A in segments with μ_A > φ.
	segIdx := map[int]int{}
	for i, s := range segs {
		segIdx[s.Cluster] = i
	}
	for i, t := range ts.Tracks {
		segs[segIdx[t.Label]].MeanUncertainty += unc(i)
	}
	for i := range segs {
		segs[i].MeanUncertainty /= float64(segs[i].Trajectories)
		segs[i].Uncertain = segs[i].MeanUncertainty > opt.Phi
	}
	hard := make([]bool, len(ts.Tracks))
	for i, t := range ts.Tracks {
		s := &segs[segIdx[t.Label]]
		if s.Class >= 0 && s.Uncertain && unc(i) > s.MeanUncertainty {
			hard[i] = true
			s.HardTracks++
		}
	}

	set := &Set{Width: W, Height: H, Classes: classes, Background: bg, Segments: segs, Options: opt}
	skip := unexplainedBackground(ts, in.CameraResidual, in.CameraResidualUpper, opt, isBG)
	for i, t := range ts.Tracks {
		if skip[i] {
			segs[segIdx[t.Label]].Unexplained++
		}
	}

	// Long trajectories of each foreground segment (SupportRadius).
	var long []bool
	if opt.SupportRadius > 0 {
		long = longTrajectories(ts, func(label int) (int, bool) { return label, class[label] >= 1 }, opt.SupportLength)
	}
	// The foreground's colour model is fitted to its long trajectories,
	// long against the whole foreground, not the segment: a segment made
	// only of short trajectories (spray thrown off by an object) is short
	// as a whole and does not shape the model it is tested against. In
	// multi-label mode, where every segment is its own class, the classes
	// are pooled the same way (colourClass): the check asks object or
	// background, and a spray segment tested against a model of its own
	// colours would never be rejected.
	var colourLong []bool
	if opt.ColourWindow > 0 {
		colourLong = longTrajectories(ts, func(label int) (int, bool) { return min(class[label], 1), class[label] >= 1 }, opt.SupportLength)
	}

	// Points per frame: the most confident trajectory labels a pixel.
	type pt struct {
		pix, track int
		class      int16
	}
	perFrame := make([][]pt, ts.Frames)
	// Points of the trajectories left unlabelled as unexplained background:
	// far-background points keep FarGap pixels away from them.
	avoid := make([][][2]int, ts.Frames)
	for i, t := range ts.Tracks {
		c := class[t.Label]
		if skip[i] && opt.FarGap > 0 {
			for _, p := range t.Points {
				if x, y := p.Pixel(); p.Frame >= 0 && p.Frame < ts.Frames {
					avoid[p.Frame] = append(avoid[p.Frame], [2]int{x, y})
				}
			}
		}
		if c < 0 || skip[i] {
			continue
		}
		for _, p := range t.Points {
			x, y := p.Pixel()
			if x < 0 || y < 0 || x >= W || y >= H || p.Frame < 0 || p.Frame >= ts.Frames {
				continue
			}
			perFrame[p.Frame] = append(perFrame[p.Frame], pt{pix: y*W + x, track: i, class: int16(c)})
		}
	}
	// The unexplained trajectories' points lead avoid; the points dropped
	// below follow them.
	unexplained := make([]int, ts.Frames)
	for f := range avoid {
		unexplained[f] = len(avoid[f])
	}
	// colourReject marks the trajectories the colour check rejects.
	var colourReject []bool
	if opt.ColourWindow > 0 {
		if in.Frame == nil {
			return nil, errors.New("prepare: the colour check (colour window > 0) needs the frames")
		}
		samples := make([][]colourSample, len(perFrame))
		err := parallel.For(len(perFrame), 0, func(f int) error {
			pts := perFrame[f]
			if len(pts) == 0 {
				return nil
			}
			img, err := frameImage(in, f, W, H)
			if err != nil {
				return err
			}
			samples[f] = make([]colourSample, len(pts))
			for k, p := range pts {
				samples[f][k] = colourSample{p.track, colourClass(p.class), colourLong[p.track], rgbAt(img, p.pix%W, p.pix/W)}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		colours, err := colourModels(samples, opt.ColourWindow)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		colourReject = colourRejected(len(ts.Tracks), samples, colours)
		for _, r := range colourReject {
			if r {
				set.DroppedColourTracks++
			}
		}
	}
	owner := make([]int32, W*H)
	for f, pts := range perFrame {
		if len(pts) == 0 {
			continue
		}
		for i := range owner {
			owner[i] = -1
		}
		for k, p := range pts {
			o := owner[p.pix]
			if o < 0 || unc(p.track) < unc(pts[o].track) || (unc(p.track) == unc(pts[o].track) && p.track < pts[o].track) {
				owner[p.pix] = int32(k)
			}
		}
		kept := pts[:0]
		for k, p := range pts {
			if owner[p.pix] == int32(k) {
				kept = append(kept, p)
			}
		}
		pts = kept

		fr := Frame{Frame: f, Labels: make([]int16, W*H), Weights: make([]float32, W*H), Hard: make([]uint8, W*H),
			U: make([]float32, W*H), Mu: make([]float32, W*H), Length: make([]uint16, W*H), Counts: make([]int, classes)}
		for i := range fr.Labels {
			fr.Labels[i] = Unlabelled
		}
		// drop removes the points reject names, counting them; the far
		// gap keeps far-background points away from them.
		drop := func(pts []pt, reject func(k int, p pt) bool, count *int) []pt {
			kept := pts[:0]
			for k, p := range pts {
				if !reject(k, p) {
					kept = append(kept, p)
					continue
				}
				*count++
				if opt.FarGap > 0 {
					avoid[f] = append(avoid[f], [2]int{p.pix % W, p.pix / W})
				}
			}
			return kept
		}
		if long != nil {
			unsupported := unsupportedPoints(pts, func(p pt) (int, int, int, bool) {
				t := p.track
				if p.class == 0 {
					return p.pix % W, p.pix / W, -1, true
				}
				return p.pix % W, p.pix / W, ts.Tracks[t].Label, long[t]
			}, opt.SupportRadius)
			pts = drop(pts, func(k int, _ pt) bool { return unsupported[k] }, &set.DroppedUnsupported)
		}
		if colourReject != nil {
			pts = drop(pts, func(_ int, p pt) bool { return p.class != 0 && colourReject[p.track] }, &set.DroppedColour)
		}
		isolated := map[int]bool{}
		if opt.DropIsolated {
			isolated = isolatedPoints(pts, func(p pt) (int, int, int) { return p.pix % W, p.pix / W, int(p.class) }, opt.IsolatedRadius)
		}
		for k, p := range pts {
			if p.class != 0 && isolated[k] {
				set.DroppedIsolated++
				continue
			}
			fr.Labels[p.pix] = p.class
			fr.U[p.pix] = float32(unc(p.track))
			fr.Length[p.pix] = uint16(min(len(ts.Tracks[p.track].Points), math.MaxUint16))
			fr.Mu[p.pix] = float32(segs[segIdx[ts.Tracks[p.track].Label]].MeanUncertainty)
			if hard[p.track] {
				fr.Hard[p.pix] = 1
			}
		}
		if opt.FarBackground > 0 {
			fr.NFar = addFarBackground(fr.Labels, W, H, opt.BorderStep, opt.FarRadius(W, H), avoid[f], opt.FarGap)
		}
		if opt.BorderPoints {
			fr.NBorder = addBorderPoints(fr.Labels, W, H, opt.BorderStep, opt.BorderInsets)
		}
		set.Frames = append(set.Frames, fr)
	}
	if len(set.Frames) == 0 {
		return nil, errors.New("prepare: no trajectory point falls inside the image: nothing to train on")
	}
	if opt.CutsBackground() {
		// One cut per frame, each on its own labels: the frames are
		// independent, so they run on several cores (parallel.For), one
		// frame and its cut in memory per core (cutWorkers).
		r := opt.FarRadius(W, H)
		var (
			mu   sync.Mutex // guards done and the calls of opt.Progress
			done int
		)
		err := parallel.For(len(set.Frames), cutWorkers(W, H, runtime.GOMAXPROCS(0)), func(k int) error {
			fr := &set.Frames[k]
			img, err := frameImage(in, fr.Frame, W, H)
			if err != nil {
				return err
			}
			if fr.NCut, err = addCutBackground(img, fr.Labels, W, H, opt.BorderStep, r, opt.CutMargin, avoid[fr.Frame][:unexplained[fr.Frame]], opt.FarGap); err != nil {
				return fmt.Errorf("prepare: frame %d: %w", fr.Frame, err)
			}
			if opt.Progress != nil {
				mu.Lock()
				done++
				opt.Progress(done, len(set.Frames))
				mu.Unlock()
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for k := range set.Frames {
		set.Frames[k].weigh(opt.Balance)
	}
	return set, nil
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

// CutsBackground reports whether Prepare adds background-cut points: CutBackground is set and FarBackground leaves a ring.
func (o Options) CutsBackground() bool { return o.CutBackground && o.FarBackground > 0 }

// FarRadius is r = FarBackground × the diagonal of a W×H frame in pixels:
// far-background points lie beyond r of every foreground label,
// background-cut points within it.
func (o Options) FarRadius(W, H int) float64 {
	return o.FarBackground * math.Hypot(float64(W), float64(H))
}

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

// unexplainedBackground marks the trajectories that Prepare leaves
// unlabelled: those of a background cluster c listed in
// opt.CameraBackground whose upper-quartile normalised camera residual
// q_i (upper[i]) exceeds
//
//	θ_c = R · max(1, Q_c),   R = opt.BackgroundResidual,
//
// with Q_c the median of q over the trajectories of c, provided m_c ≤ R,
// m_c the median over c of the trajectories' median residuals r_i
// (residual[i]): the camera explains the cluster's typical trajectory over
// most of its life. NaNs are left out of both medians and never marked.
// Without upper (a camera.csv written before it) q = r. Nothing is marked
// when R is 0 or residual is nil.
//
// Why: such a cluster is background because the camera motion explains
// most of its points (motiongraph.CameraEvidence), but a trajectory whose
// own points the camera does not explain moves by itself. The multicut
// keeps such trajectories in the background cluster when the object moves
// slowly and the camera follows it (DAVIS cows, dog), and as background
// labels they teach the U-Net
// that the object is background. Leaving them unlabelled removes these
// false background labels at the price of some true ones, which the
// densifier fills in from their neighbours; the factor max(1, Q_c) keeps
// that price small where the background moves somewhat by itself.
//
// Why the upper quartile: parts of an object rest for half of their life
// or more. The hoof of a walking cow stands on the ground while the leg
// swings, and a grazing head is still between moves, so their median
// residual is the ground's; a quarter of their life moving on their own
// is enough to count. On the DAVIS 2016 development sequences the upper
// quartile labels cows, bmx-trees and dog better than the median and no
// sequence noticeably worse; the 90th percentile, better still on cows,
// is worse on bmx-trees. The gate keeps the median: whether the camera
// explains a cluster is a statement about most of its life.
//
// Where the typical trajectory of the cluster is itself unexplained
// (m_c > R: water, whose trajectories ripple), the residuals say nothing
// about which of them belong to an object, and the unexplained ones near
// the object (a swan's wake) are the background labels the densifier needs
// most: on blackswan unlabelling them cost dense J at an unchanged label
// IoU, so such clusters are left alone. So are clusters that are background only by their share
// of the border band: there the camera fit describes a corner of the
// frame, and the residuals of the whole background are large
// (motocross-jump).
func unexplainedBackground(ts *trajectory.TrackSet, residual, upper []float64, opt Options, isBG map[int]bool) []bool {
	out := make([]bool, len(ts.Tracks))
	if !(opt.BackgroundResidual > 0) || residual == nil {
		return out
	}
	if upper == nil {
		upper = residual
	}
	type stats struct{ med, up []float64 }
	byCluster := map[int]*stats{}
	for _, c := range opt.CameraBackground {
		if isBG[c] {
			byCluster[c] = &stats{}
		}
	}
	for i, t := range ts.Tracks {
		st, ok := byCluster[t.Label]
		if !ok {
			continue
		}
		if !math.IsNaN(residual[i]) {
			st.med = append(st.med, residual[i])
		}
		if !math.IsNaN(upper[i]) {
			st.up = append(st.up, upper[i])
		}
	}
	median := func(r []float64) float64 {
		if len(r) == 0 {
			return 0
		}
		slices.Sort(r)
		return r[len(r)/2]
	}
	theta := map[int]float64{}
	for c, st := range byCluster {
		if median(st.med) <= opt.BackgroundResidual {
			theta[c] = opt.BackgroundResidual * max(1, median(st.up))
		}
	}
	for i, t := range ts.Tracks {
		if th, ok := theta[t.Label]; ok {
			out[i] = upper[i] > th // false for NaN
		}
	}
	return out
}

// classWeights implements the ACCV'20 balance w_c = ⌊n_major/n_c/10⌋ + 1.
func classWeights(counts []int, balance bool) []float64 {
	w := make([]float64, len(counts))
	major := 0
	for _, n := range counts {
		major = max(major, n)
	}
	for c, n := range counts {
		w[c] = 1
		if balance && n > 0 && n < major {
			w[c] = math.Floor(float64(major)/float64(n)/10) + 1
		}
	}
	return w
}

// isolatedPoints returns the indices of points with no other point of the
// same class within radius r (pointBuckets).
func isolatedPoints[P any](pts []P, at func(P) (x, y, c int), r float64) map[int]bool {
	out := map[int]bool{}
	if r <= 0 {
		return out
	}
	xy := make([][2]int, len(pts))
	class := make([]int, len(pts))
	for i, p := range pts {
		xy[i][0], xy[i][1], class[i] = at(p)
	}
	b := newPointBuckets(xy, r)
	for i, p := range xy {
		if !b.nearWhere(p[0], p[1], func(j int) bool { return j != i && class[j] == class[i] }) {
			out[i] = true
		}
	}
	return out
}

// longTrajectories marks, in every group c of trajectories, the long ones:
// those at least as long as the group's point-weighted median length
//
//	m_c = min{ℓ : Σ_{i∈c, ℓ_i ≤ ℓ} ℓ_i ≥ ½ Σ_{i∈c} ℓ_i},   ℓ_i = |points of i|,
//
// so that the long trajectories hold at least half of the group's points,
// or (capLen > 0) at least capLen long. group maps a trajectory's label to
// its group (a segment, or a class); trajectories it does not accept (ok
// false) are not marked.
func longTrajectories(ts *trajectory.TrackSet, group func(label int) (c int, ok bool), capLen int) []bool {
	lens := map[int][]int{}
	for _, t := range ts.Tracks {
		if c, ok := group(t.Label); ok {
			lens[c] = append(lens[c], len(t.Points))
		}
	}
	median := map[int]int{}
	for c, ls := range lens {
		sort.Ints(ls)
		total := 0
		for _, l := range ls {
			total += l
		}
		acc := 0
		for _, l := range ls {
			acc += l
			if 2*acc >= total {
				median[c] = l
				break
			}
		}
	}
	long := make([]bool, len(ts.Tracks))
	for i, t := range ts.Tracks {
		if c, ok := group(t.Label); ok && (len(t.Points) >= median[c] || (capLen > 0 && len(t.Points) >= capLen)) {
			long[i] = true
		}
	}
	return long
}

// unsupportedPoints returns the indices of the points of short
// trajectories (long false, segment seg ≥ 0) with no point of a long
// trajectory of the same segment within radius r (pointBuckets). Points
// with seg < 0 (background) are never returned.
//
// Why: the points of a moving segment that sit on short trajectories are
// the segment's least reliable labels. A tracker (Sundaram et al. ECCV
// 2010) ends a trajectory at occlusions and where the flow fails its
// forward–backward check, so things that move with an object but are not
// rigid (spray, water reflections, a wake) carry many short trajectories
// and few long ones; the multicut puts them into the object's segment
// when their motion agrees over the few frames they exist; on the DAVIS
// 2016 development sequences the foreground labels of trajectories of 2–3
// points are far less often on the object than those of long
// trajectories (kite-surf, blackswan most of all). A length threshold
// alone would also remove the short trajectories of objects that move fast
// everywhere (libby's are all shorter than 16 points); requiring a long
// trajectory of the same segment nearby keeps those where the object is.
func unsupportedPoints[P any](pts []P, at func(P) (x, y, seg int, long bool), r float64) map[int]bool {
	out := map[int]bool{}
	if !(r > 0) {
		return out
	}
	var xy [][2]int
	var segOf []int
	for _, p := range pts {
		if x, y, seg, long := at(p); long && seg >= 0 {
			xy = append(xy, [2]int{x, y})
			segOf = append(segOf, seg)
		}
	}
	b := newPointBuckets(xy, r)
	for i, p := range pts {
		x, y, seg, long := at(p)
		if long || seg < 0 {
			continue
		}
		if !b.nearWhere(x, y, func(j int) bool { return segOf[j] == seg }) {
			out[i] = true
		}
	}
	return out
}

// addBorderPoints labels background (class 0) points every step pixels
// along the four borders at the given insets, where the pixel is unlabelled.
// It returns how many were added.
func addBorderPoints(labels []int16, W, H, step int, insets []int) int {
	if step <= 0 {
		return 0
	}
	n := 0
	set := func(x, y int) {
		if x >= 0 && y >= 0 && x < W && y < H && labels[y*W+x] == Unlabelled {
			labels[y*W+x] = 0
			n++
		}
	}
	for _, d := range insets {
		for x := 0; x < W; x += step {
			set(x, d)
			set(x, H-1-d)
		}
		for y := 0; y < H; y += step {
			set(d, y)
			set(W-1-d, y)
		}
	}
	return n
}

// addFarBackground labels background (class 0) the unlabelled pixels of the
// grid {(x, y): x, y ≡ ⌊step/2⌋ mod step} whose Euclidean distance to every
// foreground-labelled pixel (class ≥ 1) exceeds r, and returns how many it
// added. A frame without foreground points gets none: the segmentation has
// no object there to be far from, and labelling the whole frame background
// would contradict the frames where the object was found.
//
// These are labels in textureless regions far from any moving trajectory:
// a trajectory tracker (Sundaram et al. ECCV 2010) starts trajectories only
// where the structure tensor is strong, so sky, water and plain walls carry
// no trajectory; far from every foreground point such a
// region is background unless an object is textureless over more than r.
// Distances use a bucket grid of cell size r: a foreground point within r
// lies in one of the 3×3 cells around the pixel's cell.
func addFarBackground(labels []int16, W, H, step int, r float64, avoid [][2]int, gap float64) int {
	if step <= 0 || !(r > 0) {
		return 0
	}
	var fg [][2]int
	for i, l := range labels {
		if l >= 1 {
			fg = append(fg, [2]int{i % W, i / W})
		}
	}
	if len(fg) == 0 {
		return 0
	}
	nearFG := newPointBuckets(fg, r)
	nearAvoid := newPointBuckets(avoid, gap)
	n := 0
	for y := step / 2; y < H; y += step {
		for x := step / 2; x < W; x += step {
			if labels[y*W+x] != Unlabelled || nearFG.near(x, y) || nearAvoid.near(x, y) {
				continue
			}
			labels[y*W+x] = 0
			n++
		}
	}
	return n
}

// pointBuckets answers "is some point within r of (x, y)?" with a bucket
// grid of cell size r: such a point lies in one of the 3×3 cells around
// the query's cell. With r ≤ 0 or no points it answers no.
type pointBuckets struct {
	pts  [][2]int
	r2   float64
	cell int
	grid map[[2]int][]int // cell → indices into pts
}

func newPointBuckets(pts [][2]int, r float64) *pointBuckets {
	b := &pointBuckets{pts: pts, r2: r * r}
	if !(r > 0) || len(pts) == 0 {
		return b
	}
	b.cell = max(1, int(math.Ceil(r)))
	b.grid = map[[2]int][]int{}
	for i, p := range pts {
		k := [2]int{p[0] / b.cell, p[1] / b.cell}
		b.grid[k] = append(b.grid[k], i)
	}
	return b
}

func (b *pointBuckets) near(x, y int) bool { return b.nearWhere(x, y, nil) }

// nearWhere reports whether some point j with ok(j) (nil: any) lies within
// r of (x, y).
func (b *pointBuckets) nearWhere(x, y int, ok func(j int) bool) bool {
	if b.grid == nil {
		return false
	}
	cx, cy := x/b.cell, y/b.cell
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			for _, j := range b.grid[[2]int{cx + dx, cy + dy}] {
				q := b.pts[j]
				ddx, ddy := float64(q[0]-x), float64(q[1]-y)
				if ddx*ddx+ddy*ddy <= b.r2 && (ok == nil || ok(j)) {
					return true
				}
			}
		}
	}
	return false
}
