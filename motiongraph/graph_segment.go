package motiongraph

import (
	"fmt"
	"image"
	"slices"
	"time"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// SegmentVersion numbers what Segment does after the solver, so that stored
// results (a pipeline's segment stage) are recomputed when it changes. 1:
// the returned graph is SplitGraph and the labels are a local optimum of it
// (multicut.Descend); before, the motion graph with the split labels.
const SegmentVersion = 1

// SegmentOptions control Segment.
type SegmentOptions struct {
	Graph  GraphParams
	Model  *CostModel // nil = DefaultCostModel()
	Solver string     // "gaec" or "klj" (KLj started from GAEC)
	// MinClusterSize: clusters with fewer trajectories are merged, smallest
	// first, into the E-adjacent cluster with the largest summed edge cost
	// Σ_{u∈A,v∈B} c_uv (the least harmful merge; merging adjacent clusters keeps the
	// decomposition feasible). FBMS scoring counts every cluster, and tiny
	// clusters are mostly tracking noise at motion boundaries, so this
	// trades a little energy for fewer spurious clusters. Clusters with no
	// E-neighbour stay. 0 or 1 = off.
	MinClusterSize int
	// BackgroundSplit is the logit shift δ with which every background
	// cluster is re-segmented (SplitBackground; 0 = off).
	BackgroundSplit float64
}

// DefaultSegmentOptions are the defaults of `densify segment`.
func DefaultSegmentOptions() SegmentOptions {
	return SegmentOptions{Graph: DefaultGraphParams(), Solver: "klj", MinClusterSize: 0, BackgroundSplit: DefaultBackgroundSplit}
}

// SegmentResult is the outcome of Segment.
type SegmentResult struct {
	// Graph is the graph whose energy Labels is a local optimum of: the
	// motion graph, or, when SplitBackground promoted parts, the motion
	// graph with the costs inside the split clusters lowered by δ
	// (SplitGraph). Its costs are the ones the uncertainty reads.
	Graph  *multicut.Graph
	Labels []int // cluster id per node (= per track), 0..Clusters−1
	Stats  *GraphStats
	// Energy is the multicut objective of Labels on Graph; SolverEnergy the
	// one of the solver output (before small clusters were merged) on the
	// motion graph, and MotionEnergy the one of Labels on the motion graph.
	Energy       float64
	SolverEnergy float64
	MotionEnergy float64
	// DescentMoves counts the single-node moves with which Labels was made
	// a local optimum of Graph (multicut.Descend).
	DescentMoves  int
	Clusters      int
	MergedSmall   int // clusters merged away by MinClusterSize
	SolveSeconds  float64
	GraphSeconds  float64
	SolverName    string
	SolverCluster int // clusters of the solver output
	// Camera is the camera-motion evidence per cluster and Background the
	// clusters it explains (see CameraEvidence).
	Camera     []ClusterCamera
	Background []int
	// BackgroundParts are the parts of background clusters that
	// SplitBackground made clusters of their own.
	BackgroundParts []BackgroundPart
	// CameraResidual is, per trajectory, the median and the upper quartile
	// of its normalised residuals against the border band's camera motion
	// (the motion the background decision uses;
	// camera.Motion.TrackQuantiles), NaN for a single-point trajectory: the
	// per-trajectory evidence with which `densify prepare` leaves
	// unexplained trajectories of camera-explained background clusters
	// unlabelled (trainset.Options.BackgroundResidual). The upper quartile
	// is large when the trajectory moves on its own over a quarter of its
	// life, such as the foot of a walking animal.
	CameraResidual CameraResiduals
}

// Segment builds the motion graph of ts (see BuildGraph), solves the
// (lifted) multicut with GAEC or KLj (Keuper, Andres, Brox ICCV'15),
// optionally merges small clusters, re-segments the background clusters
// (SplitBackground, opt.BackgroundSplit), moves single nodes until no move
// lowers the energy of the result's graph (multicut.Descend on SplitGraph),
// so that the labelling whose uncertainty is computed is a local optimum of
// the graph it is computed on, and decides which clusters are background
// (CameraEvidence). Labels follow the track order.
func Segment(ts *trajectory.TrackSet, frames []image.Image, opt SegmentOptions) (*SegmentResult, error) {
	if opt.Solver == "" {
		opt.Solver = "klj"
	}
	if opt.Solver != "gaec" && opt.Solver != "klj" {
		return nil, fmt.Errorf("segment: unknown solver %q (gaec or klj)", opt.Solver)
	}
	if opt.MinClusterSize < 0 {
		return nil, fmt.Errorf("segment: min cluster size must be ≥ 0, got %d", opt.MinClusterSize)
	}
	if !(opt.BackgroundSplit >= 0) || opt.BackgroundSplit > 100 {
		return nil, fmt.Errorf("segment: background split δ must be in [0, 100], got %v", opt.BackgroundSplit)
	}
	if len(frames) > 0 {
		b := frames[0].Bounds()
		if err := ts.CheckBounds("", b.Dx(), b.Dy()); err != nil {
			return nil, fmt.Errorf("segment: %w", err)
		}
	}
	t0 := time.Now()
	g, st, err := BuildGraph(ts, frames, opt.Graph, opt.Model)
	if err != nil {
		return nil, err
	}
	res := &SegmentResult{Graph: g, Stats: st, GraphSeconds: time.Since(t0).Seconds(), SolverName: opt.Solver}
	t1 := time.Now()
	sol, err := multicut.Solve(g, multicut.SolveOptions{Solver: opt.Solver})
	if err != nil {
		return nil, err
	}
	labels := sol.Labels
	res.SolveSeconds = time.Since(t1).Seconds()
	res.SolverEnergy = multicut.Energy(g, labels)
	res.SolverCluster = multicut.NumClusters(labels)
	if opt.MinClusterSize > 1 {
		labels, res.MergedSmall = MergeSmallClusters(g, labels, opt.MinClusterSize)
	}
	labels = multicut.Canonical(labels)
	// the background decision uses the dominant motion of the image border
	co := st.Camera.Options
	co.Border = BackgroundBorder
	bcam, err := camera.Estimate(ts, co)
	if err != nil {
		return nil, err
	}
	// canonical labels in, canonical labels out
	split, parts, err := SplitBackground(g, ts, bcam, labels, opt.BackgroundSplit)
	if err != nil {
		return nil, err
	}
	res.Graph = SplitGraph(g, labels, parts, opt.BackgroundSplit)
	res.Labels, res.DescentMoves = multicut.Descend(res.Graph, split)
	res.BackgroundParts = relabelParts(parts, split, res.Labels)
	res.Energy = multicut.Energy(res.Graph, res.Labels)
	res.MotionEnergy = multicut.Energy(g, res.Labels)
	res.Clusters = multicut.NumClusters(res.Labels)
	res.Camera, res.Background = CameraEvidence(bcam, res.Labels, res.Clusters, BorderShares(ts, res.Labels, res.Clusters))
	q := bcam.TrackQuantiles(0.5, camera.UpperQuartile)
	res.CameraResidual = CameraResiduals{Median: q[0], Upper: q[1]}
	return res, nil
}

// relabelParts gives every promoted part the cluster that most of its
// trajectories have in the final labels (the descent may renumber clusters
// and move a part's boundary trajectories).
func relabelParts(parts []BackgroundPart, split, final []int) []BackgroundPart {
	out := slices.Clone(parts)
	for i, p := range out {
		votes := map[int]int{}
		for v, l := range split {
			if l == p.Cluster {
				votes[final[v]]++
			}
		}
		best := -1
		for c, n := range votes {
			if best < 0 || n > votes[best] || (n == votes[best] && c < best) {
				best = c
			}
		}
		out[i].Cluster = best
	}
	return out
}

// ClusterSizes returns the number of nodes (tracks) of each cluster
// 0..Clusters−1.
func (r *SegmentResult) ClusterSizes() []int {
	sizes := make([]int, r.Clusters)
	for _, l := range r.Labels {
		sizes[l]++
	}
	return sizes
}

// SmallShare is the share of trajectories in clusters of fewer than min
// trajectories: fragmented objects are resolved by the energy, never
// dropped silently, and the report shows how many remain.
func (r *SegmentResult) SmallShare(min int) float64 {
	if len(r.Labels) == 0 {
		return 0
	}
	small := 0
	for _, n := range r.ClusterSizes() {
		if n < min {
			small += n
		}
	}
	return float64(small) / float64(len(r.Labels))
}

// Write writes the outputs of a segmentation of ts, each atomically and in
// this order: ts labelled with r.Labels to tracksPath, the graph to graphPath
// and the labels to labelsPath.
func (r *SegmentResult) Write(ts *trajectory.TrackSet, tracksPath, graphPath, labelsPath string) error {
	if err := trajectory.WriteTracks(tracksPath, Labelled(ts, r.Labels)); err != nil {
		return err
	}
	if err := multicut.WriteGraph(graphPath, r.Graph); err != nil {
		return err
	}
	return multicut.WriteLabels(labelsPath, r.Labels)
}

// Labelled returns a copy of ts whose track labels are the given cluster ids.
func Labelled(ts *trajectory.TrackSet, labels []int) *trajectory.TrackSet {
	out := &trajectory.TrackSet{Frames: ts.Frames, Tracks: make([]trajectory.Track, len(ts.Tracks))}
	for i, tr := range ts.Tracks {
		out.Tracks[i] = trajectory.Track{Label: labels[i], Points: tr.Points}
	}
	return out
}

// MergeSmallClusters merges every cluster of fewer than minSize nodes,
// smallest first, into the E-adjacent cluster with the largest summed cost
// between them (lifted edges included in the sum). It returns the new labels
// (not canonical) and the number of merges. Clusters without an E-neighbour
// are left alone. Feasibility is preserved (only E-adjacent clusters merge).
func MergeSmallClusters(g *multicut.Graph, labels []int, minSize int) ([]int, int) {
	labels = slices.Clone(labels)
	type link struct {
		sum float64
		reg bool
	}
	adj := map[int]map[int]*link{}
	size := map[int]int{}
	for _, l := range labels {
		size[l]++
		if adj[l] == nil {
			adj[l] = map[int]*link{}
		}
	}
	for _, e := range g.Edges {
		a, b := labels[e.U], labels[e.V]
		if a == b {
			continue
		}
		for _, d := range [2][2]int{{a, b}, {b, a}} {
			lk := adj[d[0]][d[1]]
			if lk == nil {
				lk = &link{}
				adj[d[0]][d[1]] = lk
			}
			lk.sum += e.Cost
			lk.reg = lk.reg || !e.Lifted
		}
	}
	into := map[int]int{}
	merges := 0
	for {
		// the smallest mergeable cluster (ties: smaller label)
		s, sn := -1, 0
		for l, n := range size {
			if n >= minSize || (s >= 0 && (n > sn || (n == sn && l > s))) {
				continue
			}
			hasReg := false
			for _, lk := range adj[l] {
				if lk.reg {
					hasReg = true
					break
				}
			}
			if hasReg {
				s, sn = l, n
			}
		}
		if s < 0 {
			break
		}
		best, bestC := -1, 0.0
		for o, lk := range adj[s] {
			if lk.reg && (best < 0 || lk.sum > bestC || (lk.sum == bestC && o < best)) {
				best, bestC = o, lk.sum
			}
		}
		for o, lk := range adj[s] {
			delete(adj[o], s)
			if o == best {
				continue
			}
			bl := adj[best][o]
			if bl == nil {
				bl = &link{}
				adj[best][o] = bl
				adj[o][best] = &link{}
			}
			bl.sum += lk.sum
			bl.reg = bl.reg || lk.reg
			*adj[o][best] = *bl
		}
		delete(adj, s)
		size[best] += size[s]
		delete(size, s)
		into[s] = best
		merges++
	}
	for i, l := range labels {
		for {
			n, ok := into[l]
			if !ok {
				break
			}
			l = n
		}
		labels[i] = l
	}
	return labels, merges
}
