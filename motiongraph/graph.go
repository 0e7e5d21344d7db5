package motiongraph

import (
	"fmt"
	"image"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/internal/parallel"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// GraphParams control which trajectory pairs become edges of the motion
// graph and how their costs are computed.
//
// Neighbour rule (edges E, Keuper, Andres, Brox ICCV'15 style): in every
// frame t, each alive trajectory point is connected to its K nearest alive
// points within Radius pixels (Euclidean, found with a uniform grid of cell
// size Radius); E is the union of these pairs over all frames, kept when the
// two trajectories share at least MinOverlap frames. The relation is made
// symmetric (a pair is an edge when either end is among the other's K
// nearest in some frame); no self loops, no duplicates.
//
// Lifted edges F (when Lifted): for every trajectory A, at its middle frame,
// the alive trajectories within LiftedRadius that are not E-neighbours of A
// and share ≥ MinOverlap frames with it; up to LiftedPerNode of them are
// drawn uniformly at random (seeded by Seed and A's index). Their costs come
// from the same model.
type GraphParams struct {
	K          int
	Radius     float64
	MinOverlap int
	// LongRangePerNode / LongRangeRadius: long-range edges, part of E (they
	// count for connectivity): for every trajectory A, at its middle frame,
	// up to LongRangePerNode alive trajectories within LongRangeRadius that
	// are not among its K nearest neighbours and share ≥ MinOverlap frames
	// are drawn uniformly at random (seeded by Seed+1 and A's index).
	// Keuper, Andres & Brox (ICCV'15) connect trajectories over a large
	// spatial range so that an object whose boundary pairs are ambiguous
	// (optical flow is smooth across motion boundaries) is still cut from
	// the background by the clear motion difference of its interior to
	// distant background points; their costs come from the same model,
	// whose spatial-distance and camera-residual features cover both
	// regimes. 0 = off.
	LongRangePerNode int
	LongRangeRadius  float64
	Lifted           bool
	LiftedRadius     float64
	LiftedPerNode    int
	Seed             uint64
	Beta             float64 // prior cut probability β of BuildGraph's costs, in (0,1)
	Workers          int     // goroutines for the feature computation (0 = GOMAXPROCS)
}

// DefaultGraphParams returns the defaults used by `densify segment`.
func DefaultGraphParams() GraphParams {
	return GraphParams{K: 12, Radius: 40, MinOverlap: 2, LongRangePerNode: 16, LongRangeRadius: 250,
		LiftedRadius: 120, LiftedPerNode: 8, Seed: 1, Beta: 0.5}
}

func (p *GraphParams) validate() error {
	if p.K < 1 {
		return fmt.Errorf("graph: K must be ≥ 1, got %d", p.K)
	}
	if !(p.Radius > 0) || math.IsInf(p.Radius, 0) {
		return fmt.Errorf("graph: radius must be > 0, got %v", p.Radius)
	}
	if p.MinOverlap < 1 {
		return fmt.Errorf("graph: min overlap must be ≥ 1, got %d", p.MinOverlap)
	}
	if p.LongRangePerNode < 0 || (p.LongRangePerNode > 0 && (!(p.LongRangeRadius > 0) || math.IsInf(p.LongRangeRadius, 0))) {
		return fmt.Errorf("graph: long-range edges per node must be ≥ 0 and their radius > 0, got %d, %v", p.LongRangePerNode, p.LongRangeRadius)
	}
	if p.Lifted && (!(p.LiftedRadius > 0) || math.IsInf(p.LiftedRadius, 0) || p.LiftedPerNode < 1) {
		return fmt.Errorf("graph: lifted radius must be > 0 and lifted per node ≥ 1, got %v, %d", p.LiftedRadius, p.LiftedPerNode)
	}
	return logit.CheckBeta(p.Beta)
}

// GraphStats describes a built graph.
type GraphStats struct {
	Nodes         int     `json:"nodes"`
	Edges         int     `json:"edges"`
	LiftedEdges   int     `json:"lifted_edges"`
	MeanDegree    float64 `json:"mean_degree"`
	PositiveEdges int     `json:"positive_edges"` // E edges with cost > 0 (prefer join)
	MeanCutProb   float64 `json:"mean_cut_prob"`  // over E
	Colour        bool    `json:"colour"`         // whether the colour feature was computed
	// NeighbourSecs: camera motion, neighbour search and random pairs.
	NeighbourSecs float64 `json:"neighbour_seconds"`
	FeatureSecs   float64 `json:"feature_seconds"`
	TotalSecs     float64 `json:"total_seconds"`
	IsolatedNodes int     `json:"isolated_nodes"` // nodes without an E edge
	MeanOverlapE  float64 `json:"mean_overlap"`   // mean common frames over E
	// Camera is the camera motion estimated for the features.
	Camera *camera.Motion `json:"-"`
}

// PairSet holds the candidate pairs of a track set and their raw features
// (FeatureNames order, NumFeatures values per pair in Feat).
type PairSet struct {
	// Camera is the estimated camera motion the residual features use.
	Camera *camera.Motion
	U, V   []int32
	Lifted []bool
	Feat   []float64 // len = NumFeatures * len(U)
	Colour bool
	// Timings in seconds.
	NeighbourSecs, FeatureSecs float64
}

// Len is the number of pairs.
func (ps *PairSet) Len() int { return len(ps.U) }

// Features returns the raw feature vector of pair i (a view, not a copy).
func (ps *PairSet) Features(i int) []float64 {
	return ps.Feat[i*NumFeatures : (i+1)*NumFeatures]
}

// BuildGraph builds the multicut instance of a track set: node i is the i-th
// track, edges E (and F when p.Lifted) follow the neighbour rule of
// GraphParams, and each edge gets the cost c = log((1−p)/p) + log((1−β)/β) of
// Kardoost & Keuper (UAI 2021) Eq. 9 with p the model's cut probability of
// the pair features. frames may be nil (no colour feature: it is set to the
// model's mean, i.e. it has no influence); otherwise it holds one image per
// frame of ts.
func BuildGraph(ts *trajectory.TrackSet, frames []image.Image, p GraphParams, model *CostModel) (*multicut.Graph, *GraphStats, error) {
	t0 := time.Now()
	if model == nil {
		model = DefaultCostModel()
	}
	if err := model.Validate(); err != nil {
		return nil, nil, err
	}
	if _, err := checkInputs(ts, frames, p, model.Params); err != nil {
		return nil, nil, err
	}
	cam, err := EstimateCamera(ts, model.Params)
	if err != nil {
		return nil, nil, err
	}
	camSecs := time.Since(t0).Seconds()
	ps, err := ComputePairs(ts, frames, cam, p, model.Params)
	if err != nil {
		return nil, nil, err
	}
	g := &multicut.Graph{N: len(ts.Tracks), Edges: make([]multicut.Edge, ps.Len())}
	st := &GraphStats{Nodes: g.N, Colour: ps.Colour, NeighbourSecs: camSecs + ps.NeighbourSecs, FeatureSecs: ps.FeatureSecs, Camera: ps.Camera}
	f := make([]float64, NumFeatures)
	deg := make([]int, g.N)
	sumP, sumOv := 0.0, 0.0
	for i := range ps.Len() {
		copy(f, ps.Features(i))
		if !ps.Colour {
			f[3] = model.Mean[3]
		}
		pc := model.CutProb(f)
		c := logit.CostFromProb(pc, p.Beta)
		u, v := int(ps.U[i]), int(ps.V[i])
		g.Edges[i] = multicut.Edge{U: u, V: v, Cost: c, Lifted: ps.Lifted[i]}
		if ps.Lifted[i] {
			st.LiftedEdges++
			continue
		}
		st.Edges++
		deg[u]++
		deg[v]++
		sumP += pc
		sumOv += math.Exp(f[4])
		if c > 0 {
			st.PositiveEdges++
		}
	}
	for _, d := range deg {
		if d == 0 {
			st.IsolatedNodes++
		}
	}
	if st.Edges > 0 {
		st.MeanCutProb = sumP / float64(st.Edges)
		st.MeanOverlapE = sumOv / float64(st.Edges)
	}
	if g.N > 0 {
		st.MeanDegree = 2 * float64(st.Edges) / float64(g.N)
	}
	st.TotalSecs = time.Since(t0).Seconds()
	return g, st, nil
}

// trackData is the per-trajectory precomputation: per-frame displacement
// D_i(t) = (X(t+T') − X(t))/T', T' = min(T, end−t) (undefined at the last
// frame), local flow variation v_i(t), and colour.
type trackData struct {
	start, end int
	dx, dy     []float32 // displacement per frame of the track (len = length−1)
	vari       []float32 // local flow variation per frame (len = length−1)
	col        [][3]float32
	// camera residual r(t) in px/frame and |r(t)|/s_t (package camera; len = length−1)
	rx, ry, rn []float32
}

// frameIndex is a uniform grid over the alive points of one frame.
type frameIndex struct {
	cell       float64
	nx, ny     int
	minX, minY float64
	cellStart  []int32 // CSR: points of cell c are ids[cellStart[c]:cellStart[c+1]]
	ids        []int32 // track ids
	xs, ys     []float64
}

// maxGridCells bounds the cells of a frameIndex of n points: 2^22 (16 MiB
// of cell offsets; a radius of 0.2 px on 854×480 frames stays below), or
// 4n for more points.
func maxGridCells(n int) float64 { return float64(max(1<<22, 4*n)) }

func newFrameIndex(ids []int32, xs, ys []float64, cell float64) *frameIndex {
	fi := &frameIndex{cell: cell}
	if len(ids) == 0 {
		fi.nx, fi.ny = 1, 1
		fi.cellStart = []int32{0, 0}
		return fi
	}
	minX, minY, maxX, maxY := xs[0], ys[0], xs[0], ys[0]
	for i := range xs {
		minX, maxX = math.Min(minX, xs[i]), math.Max(maxX, xs[i])
		minY, maxY = math.Min(minY, ys[i]), math.Max(maxY, ys[i])
	}
	fi.minX, fi.minY = minX, minY
	// The grid has at most maxGridCells(points) cells whatever the spread
	// of the points and the cell size (the radius): a larger cell keeps
	// the searches exact, only slower, and a tiny radius or points spread
	// over ±MaxCoordinate cannot make it allocate gigabytes.
	if limit := maxGridCells(len(ids)); ((maxX-minX)/cell+1)*((maxY-minY)/cell+1) > limit {
		cell = max(maxX-minX, maxY-minY) / (math.Sqrt(limit) - 1)
		fi.cell = cell
	}
	fi.nx = int((maxX-minX)/cell) + 1
	fi.ny = int((maxY-minY)/cell) + 1
	cnt := make([]int32, fi.nx*fi.ny+1)
	cellOf := make([]int32, len(ids))
	for i := range ids {
		c := fi.cellOf(xs[i], ys[i])
		cellOf[i] = int32(c)
		cnt[c+1]++
	}
	for c := 1; c < len(cnt); c++ {
		cnt[c] += cnt[c-1]
	}
	fi.cellStart = cnt
	fi.ids = make([]int32, len(ids))
	fi.xs = make([]float64, len(ids))
	fi.ys = make([]float64, len(ids))
	pos := slices.Clone(cnt[:len(cnt)-1])
	for i := range ids {
		c := cellOf[i]
		k := pos[c]
		pos[c]++
		fi.ids[k], fi.xs[k], fi.ys[k] = ids[i], xs[i], ys[i]
	}
	return fi
}

func (fi *frameIndex) cellOf(x, y float64) int {
	cx := min(max(int((x-fi.minX)/fi.cell), 0), fi.nx-1)
	cy := min(max(int((y-fi.minY)/fi.cell), 0), fi.ny-1)
	return cy*fi.nx + cx
}

// neighbour is a candidate found by a query.
type neighbour struct {
	d2 float64
	id int32
}

// cells returns the inclusive range of grid cells [gx0, gx1] × [gy0, gy1]
// that can hold points within radius r of (x, y).
func (fi *frameIndex) cells(x, y, r float64) (gx0, gx1, gy0, gy1 int) {
	span := int(math.Ceil(r / fi.cell))
	cx := int(math.Floor((x - fi.minX) / fi.cell))
	cy := int(math.Floor((y - fi.minY) / fi.cell))
	return max(cx-span, 0), min(cx+span, fi.nx-1), max(cy-span, 0), min(cy+span, fi.ny-1)
}

// knn appends to buf (reset) the k nearest points to (x, y) within radius r,
// excluding the track self, nearest first.
func (fi *frameIndex) knn(x, y, r float64, k int, self int32, buf []neighbour) []neighbour {
	buf = buf[:0]
	r2 := r * r
	gx0, gx1, gy0, gy1 := fi.cells(x, y, r)
	for gy := gy0; gy <= gy1; gy++ {
		for gx := gx0; gx <= gx1; gx++ {
			c := gy*fi.nx + gx
			for j := fi.cellStart[c]; j < fi.cellStart[c+1]; j++ {
				id := fi.ids[j]
				if id == self {
					continue
				}
				dx, dy := fi.xs[j]-x, fi.ys[j]-y
				d2 := dx*dx + dy*dy
				if d2 > r2 {
					continue
				}
				if len(buf) == k && d2 >= buf[k-1].d2 {
					continue
				}
				// insertion into the sorted buffer (k is small)
				if len(buf) < k {
					buf = append(buf, neighbour{})
				}
				i := len(buf) - 1
				for i > 0 && (buf[i-1].d2 > d2 || (buf[i-1].d2 == d2 && buf[i-1].id > id)) {
					buf[i] = buf[i-1]
					i--
				}
				buf[i] = neighbour{d2, id}
			}
		}
	}
	return buf
}

// markWithin sets, in the bitmap set (bit i of word i/64 for track i), the
// tracks of the points within radius r of (x, y) except self, and returns
// the smallest and largest id it set (lo > hi when none).
func (fi *frameIndex) markWithin(x, y, r float64, self int32, set []uint64) (lo, hi int32) {
	lo, hi = math.MaxInt32, -1
	r2 := r * r
	gx0, gx1, gy0, gy1 := fi.cells(x, y, r)
	for gy := gy0; gy <= gy1; gy++ {
		for gx := gx0; gx <= gx1; gx++ {
			c := gy*fi.nx + gx
			for j := fi.cellStart[c]; j < fi.cellStart[c+1]; j++ {
				id := fi.ids[j]
				if id == self {
					continue
				}
				dx, dy := fi.xs[j]-x, fi.ys[j]-y
				if dx*dx+dy*dy <= r2 {
					set[id>>6] |= 1 << (uint(id) & 63)
					lo, hi = min(lo, id), max(hi, id)
				}
			}
		}
	}
	return lo, hi
}

// checkTracks verifies that every track is non-empty, has finite coordinates
// and consecutive frames inside [0, Frames).
func checkTracks(ts *trajectory.TrackSet) error {
	if ts == nil {
		return fmt.Errorf("graph: nil track set")
	}
	for i := range ts.Tracks {
		tr := &ts.Tracks[i]
		if len(tr.Points) == 0 {
			return fmt.Errorf("graph: track %d is empty", i)
		}
		for j, q := range tr.Points {
			if !costFinite(q.X) || !costFinite(q.Y) {
				return fmt.Errorf("graph: track %d point %d has non-finite position (%v, %v)", i, j, q.X, q.Y)
			}
			if q.Frame != tr.Points[0].Frame+j {
				return fmt.Errorf("graph: track %d is not contiguous in time (point %d has frame %d, want %d)", i, j, q.Frame, tr.Points[0].Frame+j)
			}
			if q.Frame < 0 || (ts.Frames > 0 && q.Frame >= ts.Frames) {
				return fmt.Errorf("graph: track %d point %d: frame %d outside [0, %d)", i, j, q.Frame, ts.Frames)
			}
		}
	}
	return nil
}

func pairKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(uint32(b))
}

func overlap(a, b *trajectory.Track) int {
	s := max(a.Start(), b.Start())
	e := min(a.End(), b.End())
	return e - s + 1
}

// EstimateCamera fits the camera motion whose residuals ComputePairs' features
// use: camera.DefaultOptions with the features' motion step T
// (FeatureParams.MotionStep), on tracks checked as ComputePairs checks them.
func EstimateCamera(ts *trajectory.TrackSet, fp FeatureParams) (*camera.Motion, error) {
	if err := checkTracks(ts); err != nil {
		return nil, err
	}
	if err := fp.check(); err != nil {
		return nil, err
	}
	co := camera.DefaultOptions()
	co.Step = fp.MotionStep
	return camera.Estimate(ts, co)
}

// check refuses feature parameters the computation cannot use.
func (fp FeatureParams) check() error {
	if fp.MotionStep < 1 || fp.VariationNeighbours < 1 || !(fp.Sigma0 > 0) || fp.ColourRadius < 0 {
		return fmt.Errorf("graph: invalid feature params %+v", fp)
	}
	return nil
}

// ComputePairs applies the neighbour rule of GraphParams and computes the raw
// features of every pair (see PairFeatures) with cam, the camera motion of
// the same tracks (EstimateCamera). It is the part of BuildGraph shared with
// FitCosts' sample collection.
func ComputePairs(ts *trajectory.TrackSet, frames []image.Image, cam *camera.Motion, p GraphParams, fp FeatureParams) (*PairSet, error) {
	nf, err := checkInputs(ts, frames, p, fp)
	if err != nil {
		return nil, err
	}
	if err := checkCamera(cam, ts, nf, fp.MotionStep); err != nil {
		return nil, err
	}
	t0 := time.Now()
	al := aliveByFrame(ts, nf)
	td := trackDisplacements(ts, fp.MotionStep)
	setResiduals(td, cam)
	keys, idx := neighbourKeys(al, td, p, fp)
	keys = withOverlap(ts, keys, p.MinOverlap)
	keys, lifted := farPairs(ts, idx, keys, p)
	ps := newPairSet(cam, keys, lifted)
	ps.NeighbourSecs = time.Since(t0).Seconds()
	t1 := time.Now()
	if frames != nil {
		ps.Colour = true
		pointColours(frames, al, td, fp.ColourRadius, p.Workers)
	}
	ps.computeFeatures(ts, td, cam, fp, p.Workers)
	ps.FeatureSecs = time.Since(t1).Seconds()
	return ps, nil
}

// checkInputs validates the parameters, the tracks and the frame images
// (nil, or at least one per frame of the tracks) and returns the number of
// frames of the tracks.
func checkInputs(ts *trajectory.TrackSet, frames []image.Image, p GraphParams, fp FeatureParams) (int, error) {
	if err := p.validate(); err != nil {
		return 0, err
	}
	if err := checkTracks(ts); err != nil {
		return 0, err
	}
	if err := fp.check(); err != nil {
		return 0, err
	}
	nf := ts.Frames
	for i := range ts.Tracks {
		nf = max(nf, ts.Tracks[i].End()+1)
	}
	if frames != nil && len(frames) < nf {
		return 0, fmt.Errorf("graph: %d frame images for a track set of %d frames", len(frames), nf)
	}
	return nf, nil
}

// checkCamera verifies that cam fits ts as EstimateCamera makes it: motion
// step T, one frame for each of the nf frames, a residual for every point
// with a successor.
func checkCamera(cam *camera.Motion, ts *trajectory.TrackSet, nf, step int) error {
	if cam == nil {
		return fmt.Errorf("graph: no camera motion (EstimateCamera gives it)")
	}
	if cam.Options.Step != step {
		return fmt.Errorf("graph: camera motion estimated with step %d, the features use step %d", cam.Options.Step, step)
	}
	if len(cam.Frames) != nf || len(cam.ResX) != len(ts.Tracks) || len(cam.ResY) != len(ts.Tracks) || len(cam.Norm) != len(ts.Tracks) {
		return fmt.Errorf("graph: camera motion of %d frames and %d trajectories for a track set of %d frames and %d trajectories",
			len(cam.Frames), len(cam.ResX), nf, len(ts.Tracks))
	}
	for i := range ts.Tracks {
		n := len(ts.Tracks[i].Points) - 1
		if len(cam.ResX[i]) != n || len(cam.ResY[i]) != n || len(cam.Norm[i]) != n {
			return fmt.Errorf("graph: camera motion has %d residuals for trajectory %d of %d points", len(cam.ResX[i]), i, n+1)
		}
	}
	return nil
}

// aliveFrame holds the points alive in one frame: track ids and positions,
// in track order.
type aliveFrame struct {
	ids    []int32
	xs, ys []float64
}

// aliveByFrame lists the alive points of each of the nf frames.
func aliveByFrame(ts *trajectory.TrackSet, nf int) []aliveFrame {
	cnt := make([]int, nf)
	for i := range ts.Tracks {
		for _, q := range ts.Tracks[i].Points {
			cnt[q.Frame]++
		}
	}
	al := make([]aliveFrame, nf)
	for t := range nf {
		al[t] = aliveFrame{make([]int32, 0, cnt[t]), make([]float64, 0, cnt[t]), make([]float64, 0, cnt[t])}
	}
	for i := range ts.Tracks {
		for _, q := range ts.Tracks[i].Points {
			a := &al[q.Frame]
			a.ids = append(a.ids, int32(i))
			a.xs = append(a.xs, q.X)
			a.ys = append(a.ys, q.Y)
		}
	}
	return al
}

// trackDisplacements sets up every track's trackData: its frames and the
// displacement D(t) = (X(t+T') − X(t))/T', T' = min(T, end−t), of each point
// with a successor (the flow variation is filled by neighbourKeys).
func trackDisplacements(ts *trajectory.TrackSet, T int) []trackData {
	td := make([]trackData, len(ts.Tracks))
	for i := range ts.Tracks {
		pts := ts.Tracks[i].Points
		d := &td[i]
		d.start, d.end = pts[0].Frame, pts[len(pts)-1].Frame
		m := len(pts) - 1
		d.dx = make([]float32, m)
		d.dy = make([]float32, m)
		d.vari = make([]float32, m)
		for j := range m {
			tt := min(T, m-j)
			d.dx[j] = float32((pts[j+tt].X - pts[j].X) / float64(tt))
			d.dy[j] = float32((pts[j+tt].Y - pts[j].Y) / float64(tt))
		}
	}
	return td
}

// setResiduals gives every track its camera residuals.
func setResiduals(td []trackData, cam *camera.Motion) {
	for i := range td {
		td[i].rx, td[i].ry, td[i].rn = cam.ResX[i], cam.ResY[i], cam.Norm[i]
	}
}

// neighbourKeys builds the grid of every frame and queries it for every
// alive point: its K nearest points within Radius are its pairs, its
// VariationNeighbours−1 nearest give its local flow variation (trackData.vari).
// It returns the pairs (sorted, unique, pairKey form) and the grids.
func neighbourKeys(al []aliveFrame, td []trackData, p GraphParams, fp FeatureParams) ([]uint64, []*frameIndex) {
	nf := len(al)
	kq := max(p.K, fp.VariationNeighbours-1)
	perFrame := make([][]uint64, nf)
	idx := make([]*frameIndex, nf)
	parallelFor(nf, p.Workers, func(t int) {
		a := &al[t]
		fi := newFrameIndex(a.ids, a.xs, a.ys, p.Radius)
		idx[t] = fi
		var buf []neighbour
		keys := make([]uint64, 0, len(a.ids)*p.K)
		for k, id := range a.ids {
			buf = fi.knn(a.xs[k], a.ys[k], p.Radius, kq, id, buf)
			for j := 0; j < len(buf) && j < p.K; j++ {
				keys = append(keys, pairKey(id, buf[j].id))
			}
			flowVariation(td, t, id, buf[:min(len(buf), fp.VariationNeighbours-1)])
		}
		perFrame[t] = keys
	})
	return mergeKeys(perFrame), idx
}

// flowVariation sets the local flow variation v(t) of track id: the variance
// of the displacements at t of the track and its neighbours nb (those with a
// displacement defined at t), Σ|D|²/m − |ΣD/m|². Nothing at the track's last
// frame.
func flowVariation(td []trackData, t int, id int32, nb []neighbour) {
	d := &td[id]
	if t >= d.end {
		return
	}
	sx, sy := float64(d.dx[t-d.start]), float64(d.dy[t-d.start])
	sxx := sx*sx + sy*sy
	m := 1
	for _, n := range nb {
		o := &td[n.id]
		if t >= o.end {
			continue
		}
		x, y := float64(o.dx[t-o.start]), float64(o.dy[t-o.start])
		sx += x
		sy += y
		sxx += x*x + y*y
		m++
	}
	mx, my := sx/float64(m), sy/float64(m)
	d.vari[t-d.start] = float32(math.Max(sxx/float64(m)-mx*mx-my*my, 0))
}

// mergeKeys joins the frames' pairs into one sorted list without duplicates,
// releasing each frame's list as it goes.
func mergeKeys(perFrame [][]uint64) []uint64 {
	total := 0
	for _, k := range perFrame {
		total += len(k)
	}
	keys := make([]uint64, 0, total)
	for t, k := range perFrame {
		keys = append(keys, k...)
		perFrame[t] = nil
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// withOverlap keeps, in place, the pairs whose tracks share at least
// minOverlap frames.
func withOverlap(ts *trajectory.TrackSet, keys []uint64, minOverlap int) []uint64 {
	w := 0
	for _, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		if overlap(&ts.Tracks[a], &ts.Tracks[b]) >= minOverlap {
			keys[w] = k
			w++
		}
	}
	return keys[:w]
}

// farPairs adds the long-range edges to the sorted edges keys and draws the
// lifted edges F (GraphParams; randomPairs).
func farPairs(ts *trajectory.TrackSet, idx []*frameIndex, keys []uint64, p GraphParams) (e, lifted []uint64) {
	if p.LongRangePerNode > 0 {
		far := randomPairs(ts, idx, keys, p.LongRangeRadius, p.LongRangePerNode, p.Seed+1, p)
		keys = append(keys, far...)
		slices.Sort(keys)
		keys = slices.Compact(keys)
	}
	if p.Lifted {
		lifted = randomPairs(ts, idx, keys, p.LiftedRadius, p.LiftedPerNode, p.Seed, p)
	}
	return keys, lifted
}

// newPairSet lists the edges E, then the lifted edges F.
func newPairSet(cam *camera.Motion, keys, lifted []uint64) *PairSet {
	nE := len(keys)
	ps := &PairSet{
		Camera: cam,
		U:      make([]int32, nE+len(lifted)),
		V:      make([]int32, nE+len(lifted)),
		Lifted: make([]bool, nE+len(lifted)),
	}
	for i, k := range keys {
		ps.U[i], ps.V[i] = int32(k>>32), int32(uint32(k))
	}
	for i, k := range lifted {
		ps.U[nE+i], ps.V[nE+i] = int32(k>>32), int32(uint32(k))
		ps.Lifted[nE+i] = true
	}
	return ps
}

// pointColours sets the colour of every alive point (trackData.col): the
// mean of the square patch of half size radius around it (patchColour) in
// its frame's image; points in a frame without image keep zero.
func pointColours(frames []image.Image, al []aliveFrame, td []trackData, radius, workers int) {
	for i := range td {
		td[i].col = make([][3]float32, td[i].end-td[i].start+1)
	}
	parallelFor(len(al), workers, func(t int) {
		img := frames[t]
		if img == nil {
			return
		}
		a := &al[t]
		for k, id := range a.ids {
			d := &td[id]
			d.col[t-d.start] = patchColour(img, a.xs[k], a.ys[k], radius)
		}
	})
}

// computeFeatures fills ps.Feat with pairFeatures of every pair, in chunks
// of 4096 pairs in parallel.
func (ps *PairSet) computeFeatures(ts *trajectory.TrackSet, td []trackData, cam *camera.Motion, fp FeatureParams, workers int) {
	scale := make([]float64, len(cam.Frames))
	for t, f := range cam.Frames {
		scale[t] = f.Scale
	}
	ps.Feat = make([]float64, NumFeatures*ps.Len())
	sig02 := fp.Sigma0 * fp.Sigma0
	const chunk = 4096
	parallelFor((ps.Len()+chunk-1)/chunk, workers, func(c int) {
		for i := c * chunk; i < min((c+1)*chunk, ps.Len()); i++ {
			a, b := int(ps.U[i]), int(ps.V[i])
			pairFeatures(&ts.Tracks[a], &ts.Tracks[b], &td[a], &td[b], fp.MotionStep, sig02, scale, ps.Colour, ps.Feat[i*NumFeatures:(i+1)*NumFeatures])
		}
	})
}

// pairFeatures computes the raw features of a pair (FeatureNames order) over
// the common frames [s, e] of trajectories A and B (Keuper'15, Ochs-Malik-Brox
// TPAMI'14):
//
//	∂ₜX = (X(t+T') − X(t))/T',  T' = min(T, e − t)   (clipped to [s, e])
//	σ_t² = σ₀² + min(v_A(t), v_B(t))                  (local flow variation v)
//	f0 = log(1 + max_{t∈[s,e)} ||∂ₜA − ∂ₜB||² / σ_t²)
//	f1 = log(1 + max_{t∈[s,e)} ||∂ₜA − ∂ₜB||)
//	f2 = log(1 + mean_{t∈[s,e]} ||A(t) − B(t)||)
//	f3 = mean_{t∈[s,e]} ||rgb_A(t) − rgb_B(t)||       (0 without frames)
//	f4 = log(e − s + 1)
//	f5 = log(1 + mean_{t∈[s,e)} ||∂ₜA − ∂ₜB||)
//	f6 = max_{t∈[s,e)} ||∂ₜA − ∂ₜB|| / (1 + ||∂ₜA|| + ||∂ₜB||)
//
// and, from the camera motion (package camera: r_X(t) the residual of X's
// velocity after the frame's homography, s_t the frame's residual scale,
// ρ_X = mean_{t∈[s,e)} |r_X(t)|/s_t):
//
//	f7  = log(1 + min(ρ_A, ρ_B))
//	f8  = log(1 + max(ρ_A, ρ_B))
//	f9  = log(1 + mean_{t∈[s,e)} ||r_A(t) − r_B(t)||/s_t)
//	f10 = log(1 + max_{t∈[s,e)} ||r_A(t) − r_B(t)||/s_t)
//
// f7/f8 say whether the camera explains both, one or neither trajectory
// (one explained, one not: different motions); f9/f10 compare the motions
// after the camera's, which removes the differences that zoom and rotation
// induce between distant background points (the long-range edges).
// v_X(t) is the variance of the T-frame displacements of X and its nearest
// alive neighbours in frame t (no optical flow needed). With a single common
// frame the motion terms are 0 and f4 = 0 tells the model so. The max is
// Keuper'15's choice (one frame of clearly different motion suffices to cut);
// f5 and f6 were added because tracker noise makes single-frame maxima
// unreliable on real video: on the DAVIS dev set they are the two best
// single features (rank AUC 0.885 and 0.888 vs 0.869 for f1 and 0.813 for
// f0) and raise the leave-one-sequence-out AUC of the model from 0.907 to 0.927.
func pairFeatures(A, B *trajectory.Track, da, db *trackData, T int, sig02 float64, scale []float64, colour bool, out []float64) {
	s := max(da.start, db.start)
	e := min(da.end, db.end)
	pa := A.Points[s-da.start : e-da.start+1]
	pb := B.Points[s-db.start : e-db.start+1]
	L := e - s + 1
	maxN, maxR, sumD, sumC := 0.0, 0.0, 0.0, 0.0
	sumR, maxRel := 0.0, 0.0
	sumRA, sumRB, sumRD, maxRD := 0.0, 0.0, 0.0, 0.0
	for j := range L {
		dx, dy := pa[j].X-pb[j].X, pa[j].Y-pb[j].Y
		sumD += math.Sqrt(dx*dx + dy*dy)
		if colour {
			ca, cb := da.col[s+j-da.start], db.col[s+j-db.start]
			r, g, bl := float64(ca[0]-cb[0]), float64(ca[1]-cb[1]), float64(ca[2]-cb[2])
			sumC += math.Sqrt(r*r + g*g + bl*bl)
		}
		if j == L-1 {
			break
		}
		tt := min(T, L-1-j)
		inv := 1 / float64(tt)
		ux := (pa[j+tt].X - pa[j].X - pb[j+tt].X + pb[j].X) * inv
		uy := (pa[j+tt].Y - pa[j].Y - pb[j+tt].Y + pb[j].Y) * inv
		d2 := ux*ux + uy*uy
		v := min(da.vari[s+j-da.start], db.vari[s+j-db.start])
		maxN = math.Max(maxN, d2/(sig02+float64(v)))
		maxR = math.Max(maxR, d2)
		r := math.Sqrt(d2)
		sumR += r
		ax, ay := (pa[j+tt].X-pa[j].X)*inv, (pa[j+tt].Y-pa[j].Y)*inv
		bx, by := (pb[j+tt].X-pb[j].X)*inv, (pb[j+tt].Y-pb[j].Y)*inv
		maxRel = math.Max(maxRel, r/(1+math.Hypot(ax, ay)+math.Hypot(bx, by)))
		ka, kb := s+j-da.start, s+j-db.start
		sumRA += float64(da.rn[ka])
		sumRB += float64(db.rn[kb])
		rd := math.Hypot(float64(da.rx[ka]-db.rx[kb]), float64(da.ry[ka]-db.ry[kb])) / scale[s+j]
		sumRD += rd
		maxRD = math.Max(maxRD, rd)
	}
	nm := float64(max(L-1, 1))
	out[7] = math.Log1p(math.Min(sumRA, sumRB) / nm)
	out[8] = math.Log1p(math.Max(sumRA, sumRB) / nm)
	out[9] = math.Log1p(sumRD / nm)
	out[10] = math.Log1p(maxRD)
	out[0] = math.Log1p(maxN)
	out[1] = math.Log1p(math.Sqrt(maxR))
	out[2] = math.Log1p(sumD / float64(L))
	out[3] = sumC / float64(L)
	out[4] = math.Log(float64(L))
	out[5] = math.Log1p(sumR / float64(max(L-1, 1)))
	out[6] = maxRel
}

// randomPairs draws, for every trajectory A at its middle frame, up to
// perNode alive trajectories within radius that are not pairs in eKeys
// (sorted) and share ≥ MinOverlap frames with A, uniformly at random (seeded
// by seed and A's index): the long-range edges and the lifted edges F of
// GraphParams.
//
// The candidates of A are marked in a bitmap over the track ids and read back
// in increasing id order, A's pairs in eKeys unmarked through an adjacency
// list and the overlap taken from contiguous start and end frames: the same
// sorted candidate list, hence the same shuffle and the same pairs, as
// sorting the radius query and binary-searching eKeys for each candidate,
// without the sort and the searches (which took 60 % of the graph's
// construction on a DAVIS sequence).
func randomPairs(ts *trajectory.TrackSet, idx []*frameIndex, eKeys []uint64, radius float64, perNode int, seed uint64, p GraphParams) []uint64 {
	n := len(ts.Tracks)
	start, end := make([]int32, n), make([]int32, n)
	for i := range ts.Tracks {
		start[i], end[i] = int32(ts.Tracks[i].Start()), int32(ts.Tracks[i].End())
	}
	off, nb := adjacency(n, eKeys)
	words := (n + 63) / 64
	pool := sync.Pool{New: func() any { b := make([]uint64, words); return &b }}
	per := make([][]uint64, n)
	parallelFor(n, p.Workers, func(a int) {
		bp := pool.Get().(*[]uint64)
		defer pool.Put(bp)
		set := *bp
		tr := &ts.Tracks[a]
		mid := (tr.Start() + tr.End()) / 2
		q, _ := tr.At(mid)
		lo, hi := idx[mid].markWithin(q.X, q.Y, radius, int32(a), set)
		for _, b := range nb[off[a]:off[a+1]] {
			set[b>>6] &^= 1 << (uint(b) & 63)
		}
		var cand []int32
		for w := lo >> 6; lo <= hi && w <= hi>>6; w++ {
			x := set[w]
			set[w] = 0 // the bitmap is clear again for the next trajectory
			for x != 0 {
				b := w<<6 + int32(bits.TrailingZeros64(x))
				x &= x - 1
				if min(end[a], end[b])-max(start[a], start[b])+1 >= int32(p.MinOverlap) {
					cand = append(cand, b)
				}
			}
		}
		rng := rand.New(rand.NewPCG(seed, uint64(a)))
		rng.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
		cand = cand[:min(len(cand), perNode)]
		for _, b := range cand {
			per[a] = append(per[a], pairKey(int32(a), b))
		}
	})
	var out []uint64
	for _, k := range per {
		out = append(out, k...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// adjacency returns the pairs keys (pairKey form) as adjacency lists in CSR
// form: the neighbours of node v are nb[off[v]:off[v+1]].
func adjacency(n int, keys []uint64) (off, nb []int32) {
	off = make([]int32, n+1)
	for _, k := range keys {
		off[int32(k>>32)+1]++
		off[int32(uint32(k))+1]++
	}
	for v := range n {
		off[v+1] += off[v]
	}
	nb = make([]int32, off[n])
	pos := slices.Clone(off[:n])
	for _, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		nb[pos[a]], nb[pos[b]] = b, a
		pos[a]++
		pos[b]++
	}
	return off, nb
}

// parallelFor runs f(0..n-1) on up to workers goroutines (0 = GOMAXPROCS).
func parallelFor(n, workers int, f func(i int)) {
	parallel.For(n, workers, func(i int) error { f(i); return nil })
}
