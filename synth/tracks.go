package synth

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/densify/densify/eval"
	"github.com/densify/densify/trajectory"
)

// quantum is the precision of ground-truth track coordinates (1/1000 px),
// so that they survive writing with three decimals and every rounding
// convention agrees on the pixel they fall in.
const quantum = 1000

// visibleAt reports whether a point of layer li at image position (x, y) is
// visible in frame f: inside the pixel-centre hull [0,W−1]×[0,H−1], li is
// the front-most layer there, and the region map at the rounded position is
// li's region (so evaluation at rounded positions always agrees).
func (s *Sequence) visibleAt(f, li int, x, y float64) bool {
	if !(x >= 0 && y >= 0 && x <= float64(s.Width-1) && y <= float64(s.Height-1)) {
		return false
	}
	if l, _, _ := s.sc.front(f, x, y); l != li {
		return false
	}
	rx, ry, _ := eval.MoSegEvalPixel(x, y) // x, y are inside the image
	return int(s.Regions[f][ry*s.Width+rx]) == s.sc.layers[li].region
}

func quantise(x float64) float64 { return math.Round(x*quantum) / quantum }

// GroundTruthTracks returns the true trajectories of scene points, labelled
// with their region (0 = background). Points are seeded at the centres of a
// grid of spacing×spacing cells in frame 0 and, in every later frame, in each
// cell no living track occupies. A point u of layer L is followed through
// x_f = A_f(L) u and the track ends at the first frame where the point is not
// visible (occluded, also by another part of its own object, or outside the
// image). Tracks of a single frame are dropped. spacing ≤ 0 means 8.
func (s *Sequence) GroundTruthTracks(spacing int) *trajectory.TrackSet {
	if spacing <= 0 {
		spacing = 8
	}
	type live struct {
		layer int
		u, v  float64
		track int
	}
	W, H, F := s.Width, s.Height, len(s.Frames)
	cw, ch := (W+spacing-1)/spacing, (H+spacing-1)/spacing
	covered := make([]bool, cw*ch)
	var tracks []trajectory.Track
	var alive []live
	for f := 0; f < F; f++ {
		next := alive[:0]
		for _, a := range alive {
			x, y := s.sc.layers[a.layer].fwd[f].apply(a.u, a.v)
			x, y = quantise(x), quantise(y)
			if s.visibleAt(f, a.layer, x, y) {
				tracks[a.track].Points = append(tracks[a.track].Points, trajectory.Point{X: x, Y: y, Frame: f})
				next = append(next, a)
			}
		}
		alive = next
		clear(covered)
		for _, a := range alive {
			p := tracks[a.track].Points[len(tracks[a.track].Points)-1]
			px, py := p.Pixel()
			cx, cy := px/spacing, py/spacing
			covered[cy*cw+cx] = true
		}
		for cy := 0; cy < ch; cy++ {
			for cx := 0; cx < cw; cx++ {
				px, py := cx*spacing+spacing/2, cy*spacing+spacing/2
				if covered[cy*cw+cx] || px >= W || py >= H {
					continue
				}
				x, y := float64(px), float64(py)
				li, u, v := s.sc.front(f, x, y)
				if !s.visibleAt(f, li, x, y) {
					continue
				}
				alive = append(alive, live{layer: li, u: u, v: v, track: len(tracks)})
				tracks = append(tracks, trajectory.Track{
					Label:  s.sc.layers[li].region,
					Points: []trajectory.Point{{X: x, Y: y, Frame: f}},
				})
			}
		}
	}
	ts := &trajectory.TrackSet{Frames: F}
	for _, t := range tracks {
		if len(t.Points) >= 2 {
			ts.Tracks = append(ts.Tracks, t)
		}
	}
	return ts
}

// Corrupt returns a copy of ts in which round(fraction·N) of the N tracks get
// a wrong label, deterministically from seed. Half of them (as far as there
// are enough) are boundary tracks: tracks with a differently labelled track
// within 2.5 times the median nearest-neighbour distance in their middle
// frame; they take the label of the nearest such neighbour (the typical
// error of a motion segmentation at object boundaries and thin parts). The
// rest are random tracks that take a random other label present in ts, or a
// new label when ts has only one. ts is not modified.
func Corrupt(ts *trajectory.TrackSet, fraction float64, seed int64) *trajectory.TrackSet {
	out := &trajectory.TrackSet{Frames: ts.Frames, Tracks: make([]trajectory.Track, len(ts.Tracks))}
	for i, t := range ts.Tracks {
		out.Tracks[i] = trajectory.Track{Label: t.Label, Points: append([]trajectory.Point(nil), t.Points...)}
	}
	n := len(ts.Tracks)
	if !(fraction > 0) || n == 0 {
		return out
	}
	want := int(math.Round(math.Min(fraction, 1) * float64(n)))
	r := subRand(seed, 7)
	pf := newPointsByX(ts)
	radius := boundaryRadius(pf.nearestDistances(ts))
	diffDist, diffLabel := pf.nearestOtherLabel(ts, radius)
	var boundary []int
	for i := range ts.Tracks {
		if diffDist[i] <= radius {
			boundary = append(boundary, i)
		}
	}
	r.Shuffle(len(boundary), func(a, b int) { boundary[a], boundary[b] = boundary[b], boundary[a] })
	chosen := make([]bool, n)
	nb := min(len(boundary), want/2)
	for _, i := range boundary[:nb] {
		chosen[i] = true
		out.Tracks[i].Label = diffLabel[i]
	}
	relabelRandom(out, ts, r, chosen, want-nb)
	return out
}

// frameEntry is one track's point in a frame.
type frameEntry struct {
	x, y  float64
	track int
}

// pointsByX holds every frame's points sorted by x (ties by track), for
// nearest-neighbour queries in a track's middle frame among the tracks alive
// there.
type pointsByX map[int][]frameEntry

func newPointsByX(ts *trajectory.TrackSet) pointsByX {
	byFrame := pointsByX{}
	for i, t := range ts.Tracks {
		for _, p := range t.Points {
			byFrame[p.Frame] = append(byFrame[p.Frame], frameEntry{p.X, p.Y, i})
		}
	}
	for _, es := range byFrame {
		sort.Slice(es, func(a, b int) bool {
			if es[a].x != es[b].x {
				return es[a].x < es[b].x
			}
			return es[a].track < es[b].track
		})
	}
	return byFrame
}

// sweep calls visit for the entries of frame f in order of increasing |Δx|
// from x until visit returns a bound smaller than |Δx|.
func (pf pointsByX) sweep(f int, x float64, visit func(e frameEntry) (bound float64)) {
	es := pf[f]
	k := sort.Search(len(es), func(j int) bool { return es[j].x >= x })
	lo, hi := k-1, k
	bound := math.Inf(1)
	for lo >= 0 || hi < len(es) {
		var e frameEntry
		if hi >= len(es) || (lo >= 0 && x-es[lo].x <= es[hi].x-x) {
			e = es[lo]
			lo--
		} else {
			e = es[hi]
			hi++
		}
		if math.Abs(e.x-x) > bound {
			return
		}
		bound = visit(e)
	}
}

// midPoint is a track's point in its middle frame.
func midPoint(t *trajectory.Track) trajectory.Point { return t.Points[len(t.Points)/2] }

// nearestDistances gives every track the distance from its middle point to
// the nearest other track's point in that frame (+Inf for none or an empty
// track).
func (pf pointsByX) nearestDistances(ts *trajectory.TrackSet) []float64 {
	nnDist := make([]float64, len(ts.Tracks))
	for i := range ts.Tracks {
		nnDist[i] = math.Inf(1)
		if len(ts.Tracks[i].Points) == 0 {
			continue
		}
		pm := midPoint(&ts.Tracks[i])
		pf.sweep(pm.Frame, pm.X, func(e frameEntry) float64 {
			if e.track != i {
				nnDist[i] = math.Min(nnDist[i], math.Hypot(e.x-pm.X, e.y-pm.Y))
			}
			return nnDist[i]
		})
	}
	return nnDist
}

// boundaryRadius is 2.5 times the median of the finite nearest-neighbour
// distances (+Inf when there are none).
func boundaryRadius(nnDist []float64) float64 {
	var finite []float64
	for _, d := range nnDist {
		if !math.IsInf(d, 1) {
			finite = append(finite, d)
		}
	}
	if len(finite) == 0 {
		return math.Inf(1)
	}
	sort.Float64s(finite)
	return 2.5 * finite[len(finite)/2]
}

// nearestOtherLabel gives every track the distance from its middle point to
// the nearest point of a differently labelled track within radius in that
// frame, and that track's label (+Inf and 0 for none).
func (pf pointsByX) nearestOtherLabel(ts *trajectory.TrackSet, radius float64) (dist []float64, label []int) {
	n := len(ts.Tracks)
	dist, label = make([]float64, n), make([]int, n)
	for i := range ts.Tracks {
		dist[i] = math.Inf(1)
		if len(ts.Tracks[i].Points) == 0 {
			continue
		}
		pm, own := midPoint(&ts.Tracks[i]), ts.Tracks[i].Label
		pf.sweep(pm.Frame, pm.X, func(e frameEntry) float64 {
			if l := ts.Tracks[e.track].Label; l != own {
				if d := math.Hypot(e.x-pm.X, e.y-pm.Y); d <= radius && d < dist[i] {
					dist[i], label[i] = d, l
				}
			}
			return math.Min(radius, dist[i])
		})
	}
	return dist, label
}

// relabelRandom gives `left` random tracks not chosen yet (in the order of
// r.Perm) a random other label present in ts, or label + 1 when ts has one
// label only.
func relabelRandom(out, ts *trajectory.TrackSet, r *rand.Rand, chosen []bool, left int) {
	labelSet := map[int]bool{}
	for _, t := range ts.Tracks {
		labelSet[t.Label] = true
	}
	labels := make([]int, 0, len(labelSet))
	for l := range labelSet {
		labels = append(labels, l)
	}
	sort.Ints(labels)
	for _, i := range r.Perm(len(ts.Tracks)) {
		if left == 0 {
			break
		}
		if chosen[i] {
			continue
		}
		chosen[i] = true
		left--
		old := ts.Tracks[i].Label
		if len(labels) == 1 {
			out.Tracks[i].Label = old + 1
			continue
		}
		idx := sort.SearchInts(labels, old) // labels is sorted; pick any other
		k := r.IntN(len(labels) - 1)
		if k >= idx {
			k++
		}
		out.Tracks[i].Label = labels[k]
	}
}
