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
