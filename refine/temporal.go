package refine

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
	"slices"

	"github.com/densify/densify/internal/parallel"
	"github.com/densify/densify/trajectory"
)

// Temporal fusion of the network's probability maps along optical flow.
//
// The U-Net sees one frame at a time, so its foreground probability P_t
// flickers from frame to frame where the evidence is weak (the halo around an
// object, small spurious blobs, thin parts). The object moves with the flow,
// so the maps of the neighbouring frames, carried along the flow, are further
// evidence for every pixel. With F_{t→s} the dense flow from frame t to frame
// s and F_{s→t} the flow back, frame t's fused map is the weighted mean
//
//	P̃_t(x) = [P_t(x) + Σ_{0<|k|≤K} w_k m_{t,k}(x) P_{t+k}(x + F_{t→t+k}(x))]
//	         / [1 + Σ_{0<|k|≤K} w_k m_{t,k}(x)],      w_k = 1/(1 + |k|),
//
// over the frames t+k that exist, with P_{t+k} sampled bilinearly. The mask
// m_{t,k}(x) ∈ {0, 1} keeps only correspondences that pass the forward–
// backward consistency test of Sundaram, Brox & Keutzer (ECCV 2010, Sec. 3.1),
// the tracker's test (package trajectory):
//
//	|w + ŵ|² ≤ Rel·(|w|² + |ŵ|²) + Abs,   w = F_{t→s}(x),  ŵ = F_{s→t}(x + w),
//
// so occluded and disoccluded pixels, whose flow points at something else,
// keep their own frame's evidence. The weights halve the say of a neighbour
// one frame away and shrink with the distance, since flow over several frames
// is less reliable. The fused map is thresholded at ½ as the network's map is.
//
// K = 2 is the default: on the ten DAVIS 2016 dev sequences it gives the
// mean J of K = 4 with half the flows: four per frame, of which a
// StoredFlow reads the two between neighbours from the tracker's
// FlowStore (BenchmarkTemporal in package video times them).

// Flow computes the dense optical flow from image a to image b (of one size):
// the displacement of every pixel of a. Optical flow needs OpenCV, so the
// caller hands one in (cmd/densify passes video's DIS flow). Temporal calls
// it from several goroutines at once.
type Flow interface {
	Flow(a, b image.Image) (*trajectory.FlowField, error)
}

// SequenceFlow is a Flow that may know the flow between two frames from
// their positions i and j in the sequence (StoredFlow: the tracker's
// fields); Temporal asks it with the positions as well as the frames.
type SequenceFlow interface {
	Flow
	FlowBetween(i, j int, a, b image.Image) (*trajectory.FlowField, error)
}

// StoredFlow is a SequenceFlow that reads the fields its Store holds (the
// tracker keeps F_{t→t+1} and F_{t+1→t} of every consecutive pair,
// computed by the same flow from the same frames) and computes the others
// with Compute: fusion with K = 2 then computes half of its fields. With
// Keep it also writes every field it computes into the store, so that the
// next fusion of the same frames by the same flow computes none.
type StoredFlow struct {
	Store   *trajectory.FlowStore // nil: every field is computed
	Compute Flow
	Keep    bool
}

// Flow computes the flow from a to b with Compute.
func (s StoredFlow) Flow(a, b image.Image) (*trajectory.FlowField, error) {
	return s.Compute.Flow(a, b)
}

// FlowBetween reads F_{i→j} from the store, or computes it when the store
// does not hold it (and, with Keep, stores it); an unreadable stored field
// is an error naming its file.
func (s StoredFlow) FlowBetween(i, j int, a, b image.Image) (*trajectory.FlowField, error) {
	if s.Store != nil {
		f, err := s.Store.Get(i, j)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	f, err := s.Compute.Flow(a, b)
	if err != nil || !s.Keep || s.Store == nil {
		return f, err
	}
	if err := s.Store.Put(i, j, f); err != nil {
		return nil, err
	}
	return f, nil
}

// DefaultTemporalRadius is the default radius K of the temporal fusion (see
// the package comment).
const DefaultTemporalRadius = 2

// MaxTemporalRadius bounds K: every frame needs 2K flows.
const MaxTemporalRadius = 16

// TemporalOptions control the temporal fusion.
type TemporalOptions struct {
	// Radius K: the frames t−K … t+K are fused (0 = no fusion).
	Radius int
	// Rel and Abs are the thresholds of the forward–backward test
	// (trajectory.DefaultTrackerOptions' ConsistencyRel and ConsistencyAbs).
	Rel, Abs float64
	// Compose computes the flows between frames more than one apart by
	// chaining the flows between neighbours (ComposeFlows) instead of asking
	// the Flow: with K = 2 two of a frame's four flows then cost a bilinear
	// lookup instead of an optical flow, and with a StoredFlow none is
	// computed at all.
	Compose bool
}

// DefaultTemporalOptions returns the default fusion: K = DefaultTemporalRadius
// and the tracker's consistency thresholds.
func DefaultTemporalOptions() TemporalOptions {
	t := trajectory.DefaultTrackerOptions()
	return TemporalOptions{Radius: DefaultTemporalRadius, Rel: t.ConsistencyRel, Abs: t.ConsistencyAbs}
}

// Validate checks the ranges: 0 ≤ Radius ≤ MaxTemporalRadius, Rel and Abs ≥ 0.
func (o TemporalOptions) Validate() error {
	switch {
	case o.Radius < 0 || o.Radius > MaxTemporalRadius:
		return fmt.Errorf("refine: temporal radius must be in [0, %d] frames, got %d", MaxTemporalRadius, o.Radius)
	case !(o.Rel >= 0) || !(o.Abs >= 0):
		return fmt.Errorf("refine: consistency thresholds must be ≥ 0, got rel %v abs %v", o.Rel, o.Abs)
	}
	return nil
}

// Fused is one frame's fused probability map.
type Fused struct {
	Index int         // position of the frame in the order of Push
	Image image.Image // the frame, as pushed
	Prob  []float32   // P̃_t, W·H row-major
}

// Temporal fuses a stream of probability maps (see the package's temporal
// fusion). Frames are pushed in order; a frame's fused map is returned once
// its K successors have been pushed (or at Flush). It holds at most 2K+1
// frames and K(K+1) flows, whatever the length of the sequence.
type Temporal struct {
	o      TemporalOptions
	flow   Flow
	win    []Fused // the window: frames next−…, oldest first
	pushed int     // frames pushed so far
	next   int     // index of the next frame to emit
	w, h   int
	flows  map[[2]int]*trajectory.FlowField // F_{a→b} for frames in the window
}

// NewTemporal returns a fusion with options o and flow f.
func NewTemporal(o TemporalOptions, f Flow) (*Temporal, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if f == nil && o.Radius > 0 {
		return nil, fmt.Errorf("refine: temporal fusion needs an optical flow")
	}
	return &Temporal{o: o, flow: f, flows: map[[2]int]*trajectory.FlowField{}}, nil
}

// Push adds the next frame and its probability map (W·H, row-major, the
// frame's size) and returns the frames whose fusion is complete, in order.
func (t *Temporal) Push(img image.Image, prob []float32) ([]Fused, error) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	if len(prob) != W*H {
		return nil, fmt.Errorf("refine: probability map has %d values for a %dx%d frame", len(prob), W, H)
	}
	if t.pushed == 0 {
		t.w, t.h = W, H
	} else if W != t.w || H != t.h {
		return nil, fmt.Errorf("refine: frame %d is %dx%d, the sequence's frames are %dx%d", t.pushed, W, H, t.w, t.h)
	}
	t.win = append(t.win, Fused{Index: t.pushed, Image: img, Prob: prob})
	t.pushed++
	var out []Fused
	for t.next+t.o.Radius < t.pushed {
		f, err := t.emit()
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Flush returns the fused maps of the frames still waiting for successors
// (the last K), at the end of the sequence.
func (t *Temporal) Flush() ([]Fused, error) {
	var out []Fused
	for t.next < t.pushed {
		f, err := t.emit()
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// frame returns the window entry of frame i (which must be in the window).
func (t *Temporal) frame(i int) *Fused { return &t.win[i-t.win[0].Index] }

// flowWorkers is how many flows of a frame are computed at once: the flow
// itself runs on several threads, but not on all cores all the time.
const flowWorkers = 2

// computeFlows computes the flows of pairs that are not yet in t.flows,
// flowWorkers at a time, and adds them: F_{a→b} is computed once while
// both frames are in the window.
func (t *Temporal) computeFlows(pairs [][2]int) error {
	var todo [][2]int
	for _, p := range pairs {
		if _, ok := t.flows[p]; !ok && !slices.Contains(todo, p) {
			todo = append(todo, p)
		}
	}
	got := make([]*trajectory.FlowField, len(todo))
	errs := make([]error, len(todo))
	parallel.For(len(todo), flowWorkers, func(k int) error {
		got[k], errs[k] = t.computeFlow(todo[k][0], todo[k][1])
		return errs[k]
	})
	for k, p := range todo {
		if errs[k] != nil {
			return errs[k]
		}
		t.flows[p] = got[k]
	}
	return nil
}

// composeFlows adds, with Compose, the flows of pairs more than one frame
// apart by chaining the flows between neighbours, which it computes first
// (computeFlows).
func (t *Temporal) composeFlows(pairs [][2]int) error {
	var near, far [][2]int
	for _, p := range pairs {
		if _, ok := t.flows[p]; ok && abs(p[1]-p[0]) > 1 {
			continue
		}
		steps := neighbourSteps(p)
		if len(steps) > 1 {
			far = append(far, p)
		}
		near = append(near, steps...)
	}
	if err := t.computeFlows(near); err != nil {
		return err
	}
	for _, p := range far {
		steps := neighbourSteps(p)
		f := t.flows[steps[0]]
		for _, q := range steps[1:] {
			f = ComposeFlows(f, t.flows[q])
		}
		t.flows[p] = f
	}
	return nil
}

// neighbourSteps are the pairs of neighbouring frames from p[0] to p[1], in
// order: (a, a±1), (a±1, a±2), …
func neighbourSteps(p [2]int) [][2]int {
	step := 1
	if p[1] < p[0] {
		step = -1
	}
	var out [][2]int
	for a := p[0]; a != p[1]; a += step {
		out = append(out, [2]int{a, a + step})
	}
	return out
}

// ComposeFlows chains F_{a→b} and F_{b→c} into F_{a→c}:
//
//	F_{a→c}(x) = F_{a→b}(x) + F_{b→c}(x + F_{a→b}(x)),
//
// F_{b→c} sampled bilinearly. Where x + F_{a→b}(x) leaves the frame the
// chain is broken: the composed displacement is set far outside the frame,
// so that the fusion's lookups there fail and the pixel keeps its own
// evidence, as one whose flow fails the consistency test does.
func ComposeFlows(ab, bc *trajectory.FlowField) *trajectory.FlowField {
	W, H := ab.W, ab.H
	out := trajectory.NewFlowField(W, H)
	off := float32(4 * (W + H))
	for y := range H {
		for x := range W {
			j := y*W + x
			u, v := ab.U[j], ab.V[j]
			u2, v2, ok := bc.At(float64(x)+float64(u), float64(y)+float64(v))
			if !ok {
				out.U[j], out.V[j] = off, off
				continue
			}
			out.U[j], out.V[j] = u+float32(u2), v+float32(v2)
		}
	}
	return out
}

// computeFlow computes F_{a→b} (by position when the flow is a
// SequenceFlow) and checks its size.
func (t *Temporal) computeFlow(a, b int) (*trajectory.FlowField, error) {
	var f *trajectory.FlowField
	var err error
	if sf, ok := t.flow.(SequenceFlow); ok {
		f, err = sf.FlowBetween(a, b, t.frame(a).Image, t.frame(b).Image)
	} else {
		f, err = t.flow.Flow(t.frame(a).Image, t.frame(b).Image)
	}
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil || f.W != t.w || f.H != t.h {
		return nil, fmt.Errorf("refine: flow from frame %d to %d does not match the %dx%d frames", a, b, t.w, t.h)
	}
	return f, nil
}

// emit fuses frame next, then drops what no later frame needs.
func (t *Temporal) emit() (Fused, error) {
	c := t.next
	cur := *t.frame(c)
	if t.o.Radius > 0 {
		W, H := t.w, t.h
		num := make([]float64, W*H)
		den := make([]float64, W*H)
		for j, p := range cur.Prob {
			num[j], den[j] = float64(p), 1
		}
		lo, hi := max(c-t.o.Radius, 0), min(c+t.o.Radius, t.pushed-1)
		var pairs [][2]int
		for s := lo; s <= hi; s++ {
			if s != c {
				pairs = append(pairs, [2]int{c, s}, [2]int{s, c})
			}
		}
		if t.o.Compose {
			if err := t.composeFlows(pairs); err != nil {
				return Fused{}, err
			}
		} else if err := t.computeFlows(pairs); err != nil {
			return Fused{}, err
		}
		for s := lo; s <= hi; s++ {
			if s == c {
				continue
			}
			fw, bw := t.flows[[2]int{c, s}], t.flows[[2]int{s, c}]
			wk := 1 / (1 + float64(abs(s-c)))
			ps := t.frame(s).Prob
			for y := range H {
				for x := range W {
					j := y*W + x
					u, v := float64(fw.U[j]), float64(fw.V[j])
					xs, ys := float64(x)+u, float64(y)+v
					ub, vb, ok := bw.At(xs, ys)
					if !ok {
						continue
					}
					dx, dy := u+ub, v+vb
					if dx*dx+dy*dy > t.o.Rel*(u*u+v*v+ub*ub+vb*vb)+t.o.Abs {
						continue
					}
					p, _ := trajectory.SampleBilinear(ps, W, H, xs, ys)
					num[j] += wk * p
					den[j] += wk
				}
			}
		}
		fused := make([]float32, W*H)
		for j := range fused {
			fused[j] = float32(num[j] / den[j])
		}
		cur.Prob = fused
	}
	t.next++
	// Later frames use only flows to or from themselves, and frames before
	// next−K not at all.
	for k := range t.flows {
		if k[0] < t.next && k[1] < t.next {
			delete(t.flows, k)
		}
	}
	for len(t.win) > 0 && t.win[0].Index < t.next-t.o.Radius {
		t.win[0] = Fused{}
		t.win = t.win[1:]
	}
	return cur, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
