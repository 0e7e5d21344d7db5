package motiongraph

import (
	"slices"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// DefaultBackgroundSplit is the default logit shift δ of SplitBackground
// (`densify segment --background-split`; 0 turns it off). It was chosen
// from {1, 2, 3} on the ten DAVIS 2016 development sequences, with the
// leave-one-sequence-out cost models, by the trajectory-level foreground
// IoU of the background decision: δ = 1 raises the mean almost as much as
// δ = 2 and lowers it on fewer sequences, and by less.
const DefaultBackgroundSplit = 1.0

// BackgroundSplitMin is the fewest trajectories a part of a background
// cluster needs to become a cluster of its own; smaller parts count as
// fragments.
const BackgroundSplitMin = 20

// BackgroundPart is one part of a background cluster that SplitBackground
// made a cluster of its own.
type BackgroundPart struct {
	Cluster      int     `json:"cluster"`      // its id in the final labels (of most of its trajectories)
	Parent       int     `json:"parent"`       // the background cluster it came from (id before the split)
	Trajectories int     `json:"trajectories"` // its size when split
	Residual     float64 `json:"camera_residual_median"`
	Explained    float64 `json:"camera_explained"`
}

// SplitBackground re-segments every background cluster (CameraEvidence) of
// labels at a higher prior cut probability and makes a cluster of every part
// that the camera motion does not explain.
//
// Why: a slowly moving object that the camera follows (DAVIS cows, the swan,
// part of the dog) differs from the background in its motion by less than the
// cost model needs to cut, so the multicut merges it into the background
// cluster, whose decision the camera evidence then takes for the whole: the
// object's trajectories become background training labels. Within that
// cluster the object's trajectories are still more strongly joined to each
// other than to the background.
// Shifting every cost of the cluster's subgraph by −δ, that is the prior β of
// Kardoost & Keuper (UAI 2021) Eq. 9 raised from β to σ(logit β + δ), cuts
// the weaker joins first; the camera evidence then judges every part on its
// own, as it judges clusters: sky and ground separated by parallax stay
// background, an independently moving part does not.
//
// For each background cluster C: the multicut of the subgraph induced by C
// with costs c_e − δ (KLj from GAEC, node level) gives parts; a part that is
// not background by CameraEvidence (computed with the parts in place of C)
// and holds at least BackgroundSplitMin trajectories becomes a new cluster.
// The rest of C stays one cluster, or, where the promotion disconnected it,
// one cluster per connected component through regular edges, so that the
// labelling stays a feasible decomposition (multicut.ConnectedParts).
//
// labels must be canonical (multicut.Canonical); bcam is the camera motion
// of ts estimated on the border band (BackgroundBorder). It returns the new
// labels, canonical (labels itself when nothing was split), and the
// promoted parts, each with its id in the new labels.
func SplitBackground(g *multicut.Graph, ts *trajectory.TrackSet, bcam *camera.Motion, labels []int, delta float64) ([]int, []BackgroundPart, error) {
	if delta <= 0 {
		return labels, nil, nil
	}
	k := multicut.NumClusters(labels)
	_, bg := CameraEvidence(bcam, labels, k, BorderShares(ts, labels, k))
	parts := slices.Clone(labels) // background nodes get their part's id, ≥ k
	next := k
	local := make([]int, g.N)
	parent := map[int]int{}
	for _, c := range bg {
		var nodes []int
		for v, l := range labels {
			if l == c {
				local[v] = len(nodes)
				nodes = append(nodes, v)
			}
		}
		if len(nodes) < 2*BackgroundSplitMin {
			continue
		}
		sub := &multicut.Graph{N: len(nodes)}
		for _, e := range g.Edges {
			if labels[e.U] == c && labels[e.V] == c {
				sub.Edges = append(sub.Edges, multicut.Edge{U: local[e.U], V: local[e.V], Cost: e.Cost - delta, Lifted: e.Lifted})
			}
		}
		sl, err := multicut.KLj(sub, multicut.KLjOptions{Levels: []int{}})
		if err != nil {
			return nil, nil, err
		}
		for j, v := range nodes {
			parts[v] = next + sl[j]
		}
		for p := range multicut.NumClusters(sl) {
			parent[next+p] = c
		}
		next += multicut.NumClusters(sl)
	}
	if next == k {
		return labels, nil, nil
	}
	ev, _ := CameraEvidence(bcam, parts, next, BorderShares(ts, parts, next))
	index := map[int]int{} // promoted part → its index in promoted
	var promoted []BackgroundPart
	for p := k; p < next; p++ {
		if ev[p].Background || ev[p].Trajectories < BackgroundSplitMin {
			continue
		}
		index[p] = len(promoted)
		promoted = append(promoted, BackgroundPart{Parent: parent[p], Trajectories: ev[p].Trajectories,
			Residual: ev[p].ResidualMedian, Explained: ev[p].Explained})
	}
	if len(promoted) == 0 {
		return labels, nil, nil
	}
	out := slices.Clone(labels)
	node := make([]int, len(promoted)) // a node of each promoted part
	for v, p := range parts {
		if i, ok := index[p]; ok {
			out[v] = k + i
			node[i] = v
		}
	}
	// A promoted part is connected (a cluster of the subgraph's multicut);
	// the rest of its background cluster may not be.
	out = multicut.ConnectedParts(g, out)
	for i := range promoted {
		promoted[i].Cluster = out[node[i]]
	}
	return out, promoted, nil
}

// SplitGraph is the graph whose energy the labels of SplitBackground are
// judged by: g with the cost of every edge inside a re-segmented background
// cluster that gave parts (both ends labelled with a Parent of parts in
// before, the labels SplitBackground was given) lowered by δ, the prior that
// re-segmentation used (Kardoost & Keuper, UAI 2021, Eq. 9, with β raised to
// σ(logit β + δ) there). On g itself the promoted parts cost the joins they
// cut at the full cost, so their trajectories' uncertainty would measure the
// split, not the motion evidence; on SplitGraph the labelling and its
// uncertainty come from one energy. It returns g itself when parts is empty.
func SplitGraph(g *multicut.Graph, before []int, parts []BackgroundPart, delta float64) *multicut.Graph {
	if len(parts) == 0 || delta == 0 {
		return g
	}
	split := map[int]bool{}
	for _, p := range parts {
		split[p.Parent] = true
	}
	out := &multicut.Graph{N: g.N, Edges: slices.Clone(g.Edges)}
	for i, e := range out.Edges {
		if l := before[e.U]; l == before[e.V] && split[l] {
			out.Edges[i].Cost = e.Cost - delta
		}
	}
	return out
}
