package eval

import (
	"reflect"
	"testing"
)

// DAVIS J on a 3×3 frame by hand. Ground truth (region 1 = object) and mask
// (value 5 = object):
//
//	0 1 1    0 0 5
//	0 1 1    0 5 5
//	0 0 0    0 5 0
//
// Cluster 0 (mask 0) covers four background pixels and (1,0) of the object,
// cluster 1 (mask 5) three object pixels and (1,2) of the background:
// O = [[4 1] [1 3]], |C| = [5 4], |Ĝ| = [5 4]. The object is region 1,
// its cluster 1: J = 3/(4 + 4 − 3) = 0.6.
func TestJaccardByHand(t *testing.T) {
	fg := foreground{regions: []int{1}, clusters: []int{1}}
	ov := [][]float64{{4, 1}, {1, 3}}
	near(t, "J", fg.jaccard(ov, []float64{5, 4}, []float64{5, 4}), 0.6)
	// The background cluster assigned to the object instead: 1/(4 + 5 − 1).
	near(t, "J with cluster 0", foreground{regions: []int{1}, clusters: []int{0}}.jaccard(ov, []float64{5, 4}, []float64{5, 4}), 1.0/8)
	// A cluster beyond the frame's table is empty there: J = 0/(4 + 0 − 0).
	near(t, "J with a cluster absent from the frame", fg.jaccard(ov[:1], []float64{5}, []float64{5, 4}), 0)
	// No object in the ground truth and no cluster: both unions empty, J = 1.
	near(t, "J of empty unions", foreground{}.jaccard(ov, []float64{5, 4}, []float64{5, 4}), 1)
	near(t, "J of an empty frame", fg.jaccard(nil, nil, []float64{0, 0}), 1)

	// J mean over the frame above and a perfect one (O = [[5 0] [0 4]]):
	// (0.6 + 1)/2.
	perfect := frameAcc{overlap: [][]float64{{5, 0}, {0, 4}}, clusterSize: []float64{5, 4}, regionSize: []float64{5, 4}}
	frames := []frameAcc{{overlap: ov, clusterSize: []float64{5, 4}, regionSize: []float64{5, 4}}, perfect}
	near(t, "J mean", fg.meanJ(frames), 0.8)
}

// The foreground is the visible regions other than 0 and their assigned
// clusters, each once, in increasing order.
func TestNewForeground(t *testing.T) {
	details := []RegionDetail{{Visible: true}, {Visible: true}, {}, {Visible: true}, {Visible: true}}
	// Region 0 (background) on cluster 4, region 1 on 7, region 2 invisible
	// (its cluster ignored), region 3 unassigned, region 4 on 2.
	fg := newForeground(details, []int{4, 7, 9, -1, 2})
	want := foreground{regions: []int{1, 3, 4}, clusters: []int{2, 7}}
	if !reflect.DeepEqual(fg, want) {
		t.Errorf("foreground %+v, want %+v", fg, want)
	}
}

// Masks on two 3×3 frames of TestJaccardByHand's ground truth: the mask
// above, then the ground truth itself. Per frame J = 0.6 and 1, mean 0.8;
// pooled over both frames IoU = (3 + 4)/(8 + 8 − 7) = 7/9. The assignment
// is cluster 5 → region 1 (F = 0.75 against 2·0.2·0.25/0.45 for cluster 0 in
// the first frame).
func TestMasksJaccardByHand(t *testing.T) {
	region := []int{0, 1, 1, 0, 1, 1, 0, 0, 0}
	gt := gtOf([]int{0, 1}, frame(0, 3, 3, region, nil), frame(1, 3, 3, region, nil))
	masks := map[int]*LabelImage{
		0: {Width: 3, Height: 3, Labels: []int{0, 0, 5, 0, 5, 5, 0, 5, 0}},
		1: {Width: 3, Height: 3, Labels: []int{0, 5, 5, 0, 5, 5, 0, 0, 0}},
	}
	r, err := Masks(gt, masks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.RegionDetails[1].Cluster != 1 || r.ClusterLabels[1] != 5 {
		t.Fatalf("region 1 on cluster %d (labels %v), want cluster 1 (label 5)", r.RegionDetails[1].Cluster, r.ClusterLabels)
	}
	near(t, "J mean", r.JMean, 0.8)
	near(t, "pooled IoU", r.IoU, 7.0/9)
	// Per frame: 0.6 and 1. With two frames the benchmark keeps both: J mean
	// 0.8, both above 0.5 (recall 1), and the quarter bins are {0}, {0, 1},
	// {1}, {1}: decay 0.6 − 1.
	if len(r.JFrames) != 2 || r.JFrames[0].Frame != 0 || r.JFrames[1].Frame != 1 {
		t.Fatalf("per-frame J %+v, want frames 0 and 1", r.JFrames)
	}
	near(t, "J of frame 0", r.JFrames[0].J, 0.6)
	near(t, "J of frame 1", r.JFrames[1].J, 1)
	near(t, "benchmark J", r.JMeanBenchmark, 0.8)
	near(t, "J recall", r.JRecall, 1)
	near(t, "J decay", r.JDecay, -0.4)

	// Four frames, the mask of frame 0 on frames 0, 1 and 3 and the ground
	// truth on frame 2: J 0.6, 0.6, 1, 0.6, mean 0.7. The DAVIS 2016
	// benchmark leaves out frames 0 and 3: J mean (0.6 + 1)/2, recall 1,
	// decay 0.6 − 1 as above.
	gt4 := gtOf([]int{0, 1}, frame(0, 3, 3, region, nil), frame(1, 3, 3, region, nil), frame(2, 3, 3, region, nil), frame(3, 3, 3, region, nil))
	masks4 := map[int]*LabelImage{0: masks[0], 1: masks[0], 2: masks[1], 3: masks[0]}
	r4, err := Masks(gt4, masks4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "J mean of four frames", r4.JMean, 0.7)
	near(t, "benchmark J of four frames", r4.JMeanBenchmark, 0.8)
	near(t, "J recall of four frames", r4.JRecall, 1)
	near(t, "J decay of four frames", r4.JDecay, -0.4)
	if len(r4.JFrames) != 4 || r4.JFrames[3].Frame != 3 {
		t.Errorf("per-frame J %+v, want four frames", r4.JFrames)
	}
	// The 2-px-wide object is a thin part (narrower than 5 px) and the band
	// (3 px around it) covers the frame: nothing is left away from it, both
	// unions are empty, J = 1 in both frames.
	if r.JMeanAwayFromThin == nil {
		t.Fatal("no J away from thin parts")
	}
	near(t, "J away from thin parts", *r.JMeanAwayFromThin, 1)
}

// DAVIS recall and decay by hand. Eight frames: the bin boundaries are
// ⌊1 + 7i/4 + ½⌋ − 1 = 0, 2, 4, 5, 7 (1, 2.75, 4.5, 6.25, 8 rounded half up),
// so the first quarter is frames 0–2 (mean 0.8) and the last frames 5–7
// (mean 0.4): decay 0.4. Four frames have J > 0.5 (0.5 itself does not
// count): recall 4/8.
func TestJStatisticsByHand(t *testing.T) {
	recall, decay := JStatistics([]float64{1, 0.8, 0.6, 0.5, 0.2, 0, 0.9, 0.3})
	near(t, "recall of eight frames", recall, 0.5)
	near(t, "decay of eight frames", decay, 0.4)
	// Five frames: boundaries 0, 1, 2, 3, 4, first bin {0, 1}, last {3, 4}.
	recall, decay = JStatistics([]float64{0.9, 0.7, 0.1, 0.2, 0.4})
	near(t, "recall of five frames", recall, 0.4)
	near(t, "decay of five frames", decay, 0.8-0.3)
	// One frame is every bin: no decay.
	recall, decay = JStatistics([]float64{0.7})
	near(t, "recall of one frame", recall, 1)
	near(t, "decay of one frame", decay, 0)
	if recall, decay = JStatistics(nil); recall != 0 || decay != 0 {
		t.Errorf("no frame: recall %v decay %v, want 0, 0", recall, decay)
	}
}
