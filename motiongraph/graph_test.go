package motiongraph

import (
	"cmp"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// randomTracks makes n tracks of random length inside a w×h image over nf
// frames, moving with one of two velocities.
func randomTracks(seed uint64, n, nf int, w, h float64) *trajectory.TrackSet {
	rng := rand.New(rand.NewPCG(seed, 7))
	ts := &trajectory.TrackSet{Frames: nf}
	for range n {
		s := rng.IntN(nf)
		e := s + rng.IntN(nf-s)
		x, y := rng.Float64()*w, rng.Float64()*h
		vx := 0.0
		if x > w/2 {
			vx = 1.5
		}
		var tr trajectory.Track
		for f := s; f <= e; f++ {
			tr.Points = append(tr.Points, trajectory.Point{X: x + vx*float64(f-s) + 0.1*rng.NormFloat64(), Y: y, Frame: f})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	return ts
}

// bruteForceE applies the documented neighbour rule by brute force.
func bruteForceE(ts *trajectory.TrackSet, p GraphParams) map[uint64]bool {
	want := map[uint64]bool{}
	for f := 0; f < ts.Frames; f++ {
		type pt struct {
			id   int
			x, y float64
		}
		var al []pt
		for i := range ts.Tracks {
			if q, ok := ts.Tracks[i].At(f); ok {
				al = append(al, pt{i, q.X, q.Y})
			}
		}
		for _, a := range al {
			var nb []neighbour
			for _, b := range al {
				if a.id == b.id {
					continue
				}
				d2 := (a.x-b.x)*(a.x-b.x) + (a.y-b.y)*(a.y-b.y)
				if d2 <= p.Radius*p.Radius {
					nb = append(nb, neighbour{d2, int32(b.id)})
				}
			}
			// sort by (d2, id)
			for i := 1; i < len(nb); i++ {
				for j := i; j > 0 && (nb[j-1].d2 > nb[j].d2 || (nb[j-1].d2 == nb[j].d2 && nb[j-1].id > nb[j].id)); j-- {
					nb[j], nb[j-1] = nb[j-1], nb[j]
				}
			}
			for j := 0; j < len(nb) && j < p.K; j++ {
				b := int(nb[j].id)
				if overlap(&ts.Tracks[a.id], &ts.Tracks[b]) >= p.MinOverlap {
					want[pairKey(int32(a.id), int32(b))] = true
				}
			}
		}
	}
	return want
}

func TestGraphNeighbourRule(t *testing.T) {
	ts := randomTracks(1, 400, 12, 200, 150)
	p := DefaultGraphParams()
	p.K, p.Radius, p.MinOverlap = 5, 25, 2
	p.LongRangePerNode = 0
	p.Lifted, p.LiftedRadius, p.LiftedPerNode = true, 60, 4
	g, st, err := BuildGraph(ts, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := bruteForceE(ts, p)
	seen := map[uint64]bool{}
	perNode := map[int]int{}
	for _, e := range g.Edges {
		if e.U == e.V {
			t.Fatalf("self loop %v", e)
		}
		if e.U > e.V {
			t.Fatalf("edge not normalised u<v: %v", e)
		}
		k := pairKey(int32(e.U), int32(e.V))
		if seen[k] {
			t.Fatalf("duplicate edge %v", e)
		}
		seen[k] = true
		if math.IsNaN(e.Cost) || math.IsInf(e.Cost, 0) {
			t.Fatalf("bad cost %v", e)
		}
		if e.Lifted {
			if want[k] {
				t.Fatalf("lifted edge %v is also in E", e)
			}
			if overlap(&ts.Tracks[e.U], &ts.Tracks[e.V]) < p.MinOverlap {
				t.Fatalf("lifted edge below min overlap")
			}
			perNode[e.U]++
			continue
		}
		if !want[k] {
			t.Fatalf("edge %v does not follow the neighbour rule", e)
		}
	}
	if st.Edges != len(want) {
		t.Fatalf("%d E edges, brute force %d", st.Edges, len(want))
	}
	if st.LiftedEdges == 0 {
		t.Fatal("no lifted edges")
	}
	// lifted: each node draws ≤ LiftedPerNode (a pair may be drawn from either end)
	if st.LiftedEdges > p.LiftedPerNode*len(ts.Tracks) {
		t.Fatalf("too many lifted edges %d", st.LiftedEdges)
	}
	// deterministic
	g2, _, _ := BuildGraph(ts, nil, p, nil)
	for i := range g.Edges {
		if g.Edges[i] != g2.Edges[i] {
			t.Fatal("graph not deterministic")
		}
	}
}

func TestPairFeaturesHandComputed(t *testing.T) {
	// A moves 1 px/frame to the right, B is static 10 px to the right of A's start.
	ts := &trajectory.TrackSet{Frames: 3, Tracks: []trajectory.Track{
		{Points: []trajectory.Point{{X: 0, Y: 0, Frame: 0}, {X: 1, Y: 0, Frame: 1}, {X: 2, Y: 0, Frame: 2}}},
		{Points: []trajectory.Point{{X: 10, Y: 0, Frame: 0}, {X: 10, Y: 0, Frame: 1}, {X: 10, Y: 0, Frame: 2}}},
	}}
	p := DefaultGraphParams()
	cam, err := EstimateCamera(ts, DefaultFeatureParams())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ComputePairs(ts, nil, cam, p, DefaultFeatureParams())
	if err != nil {
		t.Fatal(err)
	}
	if ps.Len() != 1 {
		t.Fatalf("%d pairs", ps.Len())
	}
	f := ps.Features(0)
	// local variation: displacements (1,0) and (0,0) → variance 0.25;
	// σ² = 0.5² + 0.25 = 0.5; ||∂A−∂B||² = 1 → 2; mean motion difference 1;
	// relative |∂A−∂B|/(1 + |∂A| + |∂B|) = 1/(1 + 1 + 0).
	want := []float64{math.Log(3), math.Log(2), math.Log(10), 0, math.Log(3), math.Log(2), 0.5}
	for j := range want {
		if math.Abs(f[j]-want[j]) > 1e-6 {
			t.Fatalf("feature %s = %v, want %v", FeatureNames[j], f[j], want[j])
		}
	}
	// with frames: A is on red pixels, B on blue → colour distance √2
	frames := make([]image.Image, 3)
	for i := range frames {
		im := image.NewRGBA(image.Rect(0, 0, 16, 4))
		for y := 0; y < 4; y++ {
			for x := 0; x < 16; x++ {
				c := color.RGBA{255, 0, 0, 255}
				if x >= 8 {
					c = color.RGBA{0, 0, 255, 255}
				}
				im.Set(x, y, c)
			}
		}
		frames[i] = im
	}
	ps, err = ComputePairs(ts, frames, cam, p, DefaultFeatureParams())
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.Features(0)[3]; math.Abs(got-math.Sqrt2) > 1e-6 {
		t.Fatalf("colour distance %v, want √2", got)
	}
}

func TestGraphBadInput(t *testing.T) {
	p := DefaultGraphParams()
	for name, ts := range map[string]*trajectory.TrackSet{
		"empty track":    {Frames: 2, Tracks: []trajectory.Track{{}}},
		"nan":            {Frames: 2, Tracks: []trajectory.Track{{Points: []trajectory.Point{{X: math.NaN(), Y: 0, Frame: 0}}}}},
		"gap":            {Frames: 5, Tracks: []trajectory.Track{{Points: []trajectory.Point{{X: 0, Y: 0, Frame: 0}, {X: 0, Y: 0, Frame: 2}}}}},
		"frame too high": {Frames: 2, Tracks: []trajectory.Track{{Points: []trajectory.Point{{X: 0, Y: 0, Frame: 2}}}}},
	} {
		if _, _, err := BuildGraph(ts, nil, p, nil); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	ts := randomTracks(2, 10, 4, 50, 50)
	bad := p
	bad.Beta = 1
	if _, _, err := BuildGraph(ts, nil, bad, nil); err == nil {
		t.Error("beta 1 accepted")
	}
	if _, _, err := BuildGraph(ts, make([]image.Image, 2), p, nil); err == nil {
		t.Error("too few frames accepted")
	}
}

func TestTrackRegionsAndLabels(t *testing.T) {
	// 4×1 label image: x<2 region 0, x≥2 region 1; frame 1 labelled only.
	lf := dataset.LabelledFrame{Frame: 1, Width: 4, Height: 1, Region: []int{0, 0, 1, -1}}
	ts := &trajectory.TrackSet{Frames: 3, Tracks: []trajectory.Track{
		{Points: []trajectory.Point{{X: 0.2, Y: 0, Frame: 0}, {X: 0.4, Y: 0, Frame: 1}}}, // region 0
		{Points: []trajectory.Point{{X: 2, Y: 0, Frame: 1}, {X: 2, Y: 0, Frame: 2}}},     // region 1
		{Points: []trajectory.Point{{X: 3, Y: 0, Frame: 1}}},                             // unknown colour → −1
		{Points: []trajectory.Point{{X: 1, Y: 0, Frame: 2}}},                             // not alive in frame 1 → −1
		{Points: []trajectory.Point{{X: 1.4, Y: 0.4, Frame: 1}}},                         // rounds to (1,0) → region 0
	}}
	got := dataset.TrackRegions(ts, []dataset.LabelledFrame{lf})
	want := []int{0, 1, -1, -1, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("regions %v, want %v", got, want)
		}
	}
	ps := &PairSet{U: []int32{0, 0, 1, 0}, V: []int32{1, 4, 2, 3}, Lifted: []bool{false, false, false, true}, Feat: make([]float64, 4*NumFeatures)}
	s := LabelPairs(ps, got, "x", true)
	if len(s) != 2 || !s[0].Cut || s[1].Cut {
		t.Fatalf("samples %+v", s)
	}
}

func BenchmarkBuildGraph15k(b *testing.B) {
	ts := randomTracks(5, 15000, 50, 854, 480)
	p := DefaultGraphParams()
	var st *GraphStats
	b.ResetTimer()
	for range b.N {
		var err error
		_, st, err = BuildGraph(ts, nil, p, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Edges), "edges")
	b.ReportMetric(float64(st.Edges)/b.Elapsed().Seconds()*float64(b.N), "edges/s")
}

// Long-range edges are regular edges (they count for connectivity) between
// trajectories alive together within LongRangeRadius at the drawing
// trajectory's middle frame, at most LongRangePerNode drawn per trajectory,
// never duplicating a nearest-neighbour edge; lifted edges avoid them.
func TestGraphLongRangeEdges(t *testing.T) {
	ts := randomTracks(2, 300, 10, 300, 200)
	p := DefaultGraphParams()
	p.K, p.Radius, p.MinOverlap = 4, 20, 2
	p.LongRangePerNode, p.LongRangeRadius = 3, 90
	p.Lifted, p.LiftedRadius, p.LiftedPerNode = true, 120, 3
	g, _, err := BuildGraph(ts, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	near := bruteForceE(ts, p)
	regular := map[uint64]bool{}
	far := 0
	touch := map[int]int{}
	for _, e := range g.Edges {
		k := pairKey(int32(e.U), int32(e.V))
		if e.Lifted {
			if near[k] || regular[k] {
				t.Fatalf("lifted edge %v duplicates a regular edge", e)
			}
			continue
		}
		regular[k] = true
		if near[k] {
			continue
		}
		far++
		touch[e.U]++
		touch[e.V]++
		if overlap(&ts.Tracks[e.U], &ts.Tracks[e.V]) < p.MinOverlap {
			t.Fatalf("long-range edge %v below min overlap", e)
		}
		// within the radius at the middle frame of one of its ends
		ok := false
		for _, ab := range [2][2]int{{e.U, e.V}, {e.V, e.U}} {
			a, b := &ts.Tracks[ab[0]], &ts.Tracks[ab[1]]
			mid := (a.Start() + a.End()) / 2
			qa, _ := a.At(mid)
			if qb, alive := b.At(mid); alive && math.Hypot(qa.X-qb.X, qa.Y-qb.Y) <= p.LongRangeRadius {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("long-range edge %v beyond the radius", e)
		}
	}
	if far == 0 {
		t.Fatal("no long-range edges")
	}
	if far > p.LongRangePerNode*len(ts.Tracks) {
		t.Fatalf("%d long-range edges, at most %d drawn", far, p.LongRangePerNode*len(ts.Tracks))
	}
	// every E edge of the nearest-neighbour rule is still there
	for k := range near {
		if !regular[k] {
			t.Fatalf("nearest-neighbour pair %d lost", k)
		}
	}
}

// randomPairs against its definition, computed plainly: per trajectory A
// the tracks alive at A's middle frame within the radius, in id order,
// without A's pairs in eKeys and those sharing fewer than MinOverlap frames,
// shuffled by A's seeded generator, the first perNode kept. The bitmap and
// adjacency lists must give exactly these pairs, for track counts around
// the 64-bit word size and with two workers sharing the bitmaps' pool.
func TestRandomPairsDefinition(t *testing.T) {
	for _, c := range []struct {
		n, frames int
		radius    float64
		perNode   int
	}{{1, 3, 50, 2}, {63, 6, 80, 3}, {64, 6, 80, 3}, {65, 6, 500, 5}, {700, 12, 90, 4}, {1500, 20, 60, 16}} {
		ts := randomTracks(uint64(c.n), c.n, c.frames, 300, 200)
		p := DefaultGraphParams()
		p.MinOverlap, p.Workers = 3, 2
		// eKeys: a random third of all pairs
		rng := rand.New(rand.NewPCG(uint64(c.n), 3))
		var eKeys []uint64
		for a := range ts.Tracks {
			for b := a + 1; b < len(ts.Tracks); b++ {
				if rng.IntN(3) == 0 {
					eKeys = append(eKeys, pairKey(int32(a), int32(b)))
				}
			}
		}
		slices.Sort(eKeys)
		inE := map[uint64]bool{}
		for _, k := range eKeys {
			inE[k] = true
		}
		idx := make([]*frameIndex, c.frames)
		for f := range c.frames {
			var ids []int32
			var xs, ys []float64
			for i := range ts.Tracks {
				if q, ok := ts.Tracks[i].At(f); ok {
					ids, xs, ys = append(ids, int32(i)), append(xs, q.X), append(ys, q.Y)
				}
			}
			idx[f] = newFrameIndex(ids, xs, ys, 40)
		}
		var want []uint64
		for a := range ts.Tracks {
			A := &ts.Tracks[a]
			mid := (A.Start() + A.End()) / 2
			qa, _ := A.At(mid)
			var cand []int32
			for b := range ts.Tracks {
				B := &ts.Tracks[b]
				qb, alive := B.At(mid)
				dx, dy := qb.X-qa.X, qb.Y-qa.Y
				if b == a || !alive || dx*dx+dy*dy > c.radius*c.radius || inE[pairKey(int32(a), int32(b))] ||
					min(A.End(), B.End())-max(A.Start(), B.Start())+1 < p.MinOverlap {
					continue
				}
				cand = append(cand, int32(b))
			}
			r := rand.New(rand.NewPCG(9, uint64(a)))
			r.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
			for _, b := range cand[:min(len(cand), c.perNode)] {
				want = append(want, pairKey(int32(a), b))
			}
		}
		slices.Sort(want)
		want = slices.Compact(want)
		got := randomPairs(ts, idx, eKeys, c.radius, c.perNode, 9, p)
		if !slices.Equal(got, want) {
			t.Errorf("%d tracks: %d pairs, want %d by the definition", c.n, len(got), len(want))
		}
		if c.n >= 700 && len(want) < c.n {
			t.Errorf("%d tracks: only %d pairs: the case tests little", c.n, len(want))
		}
	}
}

// A tiny cell over points spread across ±MaxCoordinate: the grid stays
// within maxGridCells, and the nearest neighbours are still exact.
func TestFrameIndexBoundedGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var ids []int32
	var xs, ys []float64
	for i := range 300 {
		ids = append(ids, int32(i))
		xs = append(xs, rng.Float64()*2e3)
		ys = append(ys, rng.Float64()*2e3)
	}
	ids, xs, ys = append(ids, 300, 301), append(xs, -trajectory.MaxCoordinate, trajectory.MaxCoordinate), append(ys, trajectory.MaxCoordinate, -trajectory.MaxCoordinate)
	fi := newFrameIndex(ids, xs, ys, 1e-3)
	if cells := float64(fi.nx) * float64(fi.ny); cells > maxGridCells(len(ids)) {
		t.Fatalf("%dx%d cells", fi.nx, fi.ny)
	}
	for k := range 20 {
		got := fi.knn(xs[k], ys[k], 500, 5, ids[k], nil)
		var want []neighbour
		for j := range ids {
			if dx, dy := xs[j]-xs[k], ys[j]-ys[k]; j != k && dx*dx+dy*dy <= 500*500 {
				want = append(want, neighbour{dx*dx + dy*dy, ids[j]})
			}
		}
		slices.SortFunc(want, func(a, b neighbour) int {
			if a.d2 != b.d2 {
				return cmp.Compare(a.d2, b.d2)
			}
			return cmp.Compare(a.id, b.id)
		})
		if !slices.Equal(got, want[:min(5, len(want))]) {
			t.Fatalf("point %d: %v, want %v", k, got, want[:min(5, len(want))])
		}
	}
}
