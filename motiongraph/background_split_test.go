package motiongraph

import (
	"slices"
	"testing"

	"github.com/densify/densify/camera"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trajectory"
)

// splitScene is one background cluster that holds a slow object: 64
// background trajectories on an 8×8 grid over a 100×100 image (border band
// included) and 25 object trajectories in the middle, all labelled 0.
// Background and object are each chained by edges of cost +3; every object
// trajectory is joined to two background ones by +0.5, so the multicut at
// β = 0.5 keeps them together. objRes is the object's normalised camera
// residual (the background's is 0.5).
func splitScene(objRes float32) (*trajectory.TrackSet, *camera.Motion, *multicut.Graph, []int) {
	ts := &trajectory.TrackSet{Frames: 3}
	cam := &camera.Motion{}
	add := func(x, y float64, res float32) {
		ts.Tracks = append(ts.Tracks, trajectory.Track{Points: []trajectory.Point{{X: x, Y: y, Frame: 0}, {X: x, Y: y, Frame: 1}, {X: x, Y: y, Frame: 2}}})
		cam.Norm = append(cam.Norm, []float32{res, res})
	}
	for i := 0; i < 64; i++ {
		add(float64(i%8)*100/7, float64(i/8)*100/7, 0.5)
	}
	for i := 0; i < 25; i++ {
		add(40+float64(i%5)*5, 40+float64(i/5)*5, objRes)
	}
	g := &multicut.Graph{N: len(ts.Tracks)}
	for i := 0; i+1 < 64; i++ {
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: i + 1, Cost: 3})
	}
	for i := 64; i+1 < 89; i++ {
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: i + 1, Cost: 3})
	}
	for i := 64; i < 89; i++ {
		g.Edges = append(g.Edges, multicut.Edge{U: i, V: (i * 7) % 64, Cost: 0.5}, multicut.Edge{U: i, V: (i*13 + 5) % 64, Cost: 0.5})
	}
	return ts, cam, g, make([]int, len(ts.Tracks))
}

func TestSplitBackgroundPromotesUnexplainedPart(t *testing.T) {
	ts, cam, g, labels := splitScene(10)
	// at β = 0.5 the merged labelling is optimal: every cut would cost
	if e := multicut.Energy(g, labels); e != 0 {
		t.Fatalf("energy of one cluster %v", e)
	}
	out, parts, err := SplitBackground(g, ts, cam, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, 89)
	for i := 64; i < 89; i++ {
		want[i] = 1
	}
	if !slices.Equal(out, want) {
		t.Fatalf("labels %v, want the object (64..88) as cluster 1", out)
	}
	if len(parts) != 1 || parts[0] != (BackgroundPart{Cluster: 1, Parent: 0, Trajectories: 25, Residual: 10, Explained: 0}) {
		t.Fatalf("parts %+v", parts)
	}
	if err := multicut.Feasible(g, out); err != nil {
		t.Fatal(err)
	}
	// the final decision: cluster 0 background, the object not
	_, bg := CameraEvidence(cam, out, 2, BorderShares(ts, out, 2))
	if !slices.Equal(bg, []int{0}) {
		t.Fatalf("background clusters %v, want [0]", bg)
	}
}

func TestSplitBackgroundKeepsExplainedParts(t *testing.T) {
	// δ = 0 is off
	ts, cam, g, labels := splitScene(10)
	if out, parts, _ := SplitBackground(g, ts, cam, labels, 0); !slices.Equal(out, labels) || parts != nil {
		t.Fatalf("δ = 0 changed the labels: %v %v", out, parts)
	}
	// an object that the camera explains stays background, though the
	// shifted costs separate it
	ts, cam, g, labels = splitScene(0.5)
	if out, parts, _ := SplitBackground(g, ts, cam, labels, 1); !slices.Equal(out, labels) || parts != nil {
		t.Fatalf("an explained part was promoted: %v %v", out, parts)
	}
	// a shift too small to cut the +0.5 joins changes nothing
	ts, cam, g, labels = splitScene(10)
	if out, parts, _ := SplitBackground(g, ts, cam, labels, 0.25); !slices.Equal(out, labels) || parts != nil {
		t.Fatalf("δ = 0.25 split: %v %v", out, parts)
	}
}

// The promoted parts' ids are those of the returned, canonical labels:
// with the object's trajectories first, the object is cluster 0 and the
// background, whose id before the split was 0, is cluster 1.
func TestSplitBackgroundLabelsCanonical(t *testing.T) {
	ts, cam, g, labels := splitScene(10)
	// move the object (nodes 64..88) to the front: node v → perm[v]
	perm := make([]int, 89)
	for v := range perm {
		perm[v] = (v + 25) % 89
	}
	pts := &trajectory.TrackSet{Frames: ts.Frames, Tracks: make([]trajectory.Track, 89)}
	pcam := &camera.Motion{Norm: make([][]float32, 89)}
	for v := range perm {
		pts.Tracks[perm[v]], pcam.Norm[perm[v]] = ts.Tracks[v], cam.Norm[v]
	}
	pg := &multicut.Graph{N: 89}
	for _, e := range g.Edges {
		pg.Edges = append(pg.Edges, multicut.Edge{U: perm[e.U], V: perm[e.V], Cost: e.Cost, Lifted: e.Lifted})
	}
	out, parts, err := SplitBackground(pg, pts, pcam, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out, multicut.Canonical(out)) {
		t.Fatalf("labels not canonical: %v", out)
	}
	if out[0] != 0 || out[88] != 1 || multicut.NumClusters(out) != 2 {
		t.Fatalf("labels %v, want the object (nodes 0..24) as 0 and the background as 1", out)
	}
	if len(parts) != 1 || parts[0].Cluster != 0 || parts[0].Parent != 0 || parts[0].Trajectories != 25 {
		t.Fatalf("parts %+v, want the object as cluster 0 from background 0", parts)
	}
}

// SplitGraph lowers by δ exactly the costs inside the cluster that gave
// the promoted part, and the split labels cost −25 on it (the 50 joins of
// +0.5 between object and background cut at 0.5 − 1) against +25 on the
// motion graph.
func TestSplitGraph(t *testing.T) {
	ts, cam, g, labels := splitScene(10)
	out, parts, err := SplitBackground(g, ts, cam, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	sg := SplitGraph(g, labels, parts, 1)
	for i, e := range sg.Edges {
		if want := g.Edges[i].Cost - 1; e.Cost != want || e.U != g.Edges[i].U || e.V != g.Edges[i].V {
			t.Fatalf("edge %d: %+v, want cost %v", i, e, want)
		}
	}
	if e, es := multicut.Energy(g, out), multicut.Energy(sg, out); e != 25 || es != -25 {
		t.Fatalf("energies %v on the motion graph and %v on the split graph, want 25 and −25", e, es)
	}
	// the split labels are a local optimum of the split graph: no moves
	if d, moves := multicut.Descend(sg, out); !slices.Equal(d, out) || moves != 0 {
		t.Fatalf("Descend moved %d nodes: %v", moves, d)
	}
	// a second background cluster that gave no part keeps its costs, and
	// without parts the graph is g itself
	labels2 := slices.Clone(labels)
	labels2[0] = 1 // node 0 alone: its edge 0–1 crosses clusters
	sg = SplitGraph(g, labels2, parts, 1)
	if sg.Edges[0].Cost != 3 || sg.Edges[1].Cost != 2 {
		t.Fatalf("costs %v and %v, want 3 (across clusters) and 2 (inside the split one)", sg.Edges[0].Cost, sg.Edges[1].Cost)
	}
	if SplitGraph(g, labels, nil, 1) != g {
		t.Fatal("SplitGraph without parts is not g")
	}
}
