package trainset

import (
	"fmt"
	"math"

	"github.com/densify/densify/uncertainty"
)

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
	// SupportAlone keeps, for SupportRadius, the short trajectories' points
	// of a segment in a frame where the segment has no point of a long
	// trajectory: there nothing can support them, and dropping them erases
	// the segment from the frame (an object passing behind a tree, whose
	// trajectories all end at the occluder).
	SupportAlone bool `json:",omitempty"`
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
	// Unsteady, when > 0, also drops the foreground points of every
	// trajectory whose acceleration, less its segment's mean acceleration in
	// the same frame, has a median above Unsteady times the segment's
	// typical one (unsteadyForeground): the water that moves with an object
	// (a wake, a reflection, spray), whose ripples shake the trajectories
	// the multicut joins to it. With ColourWindow > 0 a trajectory whose
	// colours say object (colour check's Λ_i < −UnsteadyColourMargin) keeps
	// its labels: the parts of a large, fast object shake about their
	// segment's mean motion too. Dropped points are treated like
	// SupportRadius's.
	Unsteady float64 `json:",omitempty"`
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
	// PrimaryObject keeps only the primary moving object: the foreground
	// segment with most trajectory points and the segments that lie, mostly,
	// within its box grown by PrimaryMargin × its diagonal, frame by frame
	// (primaryObject); the other foreground segments are dropped like those
	// below MinSegment. For single-object benchmarks (DAVIS 2016); off for
	// data that annotate every moving object (FBMS59).
	PrimaryObject bool    `json:",omitempty"`
	PrimaryMargin float64 `json:",omitempty"`
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

// DefaultPhi is the default segment-uncertainty threshold φ
// (uncertainty.DefaultPhi): the median of μ_A over the segments of ≥ 20
// trajectories of the DAVIS 2016 development sequences, so that the more
// uncertain half of the segments is eligible and the large, confident
// background segments are left alone.
const DefaultPhi = uncertainty.DefaultPhi

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

// DefaultPrimaryMargin is the default of Options.PrimaryMargin: a quarter of
// the primary object's box diagonal on every side. On the twenty DAVIS 2016
// development sequences it drops four small segments beside the object and
// keeps the others; a tenth of the diagonal also dropped parts of the
// object (docs/results.md).
const DefaultPrimaryMargin = 0.25

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
		MinSegment: uncertainty.DefaultMinSegment, DropIsolated: true, IsolatedRadius: 16,
		BorderPoints: true, BorderStep: 10, BorderInsets: []int{5, 15}, FarBackground: DefaultFarBackground,
		BackgroundResidual: DefaultBackgroundResidual, FarGap: DefaultFarGap, SupportRadius: DefaultSupportRadius, ColourWindow: DefaultColourWindow,
		CutBackground: true, CutMargin: DefaultCutMargin, PrimaryMargin: DefaultPrimaryMargin,
		Balance: true, Phi: DefaultPhi, Factor: 1000,
	}
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
	case !(o.Unsteady >= 0 && o.Unsteady <= 1000):
		return fmt.Errorf("prepare: unsteady factor must be in [0, 1000] (0: off), got %v", o.Unsteady)
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
	case !(o.PrimaryMargin >= 0 && o.PrimaryMargin <= 10):
		return fmt.Errorf("prepare: primary-object margin must be in [0, 10] box diagonals, got %v", o.PrimaryMargin)
	}
	return nil
}

// CutsBackground reports whether Prepare adds background-cut points:
// CutBackground is set and FarBackground leaves a ring.
func (o Options) CutsBackground() bool { return o.CutBackground && o.FarBackground > 0 }

// FarRadius is r = FarBackground × the diagonal of a W×H frame in pixels:
// far-background points lie beyond r of every foreground label,
// background-cut points within it.
func (o Options) FarRadius(W, H int) float64 {
	return o.FarBackground * math.Hypot(float64(W), float64(H))
}
