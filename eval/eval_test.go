package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// frame builds a labelled frame from a row-major region map and probabilities
// (nil: all 1).
func frame(f, w, h int, region []int, prob []float64) dataset.LabelledFrame {
	if prob == nil {
		prob = make([]float64, w*h)
		for i := range prob {
			prob[i] = 1
		}
	}
	return dataset.LabelledFrame{Frame: f, File: "gt.ppm", Width: w, Height: h, Region: region, Prob: prob}
}

func gtOf(colors []int, frames ...dataset.LabelledFrame) *dataset.GroundTruth {
	return &dataset.GroundTruth{Path: "test/Def.dat", Colors: colors, TotalFrames: 10, Frames: frames}
}

// pt makes a one-point track.
func pt(label int, x, y float64, f int) trajectory.Track {
	return trajectory.Track{Label: label, Points: []trajectory.Point{{X: x, Y: y, Frame: f}}}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.10g, want %.10g", what, got, want)
	}
}

// More clusters than regions, an empty cluster (label gap) and a cluster
// whose only point leaves the image, probabilities < 1, double coverage.
//
// Image 4×1: regions 0 0 1 1, probabilities 1 1 1 0.5.
// cluster 0: (0,0) p1, (1.4→1,0) p1, (2.6→3,0) p.5 → size 2.5, O(0)=2, O(1)=.5
// cluster 1: empty (no track); cluster 3: only a point outside the image.
// cluster 2: (2,0) p1, (3,0) p.5 → size 1.5, O(1)=1.5
// |Ĝ0| = 2, |Ĝ1| = 2, |G0| = 2, |G1| = 1.5.
// F(c0,r0) = 2·.8·1/1.8 = .8889, F(c0,r1) = 2·.2·.25/.45 = .2222,
// F(c2,r1) = 2·1·.75/1.75 = .8571. Best: c0→r0, c2→r1; c1, c3 on padding.
// P̄ = (.8+1)/2 = .9, R̄ = (1+.75)/2 = .875, F = 2·.9·.875/1.775.
func TestMoreClustersThanRegions(t *testing.T) {
	gt := gtOf([]int{0, 255}, frame(0, 4, 1, []int{0, 0, 1, 1}, []float64{1, 1, 1, 0.5}))
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{
		pt(0, 0, 0, 0), pt(0, 1.4, 0, 0), pt(2, 2, 0, 0), pt(2, 3, 0, 0), pt(0, 2.6, 0, 0),
		pt(3, 4.5, 0, 0), // rounds to x = 5: outside, ignored
		pt(3, 1, 1.5, 0), // y = 2 outside
		pt(0, 1, 0, 1),   // frame 1 is not labelled
	}}
	r, err := Sequence(gt, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P", r.Precision, 0.9)
	near(t, "R", r.Recall, 0.875)
	near(t, "F", r.F, 2*0.9*0.875/1.775)
	if r.Objects != 1 || r.Visible != 1 || r.Clusters != 4 || r.Regions != 2 {
		t.Errorf("objects %d visible %d clusters %d regions %d, want 1 1 4 2", r.Objects, r.Visible, r.Clusters, r.Regions)
	}
	near(t, "density", r.Density, 100)                                 // 4 distinct pixels of 4
	near(t, "avg region density", r.AvgRegionDensity, 100*(1+2/1.5)/2) // double coverage counts
	near(t, "IoU", r.IoU, 1.5/(2+1.5-1.5))
	want := []struct {
		c, reg  int
		counted bool
	}{{0, 0, true}, {1, -1, false}, {2, 1, true}, {3, -1, false}}
	for i, w := range want {
		p := r.Pairs[i]
		if p.Cluster != w.c || p.Region != w.reg || p.Counted != w.counted {
			t.Errorf("pair %d = %+v, want cluster %d region %d counted %v", i, p, w.c, w.reg, w.counted)
		}
	}
	near(t, "F(c0,r0)", r.RegionDetails[0].F, 2*0.8/1.8)
	near(t, "F(c2,r1)", r.RegionDetails[1].F, 2*0.75/1.75)

	// Threshold: extracted objects are pairs with F > threshold, minus 1.
	for _, c := range []struct {
		thr  float64
		objs int
	}{{0.85, 1}, {0.86, 0}, {0.5, 1}, {0.95, 0}} {
		r, _ := Sequence(gt, ts, Options{Threshold: c.thr})
		if r.Objects != c.objs {
			t.Errorf("threshold %.2f: %d objects, want %d", c.thr, r.Objects, c.objs)
		}
	}
}

// More regions than clusters: 3×1 image, regions 0 1 2, one cluster on the
// first two pixels. F(c0,r0) = F(c0,r1) = 2/3; the assignment gives c0→r0
// (tie broken as libhungarian does), the two padding clusters count P=1, R=0:
// P̄ = (.5+1+1)/3 = 5/6, R̄ = 1/3, F = 10/21.
func TestMoreRegionsThanClusters(t *testing.T) {
	gt := gtOf([]int{0, 1, 2}, frame(0, 3, 1, []int{0, 1, 2}, nil))
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{pt(0, 0, 0, 0), pt(0, 1, 0, 0)}}
	r, err := Sequence(gt, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P", r.Precision, 5.0/6)
	near(t, "R", r.Recall, 1.0/3)
	near(t, "F", r.F, 10.0/21)
	if r.Objects != 0 || r.Visible != 2 {
		t.Errorf("objects %d visible %d, want 0 2", r.Objects, r.Visible)
	}
	near(t, "density", r.Density, 200.0/3)
	near(t, "avg region density", r.AvgRegionDensity, 200.0/3)
	if r.Pairs[0].Region != 0 || r.RegionDetails[0].Cluster != 0 {
		t.Errorf("cluster 0 assigned to region %d, want 0", r.Pairs[0].Region)
	}
	if r.Pairs[1].Label != -1 || r.Pairs[1].Precision != 1 || r.Pairs[1].Recall != 0 || !r.Pairs[1].Counted {
		t.Errorf("padding pair %+v", r.Pairs[1])
	}
}

// An empty cluster from a label gap takes part in the assignment as in
// MoSegEval (labels 0 and 2 → 3 clusters for 3 regions): region 2, not
// covered, is matched to the empty cluster with P = R = 0: P̄ = R̄ = 2/3.
// With compact labels there are 2 clusters and region 2 gets a padding
// cluster, P = 1: P̄ = 1, R̄ = 2/3, F = .8.
func TestEmptyClusterFromLabelGap(t *testing.T) {
	gt := gtOf([]int{0, 1, 2}, frame(0, 3, 1, []int{0, 1, 2}, nil))
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{pt(0, 0, 0, 0), pt(2, 1, 0, 0)}}
	r, err := Sequence(gt, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P", r.Precision, 2.0/3)
	near(t, "R", r.Recall, 2.0/3)
	near(t, "F", r.F, 2.0/3)
	if r.Objects != 1 || r.Clusters != 3 {
		t.Errorf("objects %d clusters %d, want 1 3", r.Objects, r.Clusters)
	}
	r, err = Sequence(gt, ts, Options{CompactLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "compact P", r.Precision, 1)
	near(t, "compact R", r.Recall, 2.0/3)
	near(t, "compact F", r.F, 0.8)
	if !reflect.DeepEqual(r.ClusterLabels, []int{0, 2}) {
		t.Errorf("cluster labels %v", r.ClusterLabels)
	}
	// Negative labels need compact labels.
	ts.Tracks[0].Label = -1
	if _, err := Sequence(gt, ts, Options{}); err == nil {
		t.Error("negative label accepted")
	}
	if r, err := Sequence(gt, ts, Options{CompactLabels: true}); err != nil || r.Clusters != 2 {
		t.Errorf("compact with negative label: %v", err)
	}
}

// Perfect segmentation over two labelled frames: F = 1 and objects =
// regions − 1. Region 2 only appears in the labelled frame 5, beyond the
// evaluated length 3, so it is invisible and dropped (otherwise a padding
// cluster would lower R̄ to 2/3). A region of total probability < 1e-4
// (region 3: one pixel of probability 5e-5) is dropped the same way.
func TestPerfectAndInvisible(t *testing.T) {
	reg := []int{0, 0, 1, 1, 0, 1}
	gt := gtOf([]int{0, 10, 20, 30},
		frame(0, 3, 2, reg, nil),
		frame(2, 3, 2, reg, []float64{1, 1, 1, 1, 1, 1}),
		frame(5, 3, 2, []int{2, 2, 2, 2, 2, 2}, nil))
	// region 3: one pixel of probability 0.00005 in frame 2
	gt.Frames[1].Region = []int{0, 0, 1, 1, 3, 1}
	gt.Frames[1].Prob = []float64{1, 1, 1, 1, 0.00005, 1}
	ts := &trajectory.TrackSet{Frames: 3}
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			tr := trajectory.Track{Label: reg[y*3+x]}
			for f := 0; f < 3; f++ {
				tr.Points = append(tr.Points, trajectory.Point{X: float64(x) + 0.2, Y: float64(y) - 0.3, Frame: f})
			}
			ts.Tracks = append(ts.Tracks, tr)
		}
	}
	r, err := Sequence(gt, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.LabelledFrames != 2 || r.Regions != 2 || r.Visible != 1 || r.Objects != 1 {
		t.Errorf("frames %d regions %d visible %d objects %d, want 2 2 1 1", r.LabelledFrames, r.Regions, r.Visible, r.Objects)
	}
	// The track on the invisible pixel still adds 0.00005 to its cluster's
	// size (as in MoSegEval): P(c0,r0) = 5/5.00005.
	p0 := 5 / 5.00005
	near(t, "P", r.Precision, (p0+1)/2)
	near(t, "R", r.Recall, 1)
	near(t, "F", r.F, 2*(p0+1)/2/((p0+1)/2+1))
	near(t, "IoU", r.IoU, 1)
	near(t, "J", r.JMean, 1)
	near(t, "density", r.Density, 100)
	if r.RegionDetails[2].Visible || r.RegionDetails[3].Visible {
		t.Error("regions 2 and 3 should be invisible")
	}
	// Evaluating all frames makes region 2 visible: 3 regions, 2 clusters.
	r, _ = Sequence(gt, ts, Options{EvalFrames: -1})
	if r.LabelledFrames != 3 || r.Regions != 3 {
		t.Errorf("all frames: %d frames %d regions", r.LabelledFrames, r.Regions)
	}
	near(t, "all frames R", r.Recall, 2.0/3)
	// MoSegEval keeps a labelled frame whose number equals the evaluated
	// length (it stops at frame > E): with E = 2 both frames 0 and 2 count.
	r, _ = Sequence(gt, ts, Options{EvalFrames: 2})
	if r.LabelledFrames != 2 {
		t.Errorf("E=2 used %d labelled frames, want 2", r.LabelledFrames)
	}
	r, _ = Sequence(gt, ts, Options{EvalFrames: 1})
	if r.LabelledFrames != 1 {
		t.Errorf("E=1 used %d labelled frames, want 1", r.LabelledFrames)
	}
}

func TestRoundCoord(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int
	}{{0.49, 0}, {0.5, 1}, {2.5, 3}, {-0.7, 0}, {-1.4, 0}, {-1.6, -1}, {7.999, 8}} {
		if got, ok := roundCoord(c.x); !ok || got != c.want {
			t.Errorf("round(%g) = %d, want %d", c.x, got, c.want)
		}
	}
	if _, ok := roundCoord(math.NaN()); ok {
		t.Error("NaN accepted")
	}
	// A track slightly left of the image (x = −0.7) lands on pixel 0, as in MoSegEval.
	gt := gtOf([]int{0, 1}, frame(0, 2, 1, []int{0, 1}, nil))
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{pt(0, -0.7, 0, 0), pt(1, 1, 0, 0)}}
	r, _ := Sequence(gt, ts, Options{})
	near(t, "F", r.F, 1)
}

func TestErrors(t *testing.T) {
	gt := gtOf([]int{0, 1}, frame(3, 2, 1, []int{0, 1}, nil))
	ts := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{pt(0, 0, 0, 0)}}
	if _, err := Sequence(gt, ts, Options{}); err == nil {
		t.Error("no labelled frame in range: no error")
	}
	bad := gtOf([]int{0, 1}, frame(0, 2, 1, []int{0, 2}, nil))
	if _, err := Sequence(bad, ts, Options{}); err == nil {
		t.Error("region out of range: no error")
	}
	bad = gtOf([]int{0, 1}, frame(0, 3, 1, []int{0, 1}, nil))
	if _, err := Sequence(bad, ts, Options{}); err == nil {
		t.Error("size mismatch: no error")
	}
	ok := gtOf([]int{0, 1}, frame(0, 2, 1, []int{0, 1}, nil))
	if _, err := Masks(ok, map[int]*LabelImage{0: {Width: 3, Height: 1, Labels: []int{0, 0, 0}}}, Options{}); err == nil {
		t.Error("mask size mismatch: no error")
	}
	// No clusters at all: every region on a padding cluster, P = 1, R = 0.
	r, err := Sequence(ok, &trajectory.TrackSet{Frames: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P", r.Precision, 1)
	near(t, "R", r.Recall, 0)
	near(t, "F", r.F, 0)
}

// Two sequences aggregated as MoSegEvalAllPR: means of P̄ and R̄, F from the
// means, summed objects and visible objects, population std devs.
func TestDatasetAggregation(t *testing.T) {
	a := &Result{Precision: 0.9, Recall: 0.875, Objects: 1, Visible: 1, AvgRegionDensity: 50, Density: 10, JMean: 0.8, JMeanBenchmark: 0.9, JRecall: 1, JDecay: -0.4}
	b := &Result{Precision: 5.0 / 6, Recall: 1.0 / 3, Objects: 0, Visible: 2, AvgRegionDensity: 70, Density: 30, JMean: 0.4, JMeanBenchmark: 0.5, JRecall: 0.5, JDecay: 0.2}
	s := Dataset([]string{"a", "skipped", "b"}, []*Result{a, nil, b})
	p, r := (0.9+5.0/6)/2, (0.875+1.0/3)/2
	near(t, "P", s.Precision, p)
	near(t, "R", s.Recall, r)
	near(t, "F", s.F, 2*p*r/(p+r))
	near(t, "P std", s.PrecisionStd, (0.9-5.0/6)/2)
	near(t, "R std", s.RecallStd, (0.875-1.0/3)/2)
	near(t, "avg region density", s.AvgRegionDensity, 60)
	near(t, "density", s.Density, 20)
	near(t, "J", s.JMean, 0.6)
	near(t, "benchmark J", s.JMeanBenchmark, 0.7)
	near(t, "J recall", s.JRecall, 0.75)
	near(t, "J decay", s.JDecay, -0.1)
	if s.Count != 2 || s.Objects != 1 || s.Visible != 3 || s.Sequences[1].Name != "b" {
		t.Errorf("count %d objects %d visible %d seqs %v", s.Count, s.Objects, s.Visible, s.Sequences)
	}
	if e := Dataset(nil, nil); e.Count != 0 || e.F != 0 {
		t.Errorf("empty dataset %+v", e)
	}
}

// The dense path equals the track path on one-point-per-pixel tracks.
func TestMasksEqualTracks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w, h := 9, 6
	values := []int{0, 17, 255, 3}
	var frames []dataset.LabelledFrame
	masks := map[int]*LabelImage{}
	ts := &trajectory.TrackSet{Frames: 20}
	for _, f := range []int{0, 4, 9} {
		reg := make([]int, w*h)
		prob := make([]float64, w*h)
		m := &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}
		for i := range reg {
			reg[i] = rng.IntN(4) - 1 // includes −1: colour not a region → region 0
			prob[i] = float64(rng.IntN(256)) / 255
			m.Labels[i] = values[rng.IntN(len(values))]
			if rng.IntN(3) > 0 { // correlate with the GT
				m.Labels[i] = values[max(reg[i], 0)]
			}
			ts.Tracks = append(ts.Tracks, pt(m.Labels[i], float64(i%w), float64(i/w), f))
		}
		frames = append(frames, frame(f, w, h, reg, prob))
		masks[f] = m
	}
	gt := gtOf([]int{0, 1, 2}, frames...)
	opt := Options{EvalFrames: -1, CompactLabels: true}
	rt, err := Sequence(gt, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := Masks(gt, masks, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Masks also score J away from thin object parts, with them and without
	// the object's holes; tracks do not.
	if rm.JMeanAwayFromThin == nil || rt.JMeanAwayFromThin != nil || rm.JMeanWithThinParts == nil || rt.JMeanWithThinParts != nil ||
		rm.JMeanWithoutHoles == nil || rt.JMeanWithoutHoles != nil {
		t.Fatalf("J away from thin parts: tracks %v, masks %v; with them: tracks %v, masks %v; without holes: tracks %v, masks %v",
			rt.JMeanAwayFromThin, rm.JMeanAwayFromThin, rt.JMeanWithThinParts, rm.JMeanWithThinParts, rt.JMeanWithoutHoles, rm.JMeanWithoutHoles)
	}
	same := *rm
	same.JMeanAwayFromThin, same.JMeanWithThinParts, same.JMeanWithoutHoles = nil, nil, nil
	if !reflect.DeepEqual(rt, &same) {
		t.Errorf("tracks %+v\nmasks  %+v", rt, rm)
	}
	if rm.F <= 0.3 || rm.F >= 1 || !reflect.DeepEqual(rm.ClusterLabels, []int{0, 3, 17, 255}) {
		t.Errorf("F %.3f labels %v", rm.F, rm.ClusterLabels)
	}
	near(t, "density", rm.Density, 100)
}

// BenchmarkSequence scores 20000 synthetic tracks of 30 frames against 7
// labelled 640×480 frames with 4 regions (sparse path).
func BenchmarkSequence(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	w, h := 640, 480
	var frames []dataset.LabelledFrame
	for f := 0; f < 30; f += 5 {
		reg := make([]int, w*h)
		for i := range reg {
			reg[i] = (i % w) * 4 / w
		}
		frames = append(frames, frame(f, w, h, reg, nil))
	}
	gt := gtOf([]int{0, 1, 2, 3}, frames...)
	ts := &trajectory.TrackSet{Frames: 30}
	for i := 0; i < 20000; i++ {
		x, y := rng.Float64()*float64(w), rng.Float64()*float64(h)
		tr := trajectory.Track{Label: int(x) * 4 / w}
		if rng.IntN(10) == 0 {
			tr.Label = rng.IntN(6)
		}
		for f := 0; f < 30; f++ {
			tr.Points = append(tr.Points, trajectory.Point{X: x + float64(f), Y: y, Frame: f})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	for b.Loop() {
		if _, err := Sequence(gt, ts, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ts.Tracks)*b.N)/b.Elapsed().Seconds(), "tracks/s")
}

// The reduced assignment table (used beyond exactSide clusters) finds the
// same optimum as the full one: random instances with label gaps (empty
// clusters of the MoSegEval numbering) and continuous probabilities (no ties
// in int(F·10000)), scored with the full table and with exactSide = 0.
func TestReducedAssignmentMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 200; it++ {
		w, h, nR := 8, 6, 2+rng.IntN(4)
		colors := make([]int, nR)
		for j := range colors {
			colors[j] = 10 * j
		}
		var frames []dataset.LabelledFrame
		for f := 0; f < 2; f++ {
			reg := make([]int, w*h)
			prob := make([]float64, w*h)
			for i := range reg {
				reg[i] = rng.IntN(nR)
				prob[i] = 0.05 + 0.95*rng.Float64()
			}
			frames = append(frames, frame(f, w, h, reg, prob))
		}
		gt := gtOf(colors, frames...)
		ts := &trajectory.TrackSet{Frames: 2}
		nL := 1 + rng.IntN(8)
		for i := 0; i < 30; i++ {
			ts.Tracks = append(ts.Tracks, pt(3*rng.IntN(nL), float64(rng.IntN(w)), float64(rng.IntN(h)), rng.IntN(2)))
		}
		for _, compact := range []bool{false, true} {
			opt := Options{CompactLabels: compact}
			full, err := Sequence(gt, ts, opt)
			if err != nil {
				t.Fatal(err)
			}
			exactSide = 0
			red, err := Sequence(gt, ts, opt)
			exactSide = 1024
			if err != nil {
				t.Fatal(err)
			}
			if full.Precision != red.Precision || full.Recall != red.Recall || full.Objects != red.Objects || full.Clusters != red.Clusters {
				t.Fatalf("instance %d compact=%v: full P %v R %v objects %d clusters %d, reduced P %v R %v objects %d clusters %d",
					it, compact, full.Precision, full.Recall, full.Objects, full.Clusters, red.Precision, red.Recall, red.Objects, red.Clusters)
			}
		}
	}
}

// A label of 40000 (MoSegEval: 40001 clusters, 39999 of them empty) no longer
// allocates a 40001² table: the result equals that of the full table with
// the same regime, and absurd cluster counts are refused.
func TestLargeLabelsBoundedMemory(t *testing.T) {
	gt := gtOf([]int{0, 1, 2}, frame(0, 3, 1, []int{0, 1, 2}, nil))
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{pt(0, 0, 0, 0), pt(40000, 1, 0, 0)}}
	r, err := Sequence(gt, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// As TestEmptyClusterFromLabelGap: region 2 on an empty cluster, P = R = 0.
	near(t, "P", r.Precision, 2.0/3)
	near(t, "R", r.Recall, 2.0/3)
	if r.Clusters != 40001 || len(r.Pairs) > 5 {
		t.Errorf("clusters %d, %d pairs", r.Clusters, len(r.Pairs))
	}
	ts.Tracks = ts.Tracks[:0]
	for i := 0; i <= MaxClusters; i++ {
		ts.Tracks = append(ts.Tracks, pt(i, 0, 0, 0))
	}
	if _, err := Sequence(gt, ts, Options{}); err == nil || !strings.Contains(err.Error(), "more than 65536 distinct track labels") {
		t.Errorf("65537 clusters: %v", err)
	}
	// A "mask" with one colour per pixel beyond the limit.
	big := gtOf([]int{0}, frame(0, 300, 300, make([]int, 90000), nil))
	m := &LabelImage{Width: 300, Height: 300, Labels: make([]int, 90000)}
	for i := range m.Labels {
		m.Labels[i] = i
	}
	if _, err := Masks(big, map[int]*LabelImage{0: m}, Options{}); err == nil || !strings.Contains(err.Error(), "more than 65536 distinct label values") {
		t.Errorf("90000 colours: %v", err)
	}
}

// TestMasksJWithoutHoles: a 12×10 frame whose object is a ring, the
// border of the square x 2–8, y 2–8 three pixels wide (49 − 9 = 40 px),
// around a 3×3 hole (x 4–6, y 4–6; morph.Holes).
//   - A mask of the filled square (49 px): J = 40/49; without the hole's
//     pixels the union is 40, J = 1.
//   - The filled square and a 2×2 patch outside (x 10–11, y 0–1): J =
//     40/53; without the hole 40/44.
//   - The ring's left half (x 2–4, y 2–8, 21 px, 3 of them in the hole):
//     J = 18/43; without the hole 18/40.
//
// Second frame: no object and an empty mask, J = 1 in both.
func TestMasksJWithoutHoles(t *testing.T) {
	const w, h = 12, 10
	reg := make([]int, w*h)
	for y := 2; y <= 8; y++ {
		for x := 2; x <= 8; x++ {
			if x < 4 || x > 6 || y < 4 || y > 6 {
				reg[y*w+x] = 1
			}
		}
	}
	square := &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}
	paint(square, 2, 2, 8, 8)
	half := &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}
	paint(half, 2, 2, 4, 8)
	patched := &LabelImage{Width: w, Height: h, Labels: slices.Clone(square.Labels)}
	paint(patched, 10, 0, 11, 1)
	gt, empty, opt := oneObjectFrame(reg, w, h)
	for _, c := range []struct {
		name     string
		mask     *LabelImage
		j, jHole float64
	}{
		{"filled square", square, 40.0 / 49, 1},
		{"square and patch", patched, 40.0 / 53, 40.0 / 44},
		{"left half", half, 18.0 / 43, 18.0 / 40},
	} {
		r, err := Masks(gt, map[int]*LabelImage{0: c.mask, 1: empty}, opt)
		if err != nil {
			t.Fatal(err)
		}
		near(t, c.name+": J", r.JMean, (c.j+1)/2)
		if r.JMeanWithoutHoles == nil {
			t.Fatalf("%s: no J without the holes", c.name)
		}
		near(t, c.name+": J without the holes", *r.JMeanWithoutHoles, (c.jHole+1)/2)
		reportHas(t, c.name, r, fmt.Sprintf("J mean with the object's holes taken out of the masks (a bound): %.2f %%", 50*(c.jHole+1)))
	}
}

// paint sets the mask's pixels x0…x1 × y0…y1 to 255.
func paint(m *LabelImage, x0, y0, x1, y1 int) {
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			m.Labels[y*m.Width+x] = 255
		}
	}
}

// oneObjectFrame is the ground truth of the mask tests: frame 0 with the
// regions reg (w×h), frame 1 without an object; an empty mask for frame 1;
// the options that score every frame.
func oneObjectFrame(reg []int, w, h int) (*dataset.GroundTruth, *LabelImage, Options) {
	gt := gtOf([]int{0, 255}, frame(0, w, h, reg, nil), frame(1, w, h, make([]int, w*h), nil))
	return gt, &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}, Options{EvalFrames: -1, CompactLabels: true}
}

// reportHas checks that WriteReport of r has every line of want.
func reportHas(t *testing.T, name string, r *Result, want ...string) {
	t.Helper()
	var b strings.Builder
	if err := WriteReport(&b, "test", r); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("%s: report lacks %q:\n%s", name, w, b.String())
		}
	}
}

// TestMasksJAwayFromThinParts: a 20×12 frame whose object is a 6×6 block
// (x 2–7, y 2–7, 36 px) with a 1-px line leaving it (x 8–19, y 4, 12 px).
// The band (morph.ThinPartsBand) is the line and the pixels within 3 px of
// it off the block: x 8–19 × y 1–7 and x 5–7 at y 1 (87 px).
//   - A mask of the block alone: J = 36/48 = 0.75; away from the band the
//     object is the block, J = 1.
//   - A mask of the block and a 4×3 patch beside the line (x 12–15,
//     y 5–7, in the band) and a 2×2 patch far from it (x 0–1, y 10–11):
//     J = 36/(48 + 12 + 4) = 0.5625; away from the band 36/(36 + 4) = 0.9.
//
// With the thin parts (the line: the block is its own opening) added to the
// masks (JMeanWithThinParts): the block alone becomes the object, J = 1;
// the patched mask (36 + 12)/64 = 0.75, its union unchanged.
//
// Second frame: no object, an empty mask: J = 1 in all three.
func TestMasksJAwayFromThinParts(t *testing.T) {
	const w, h = 20, 12
	reg := make([]int, w*h)
	for y := 2; y <= 7; y++ {
		for x := 2; x <= 7; x++ {
			reg[y*w+x] = 1
		}
	}
	for x := 8; x < w; x++ {
		reg[4*w+x] = 1
	}
	block := &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}
	paint(block, 2, 2, 7, 7)
	patched := &LabelImage{Width: w, Height: h, Labels: slices.Clone(block.Labels)}
	paint(patched, 12, 5, 15, 7)
	paint(patched, 0, 10, 1, 11)
	gt, empty, opt := oneObjectFrame(reg, w, h)
	for _, c := range []struct {
		name            string
		mask            *LabelImage
		j, jAway, jThin float64
	}{{"block", block, 0.75, 1, 1}, {"block and patches", patched, 0.5625, 0.9, 0.75}} {
		r, err := Masks(gt, map[int]*LabelImage{0: c.mask, 1: empty}, opt)
		if err != nil {
			t.Fatal(err)
		}
		near(t, c.name+": J", r.JMean, (c.j+1)/2)
		if r.JMeanAwayFromThin == nil {
			t.Fatalf("%s: no J away from thin parts", c.name)
		}
		near(t, c.name+": J away from thin parts", *r.JMeanAwayFromThin, (c.jAway+1)/2)
		if r.JMeanWithThinParts == nil {
			t.Fatalf("%s: no J with the thin parts", c.name)
		}
		near(t, c.name+": J with the thin parts", *r.JMeanWithThinParts, (c.jThin+1)/2)
		reportHas(t, c.name, r,
			fmt.Sprintf("J mean away from object parts thinner than 5 px: %.2f %%", 50*(c.jAway+1)),
			fmt.Sprintf("J mean with every object part thinner than 5 px added to the masks (a bound): %.2f %%", 50*(c.jThin+1)))
	}
}
