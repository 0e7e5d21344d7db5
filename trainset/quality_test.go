package trainset

import (
	"math"
	"reflect"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/morph"
)

func TestScoreLabelsHandComputed(t *testing.T) {
	// 4×1 frame: ground truth  bg fg fg ?   (region −1 at pixel 3)
	// labels:                   fg fg bg fg  (pixel 3 not counted)
	// hard:                      1  0  1  0
	U := Unlabelled
	set := &Set{Width: 4, Height: 1, Frames: []Frame{
		{Frame: 2, Labels: []int16{1, 1, 0, 1}, Hard: []uint8{1, 0, 1, 0}, Length: []uint16{3, 40, 0, 2}},
		{Frame: 3, Labels: []int16{U, U, U, U}}, // no labels: not counted
		{Frame: 7, Labels: []int16{1, 1, 1, 1}}, // no ground truth for frame 7
	}}
	gt := &dataset.GroundTruth{Frames: []dataset.LabelledFrame{
		{Frame: 2, Width: 4, Height: 1, Region: []int{0, 1, 1, -1}},
		{Frame: 3, Width: 4, Height: 1, Region: []int{0, 0, 1, 0}},
	}}
	q := ScoreLabels(set, gt)
	// labelled: TP 1 (pixel 1), FP 1 (pixel 0), FN 1 (pixel 2), TN 0
	want := LabelScores{Pixels: 3, Precision: 0.5, Recall: 0.5, IoU: 1.0 / 3, Accuracy: 1.0 / 3}
	if !near(q.Labelled, want) {
		t.Errorf("labelled %+v, want %+v", q.Labelled, want)
	}
	// hard: pixel 0 (FP) and pixel 2 (FN): TP 0
	wantH := LabelScores{Pixels: 2, Precision: 0, Recall: 0, IoU: 0, Accuracy: 0}
	if !near(q.Hard, wantH) {
		t.Errorf("hard %+v, want %+v", q.Hard, wantH)
	}
	if q.Frames != 1 {
		t.Errorf("frames %d, want 1", q.Frames)
	}
	// per frame: frame 2's object is pixels 1 and 2 (pixel 3's colour is
	// unknown), labelled object at 1 and background at 2, object off it at
	// 0; frame 3 shows a one-pixel object and has no label; frame 7 has no
	// ground truth.
	wantF := []FrameLabels{{Frame: 2, ObjectPixels: 2, ObjectLabels: 1, BackgroundLabels: 1, ObjectLabelsOff: 1}, {Frame: 3, ObjectPixels: 1}}
	if !reflect.DeepEqual(q.ByFrame, wantF) {
		t.Errorf("by frame %+v, want %+v", q.ByFrame, wantF)
	}
	if u := q.UnlabelledObjectFrames(); !reflect.DeepEqual(u, []int{3}) {
		t.Errorf("frames whose object has no object label %v, want [3]", u)
	}
	// by trajectory length: pixel 0 (FP) on a trajectory of 3 points,
	// pixel 1 (TP) of 40; pixel 2 is an added point (length 0), pixel 3
	// has no ground truth.
	wantL := []LengthScores{
		{MinPoints: 2, MaxPoints: 3, LabelScores: LabelScores{Pixels: 1, Precision: 0, Recall: 1, IoU: 0, Accuracy: 0}},
		{MinPoints: 32, LabelScores: LabelScores{Pixels: 1, Precision: 1, Recall: 1, IoU: 1, Accuracy: 1}},
	}
	if len(q.ByLength) != len(wantL) {
		t.Fatalf("by length %+v, want %+v", q.ByLength, wantL)
	}
	for i, l := range q.ByLength {
		if l.MinPoints != wantL[i].MinPoints || l.MaxPoints != wantL[i].MaxPoints || !near(l.LabelScores, wantL[i].LabelScores) {
			t.Errorf("by length %d: %+v, want %+v", i, l, wantL[i])
		}
	}
	for n, want := range map[int]int{1: 0, 2: 1, 3: 1, 4: 2, 31: 4, 32: 5, 1000: 5} {
		if got := lengthBin(n); got != want {
			t.Errorf("lengthBin(%d) = %d, want %d", n, got, want)
		}
	}
	// the file round trip
	dir := t.TempDir()
	if err := WriteLabelQuality(dir, q); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadLabelQuality(dir); err != nil || !reflect.DeepEqual(back, q) {
		t.Errorf("label quality file: %+v, %v; want %+v", back, err, q)
	}
	// a file written before the scores away from thin parts existed reads
	// back without them (nil, not zero scores)
	q.AwayFromThin = nil
	if err := WriteLabelQuality(dir, q); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadLabelQuality(dir); err != nil || back.AwayFromThin != nil {
		t.Errorf("old label quality file: %+v, %v", back.AwayFromThin, err)
	}
	// no pixels at all: every ratio is 1 by definition
	if e := ScoreLabels(&Set{Width: 4, Height: 1}, gt); e.Labelled.IoU != 1 || e.Labelled.Pixels != 0 {
		t.Errorf("empty set: %+v", e)
	}
}

func TestScoresAwayFromThinParts(t *testing.T) {
	// 20×12 frame: the object is a 6×6 block (x 2–7, y 2–7) with a line one
	// pixel wide leaving it to the right (x 8–19, y 4). The opening by the
	// 5×5 square keeps the block (its erosion is x 4–5, y 4–5; (6,4) sees
	// (8,3)) and drops the line. The band is the line and every pixel
	// within 3 px of it off the block: x 8–19 × y 1–7 (84) and x 5–7 at
	// y 1 (3).
	const W, H = 20, 12
	region := make([]int, W*H)
	fg := make([]bool, W*H)
	for y := 2; y <= 7; y++ {
		for x := 2; x <= 7; x++ {
			region[y*W+x], fg[y*W+x] = 1, true
		}
	}
	for x := 8; x < W; x++ {
		region[4*W+x], fg[4*W+x] = 1, true
	}
	band := morph.ThinPartsBand(fg, W, H)
	n := 0
	for i, b := range band {
		x, y := i%W, i/W
		in := (x >= 8 && y >= 1 && y <= 7) || (x >= 5 && x <= 7 && y == 1)
		if b != in {
			t.Errorf("band at (%d,%d) = %v, want %v", x, y, b, in)
		}
		if b {
			n++
		}
	}
	if n != 87 {
		t.Errorf("band of %d pixels, want 87", n)
	}
	// Labels: TP (4,4) on the block, FN (3,6) on the block, FN (12,4) on
	// the line, FP (12,6) beside the line, FP (15,10) far from it, TN (0,0).
	labels := make([]int16, W*H)
	for i := range labels {
		labels[i] = Unlabelled
	}
	for _, l := range []struct {
		x, y int
		c    int16
	}{{4, 4, 1}, {3, 6, 0}, {12, 4, 0}, {12, 6, 1}, {15, 10, 1}, {0, 0, 0}} {
		labels[l.y*W+l.x] = l.c
	}
	q := ScoreLabels(&Set{Width: W, Height: H, Frames: []Frame{{Frame: 0, Labels: labels}}},
		&dataset.GroundTruth{Frames: []dataset.LabelledFrame{{Frame: 0, Width: W, Height: H, Region: region}}})
	// all: TP 1, FP 2, FN 2, TN 1; away from the line: TP 1, FP 1, FN 1, TN 1
	if want := (LabelScores{Pixels: 6, Precision: 1.0 / 3, Recall: 1.0 / 3, IoU: 0.2, Accuracy: 2.0 / 6}); !near(q.Labelled, want) {
		t.Errorf("labelled %+v, want %+v", q.Labelled, want)
	}
	if want := (LabelScores{Pixels: 4, Precision: 0.5, Recall: 0.5, IoU: 1.0 / 3, Accuracy: 0.5}); q.AwayFromThin == nil || !near(*q.AwayFromThin, want) {
		t.Errorf("away from thin parts %+v, want %+v", q.AwayFromThin, want)
	}
}

func near(a, b LabelScores) bool {
	return a.Pixels == b.Pixels && math.Abs(a.Precision-b.Precision) < 1e-12 && math.Abs(a.Recall-b.Recall) < 1e-12 &&
		math.Abs(a.IoU-b.IoU) < 1e-12 && math.Abs(a.Accuracy-b.Accuracy) < 1e-12
}

func TestBackgroundClustersOverrideBorderRule(t *testing.T) {
	in := fixture()
	opt := bare()
	// every cluster but the largest is called background by the camera
	var clusters []int
	seen := map[int]bool{}
	for _, tr := range in.Tracks.Tracks {
		if !seen[tr.Label] {
			seen[tr.Label] = true
			clusters = append(clusters, tr.Label)
		}
	}
	if len(clusters) < 2 {
		t.Fatalf("need ≥ 2 clusters, have %v", clusters)
	}
	opt.BackgroundClusters = clusters[1:]
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Segments {
		wantBG := s.Cluster != clusters[0]
		if (s.Class == 0) != wantBG {
			t.Errorf("cluster %d: class %d, background %v", s.Cluster, s.Class, wantBG)
		}
	}
	opt.BackgroundClusters = []int{12345}
	if _, err := Prepare(in, opt); err == nil {
		t.Error("a background cluster that does not exist was accepted")
	}
}

func TestFrameSpans(t *testing.T) {
	for _, c := range []struct {
		fs   []int
		want string
	}{
		{nil, ""},
		{[]int{5}, "5"},
		{[]int{16, 17, 18, 22, 62, 63, 64}, "16–18, 22, 62–64"},
		{[]int{0, 2, 3}, "0, 2–3"},
	} {
		if got := FrameSpans(c.fs); got != c.want {
			t.Errorf("FrameSpans(%v) = %q, want %q", c.fs, got, c.want)
		}
	}
}
