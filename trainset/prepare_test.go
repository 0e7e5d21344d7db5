package trainset

import (
	"image"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trajectory"
)

func track(label int, x, y float64, frames ...int) trajectory.Track {
	t := trajectory.Track{Label: label}
	for _, f := range frames {
		t.Points = append(t.Points, trajectory.Point{X: x, Y: y, Frame: f})
	}
	return t
}

// A 40x30 sequence: background cluster 5 along the border, moving cluster 7
// in the middle with uncertainties 0.1, 0.5, 0.9 (μ = 0.5).
func fixture() Input {
	ts := &trajectory.TrackSet{Frames: 2}
	for x := 2.0; x < 40; x += 4 {
		ts.Tracks = append(ts.Tracks, track(5, x, 1, 0, 1))
	}
	ts.Tracks = append(ts.Tracks, track(7, 20, 14, 0, 1), track(7, 22, 14, 0, 1), track(7, 21, 16, 0))
	u := make([]float64, len(ts.Tracks))
	n := len(u)
	u[n-3], u[n-2], u[n-1] = 0.1, 0.5, 0.9
	return Input{Tracks: ts, Uncertainty: u, Width: 40, Height: 30}
}

func bare() Options {
	o := DefaultOptions()
	o.MinSegment, o.DropIsolated, o.BorderPoints, o.FarBackground = 0, false, false, 0
	// The fixtures have no frames: colour_test.go and backgroundcut_test.go test
	// what needs them.
	o.ColourWindow, o.CutBackground = 0, false
	return o
}

func TestPrepareLabelsWeightsHardExamples(t *testing.T) {
	in := fixture()
	set, err := Prepare(in, bare())
	if err != nil {
		t.Fatal(err)
	}
	if set.Background != 5 || set.Classes != 2 || len(set.Frames) != 2 {
		t.Fatalf("background %d classes %d frames %d", set.Background, set.Classes, len(set.Frames))
	}
	f0 := set.Frames[0]
	// 10 background points, 3 foreground points: w_fg = ⌊10/3/10⌋+1 = 1.
	if !reflect.DeepEqual(f0.Counts, []int{10, 3}) {
		t.Fatalf("counts %v", f0.Counts)
	}
	at := func(fr Frame, x, y int) (int16, float32, uint8) {
		i := y*40 + x
		return fr.Labels[i], fr.Weights[i], fr.Hard[i]
	}
	// the base weight: the factor is the trainer's to apply (train.Variant)
	if l, w, h := at(f0, 21, 16); l != 1 || w != 1 || h != 1 {
		t.Fatalf("hard pixel: label %d weight %v hard %d", l, w, h)
	}
	if l, w, h := at(f0, 22, 14); l != 1 || w != 1 || h != 0 { // u = 0.5 is not > μ = 0.5
		t.Fatalf("u = μ pixel: label %d weight %v hard %d", l, w, h)
	}
	if l, w, _ := at(f0, 2, 1); l != 0 || w != 1 {
		t.Fatalf("background pixel: %d %v", l, w)
	}
	if l, w, _ := at(f0, 0, 0); l != Unlabelled || w != 0 {
		t.Fatalf("unlabelled pixel: %d %v", l, w)
	}
	if f0.NHard != 1 || set.Frames[1].NHard != 0 {
		t.Fatalf("hard counts %d %d", f0.NHard, set.Frames[1].NHard)
	}
	// φ above μ_A: no hard examples.
	o := bare()
	o.Phi = 0.5
	set2, _ := Prepare(in, o)
	if set2.Frames[0].NHard != 0 {
		t.Fatal("φ = 0.5 must disable hard examples for μ = 0.5")
	}
}

func TestClassWeightsHandComputed(t *testing.T) {
	got := classWeights([]int{100, 7, 0, 100}, true)
	want := []float64{1, 2, 1, 1} // ⌊100/7/10⌋+1 = ⌊1.43⌋+1 = 2
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if got := classWeights([]int{1000, 9}, true); got[1] != 12 { // ⌊11.1⌋+1
		t.Fatalf("got %v", got)
	}
	if got := classWeights([]int{1000, 9}, false); got[1] != 1 {
		t.Fatalf("balance off: %v", got)
	}
}

func TestBorderPointsHandCounted(t *testing.T) {
	labels := make([]int16, 40*30)
	for i := range labels {
		labels[i] = Unlabelled
	}
	// x ∈ {0,10,20,30} on rows 5, 24, 15, 14 (16) + y ∈ {0,10,20} on columns 5, 34, 15, 24 (12).
	if n := addBorderPoints(labels, 40, 30, 10, []int{5, 15}); n != 28 {
		t.Fatalf("added %d, want 28", n)
	}
	if labels[5*40+10] != 0 || labels[10*40+34] != 0 {
		t.Fatal("expected border points missing")
	}
	labels[5*40] = 1 // occupied pixels are not overwritten
	for i := range labels {
		if labels[i] == 0 {
			labels[i] = Unlabelled
		}
	}
	if n := addBorderPoints(labels, 40, 30, 10, []int{5, 15}); n != 27 || labels[5*40] != 1 {
		t.Fatalf("added %d over an occupied pixel", n)
	}
}

func TestCleanUps(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 1}
	for x := 2.0; x < 40; x += 4 {
		ts.Tracks = append(ts.Tracks, track(0, x, 1, 0))
	}
	ts.Tracks = append(ts.Tracks, track(1, 10, 15, 0), track(1, 14, 15, 0), track(1, 36, 26, 0), track(2, 30, 10, 0))
	o := bare()
	o.DropIsolated, o.IsolatedRadius, o.MinSegment, o.Multi = true, 16, 2, true
	set, err := Prepare(Input{Tracks: ts, Width: 40, Height: 30}, o)
	if err != nil {
		t.Fatal(err)
	}
	fr := set.Frames[0]
	if fr.Labels[15*40+10] != 1 || fr.Labels[15*40+14] != 1 {
		t.Fatal("neighbouring foreground points dropped")
	}
	if fr.Labels[26*40+36] != Unlabelled || set.DroppedIsolated != 1 {
		t.Fatalf("isolated point kept (dropped %d)", set.DroppedIsolated)
	}
	if fr.Labels[10*40+30] != Unlabelled || set.Segments[2].Class != -1 || set.Segments[2].Dropped == "" {
		t.Fatalf("segment of 1 trajectory kept: %+v", set.Segments[2])
	}
	if set.Classes != 2 { // multi: background + cluster 1 (cluster 2 dropped)
		t.Fatalf("classes %d", set.Classes)
	}
}

func TestFactorDoesNotChangeMemoryOrOtherWeights(t *testing.T) {
	in := fixture()
	o1, o2 := bare(), bare()
	o1.Factor = 1
	s1, _ := Prepare(in, o1)
	s2, _ := Prepare(in, o2)
	for k := range s1.Frames {
		a, b := s1.Frames[k], s2.Frames[k]
		if len(a.Weights) != len(b.Weights) || !reflect.DeepEqual(a.Labels, b.Labels) {
			t.Fatal("labels or sizes differ with the factor")
		}
		if !reflect.DeepEqual(a.Weights, b.Weights) || !reflect.DeepEqual(a.Hard, b.Hard) {
			t.Fatal("base weights or hard mask differ with the factor")
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	in := fixture()
	in.Uncertainty = in.Uncertainty[:3]
	if _, err := Prepare(in, bare()); err == nil {
		t.Fatal("uncertainty count mismatch accepted")
	}
	in = fixture()
	in.Uncertainty[0] = math.NaN()
	if _, err := Prepare(in, bare()); err == nil {
		t.Fatal("NaN uncertainty accepted")
	}
	in = fixture()
	o := bare()
	o.Background = 99
	if _, err := Prepare(in, o); err == nil {
		t.Fatal("unknown background accepted")
	}
	off := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{track(0, -50, -50, 0)}}
	if _, err := Prepare(Input{Tracks: off, Width: 10, Height: 10}, bare()); err == nil {
		t.Fatal("a set with no labelled pixel accepted")
	}
}

func TestWriteSetAndManifest(t *testing.T) {
	o := DefaultOptions()
	o.MinSegment, o.ColourWindow, o.CutBackground = 0, 0, false
	set, err := Prepare(fixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "set")
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	err = set.Write(dir, func(f int) string { return "frame.png" }, func(string) (image.Image, error) { return img, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Frames) != 2 || m.HardPixels != 1 || m.HardTracks != 1 || m.Classes != 2 {
		t.Fatalf("manifest %+v", m)
	}
	lab, err := npy.Read(filepath.Join(dir, m.Frames[0].Labels))
	if err != nil || !reflect.DeepEqual(lab.Shape, []int{30, 40}) || !reflect.DeepEqual(lab.Int16, set.Frames[0].Labels) {
		t.Fatalf("labels npy: %v", err)
	}
	// A wrong-size frame fails and leaves the previous set untouched.
	small := image.NewRGBA(image.Rect(0, 0, 8, 8))
	if err := set.Write(dir, func(int) string { return "f.png" }, func(string) (image.Image, error) { return small, nil }, nil); err == nil {
		t.Fatal("frame of another size accepted")
	}
	if _, err := ReadManifest(dir); err != nil {
		t.Fatalf("previous set damaged: %v", err)
	}
}

func TestFarBackgroundHandCounted(t *testing.T) {
	// 40x30, grid step 10 → candidates x ∈ {5,15,25,35}, y ∈ {5,15,25} (12).
	// One foreground point at (5,5); r = 15: candidates within 15 px are
	// (5,5) [labelled itself], (15,5) d=10, (5,15) d=10, (15,15) d=14.1;
	// (25,5) d=20 and (5,25) d=20 are farther. So 12 − 4 = 8 get background.
	labels := make([]int16, 40*30)
	for i := range labels {
		labels[i] = Unlabelled
	}
	labels[5*40+5] = 1
	labels[25*40+35] = 0 // a labelled background pixel is not overwritten: 7 added
	if n := addFarBackground(labels, 40, 30, 10, 15, nil, 0); n != 7 {
		t.Fatalf("added %d, want 7", n)
	}
	for _, p := range [][2]int{{15, 5}, {5, 15}, {15, 15}} {
		if labels[p[1]*40+p[0]] != Unlabelled {
			t.Errorf("(%d,%d) within r of the foreground got a label", p[0], p[1])
		}
	}
	if labels[5*40+25] != 0 || labels[25*40+5] != 0 || labels[5*40+5] != 1 {
		t.Error("far pixels not background, or the foreground point overwritten")
	}
	// Points of unlabelled (unexplained) trajectories at (33,24) and
	// (24,14) with gap 3: the candidates (35,25) (d = 2.2) and (25,15)
	// (d = 1.4) stay unlabelled; (25,5), (25,25) and (35,15) are 8 px or
	// more away and get labels. Of the 8 far candidates, 6 are added.
	gapped := make([]int16, 40*30)
	for i := range gapped {
		gapped[i] = Unlabelled
	}
	gapped[5*40+5] = 1
	if n := addFarBackground(gapped, 40, 30, 10, 15, [][2]int{{33, 24}, {24, 14}}, 3); n != 6 {
		t.Fatalf("with far gap: added %d, want 6", n)
	}
	if gapped[25*40+35] != Unlabelled || gapped[15*40+25] != Unlabelled || gapped[5*40+25] != 0 || gapped[15*40+35] != 0 {
		t.Error("far gap: wrong candidates kept unlabelled")
	}
	// no foreground in the frame: nothing is added
	empty := make([]int16, 40*30)
	for i := range empty {
		empty[i] = Unlabelled
	}
	if n := addFarBackground(empty, 40, 30, 10, 15, nil, 0); n != 0 {
		t.Errorf("frame without foreground: added %d", n)
	}
	// through Prepare: the fixture's object at (20..22, 14..16) in a 40x30
	// frame; r = 0.3·50 = 15 px; the set counts what it added.
	o := bare()
	o.FarBackground = 0.3
	set, err := Prepare(fixture(), o)
	if err != nil {
		t.Fatal(err)
	}
	if set.Frames[0].NFar == 0 || set.Summary().FarPoints != set.Frames[0].NFar+set.Frames[1].NFar {
		t.Errorf("far-background points: frame 0 %d, summary %d", set.Frames[0].NFar, set.Summary().FarPoints)
	}
	if o.FarBackground = 3; o.Validate() == nil {
		t.Error("far-background distance of 3 diagonals accepted")
	}
}

func TestPrepareKeepsTrajectoryUncertainty(t *testing.T) {
	set, err := Prepare(fixture(), bare())
	if err != nil {
		t.Fatal(err)
	}
	fr := set.Frames[0]
	if got := fr.U[14*40+22]; got != 0.5 {
		t.Errorf("u at (22,14) = %v, want 0.5 (its trajectory's)", got)
	}
	if got := fr.U[1*40+2]; got != 0 {
		t.Errorf("u at a background trajectory = %v, want 0", got)
	}
}

// γ = ln((1 − u)/u) per pixel and per trajectory: the fixture's foreground
// has u = 0.1, 0.5, 0.9 (γ = ln 9, 0, −ln 9), its ten background
// trajectories u = 0 (γ = +∞); gamma.npy holds them ascending and the
// per-pixel γ survives u's float32 underflow.
func TestPrepareKeepsTrajectoryGamma(t *testing.T) {
	in := fixture()
	in.Uncertainty[0] = 1e-60 // γ ≈ 138.2: u underflows in float32, γ does not
	set, err := Prepare(in, bare())
	if err != nil {
		t.Fatal(err)
	}
	fr := set.Frames[0]
	for _, c := range []struct {
		x, y int
		want float64
	}{{20, 14, math.Log(9)}, {22, 14, 0}, {21, 16, -math.Log(9)}, {6, 1, math.Inf(1)}, {2, 1, 60 * math.Ln10}, {0, 0, math.Inf(1)}} {
		if got := fr.Gamma[c.y*40+c.x]; math.Abs(float64(got)-c.want) > 1e-5 && !(math.IsInf(c.want, 1) && math.IsInf(float64(got), 1)) {
			t.Errorf("γ at (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if fr.U[1*40+2] != 0 {
		t.Errorf("u of 1e-60 stored as %v, want its float32 underflow 0", fr.U[1*40+2])
	}
	g := set.TrajectoryGamma
	if len(g) != 13 || math.Abs(float64(g[0])+math.Log(9)) > 1e-6 || g[1] != 0 || math.Abs(float64(g[2])-math.Log(9)) > 1e-6 ||
		math.Abs(float64(g[3])-60*math.Ln10) > 1e-4 || !math.IsInf(float64(g[12]), 1) {
		t.Errorf("trajectory γ %v, want [−ln 9, 0, ln 9, 138.2, +∞ × 9]", g)
	}
	for _, u := range []float64{0.5, 1e-9, 0.999, 1e-300} {
		if back := 1 / (1 + math.Exp(GammaOf(u))); math.Abs(back-u) > 1e-12*u {
			t.Errorf("σ(−GammaOf(%v)) = %v", u, back)
		}
	}
	if !math.IsInf(GammaOf(0), 1) || !math.IsInf(GammaOf(1), -1) {
		t.Errorf("GammaOf(0) = %v, GammaOf(1) = %v", GammaOf(0), GammaOf(1))
	}
	dir := filepath.Join(t.TempDir(), "set")
	if err := set.Write(dir, func(int) string { return "" }, nil, nil); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel  string
		want []float32
	}{{m.TrajectoryGamma, g}, {m.Frames[0].Gamma, fr.Gamma}} {
		a, err := npy.Read(filepath.Join(dir, c.rel))
		if err != nil || !reflect.DeepEqual(a.F32, c.want) {
			t.Errorf("%s: %v (read back equal: %v)", c.rel, err, err == nil && reflect.DeepEqual(a.F32, c.want))
		}
	}
	if err := CheckSet(dir); err != nil {
		t.Error(err)
	}
}

func TestOracleTracksFromGroundTruth(t *testing.T) {
	// Region map of one 4x1 frame: 0 0 1 −1. Track a on x=0 (region 0),
	// b on x=2 (region 1) although its cluster says 0, c on x=3 (no region).
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{track(3, 0, 0, 0), track(3, 2, 0, 0), track(3, 3, 0, 0)}}
	gt := &dataset.GroundTruth{Colors: []int{0, 255}, Frames: []dataset.LabelledFrame{{Frame: 0, Width: 4, Height: 1, Region: []int{0, 0, 1, -1}}}}
	out, dropped, err := OracleTracks(ts, gt)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 1 || len(out.Tracks) != 2 || out.Tracks[0].Label != 0 || out.Tracks[1].Label != 1 {
		t.Fatalf("oracle tracks %+v, dropped %d", out.Tracks, dropped)
	}
	if ts.Tracks[1].Label != 3 {
		t.Error("OracleTracks changed its input")
	}
	if _, _, err := OracleTracks(ts, &dataset.GroundTruth{}); err == nil {
		t.Error("ground truth without frames accepted")
	}
}

// With upper quartiles: camera-explained background cluster 0 has medians
// 0.5, 0.8, 0.6, 1, 2 and none (m_0 = 0.8 ≤ 3) and upper quartiles 1, 2,
// 9, 2.5, 7.5 and none: Q_0 = 2.5 (the middle of 1, 2, 2.5, 7.5, 9), θ_0 =
// 7.5. Only the "hoof" (median 0.6, upper quartile 9) is left unlabelled;
// 7.5 is not above θ_0, and by its median alone (θ = 3) no trajectory of
// cluster 0 would be. Cluster 3 (camera-explained, but m_3 = 5 > 3) is
// left alone whatever its upper quartiles (20, 30, 40).
func TestUnexplainedBackgroundByUpperQuartile(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 1}
	ts.Tracks = []trajectory.Track{
		track(0, 2, 2, 0), track(0, 4, 2, 0), track(0, 6, 2, 0), track(0, 8, 2, 0), track(0, 10, 2, 0), track(0, 12, 2, 0),
		track(1, 20, 15, 0),
		track(3, 2, 25, 0), track(3, 4, 25, 0), track(3, 6, 25, 0),
	}
	nan := math.NaN()
	in := Input{Tracks: ts, Width: 40, Height: 30,
		CameraResidual:      []float64{0.5, 0.8, 0.6, 1, 2, nan, 10, 4, 5, 6},
		CameraResidualUpper: []float64{1, 2, 9, 2.5, 7.5, nan, 30, 20, 30, 40}}
	opt := bare()
	opt.BackgroundClusters, opt.CameraBackground, opt.BackgroundResidual = []int{0, 3}, []int{0, 3}, 3
	for _, c := range []struct {
		name  string
		upper []float64
		want  int // the one unlabelled trajectory, −1: none
	}{{"upper quartiles", in.CameraResidualUpper, 2}, {"medians only", nil, -1}} {
		i := in
		i.CameraResidualUpper = c.upper
		set, err := Prepare(i, opt)
		if err != nil {
			t.Fatal(err)
		}
		f := set.Frames[0]
		for k, tr := range ts.Tracks {
			p := tr.Points[0]
			want := int16(0)
			if tr.Label == 1 {
				want = 1
			}
			if k == c.want {
				want = Unlabelled
			}
			if got := f.Labels[int(p.Y)*40+int(p.X)]; got != want {
				t.Errorf("%s: trajectory %d label %d, want %d", c.name, k, got, want)
			}
		}
		if n := set.Summary().Unexplained; n != min(1, c.want+1) {
			t.Errorf("%s: %d unexplained, want %d", c.name, n, min(1, c.want+1))
		}
	}
	bad := in
	bad.CameraResidualUpper = bad.CameraResidualUpper[:9]
	if _, err := Prepare(bad, opt); err == nil {
		t.Error("9 upper quartiles for 10 medians accepted")
	}
}

// Background cluster 0 (camera-explained) holds trajectories with median
// camera residuals 0.5, 0.8, 5 and none (NaN): m_0 = 0.8, θ_0 = 3. Cluster 3
// (camera-explained, moving somewhat itself) has 2, 2, 2.5, 20: m_3 = 2.5
// (upper median), θ_3 = 7.5. Cluster 4 (camera-explained, but its typical
// trajectory is not: m_4 = 9 > 3) has 8, 8, 9, 30 and is left alone.
// Background cluster 2 (background by its border share only) has 10; the
// moving cluster 1 has 10. Only the trajectories with 5 in cluster 0 and
// 20 in cluster 3 are left unlabelled.
func TestUnexplainedBackgroundTrajectoriesLeftUnlabelled(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 1}
	ts.Tracks = []trajectory.Track{
		track(0, 2, 2, 0), track(0, 4, 2, 0), track(0, 6, 2, 0), track(0, 10, 2, 0),
		track(2, 30, 2, 0), track(1, 20, 15, 0),
		track(3, 2, 25, 0), track(3, 4, 25, 0), track(3, 6, 25, 0), track(3, 8, 25, 0),
		track(4, 30, 25, 0), track(4, 32, 25, 0), track(4, 34, 25, 0), track(4, 36, 25, 0),
	}
	in := Input{Tracks: ts, CameraResidual: []float64{0.5, 0.8, 5, math.NaN(), 10, 10, 2, 2, 2.5, 20, 8, 8, 9, 30}, Width: 40, Height: 30}
	opt := bare()
	opt.BackgroundClusters, opt.CameraBackground, opt.BackgroundResidual = []int{0, 2, 3, 4}, []int{0, 3, 4}, 3
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	f := set.Frames[0]
	want := map[[2]int]int16{{2, 2}: 0, {4, 2}: 0, {6, 2}: Unlabelled, {10, 2}: 0, {30, 2}: 0, {20, 15}: 1,
		{2, 25}: 0, {4, 25}: 0, {6, 25}: 0, {8, 25}: Unlabelled, {36, 25}: 0}
	for p, l := range want {
		if got := f.Labels[p[1]*40+p[0]]; got != l {
			t.Errorf("label at %v = %d, want %d", p, got, l)
		}
	}
	if set.Summary().Unexplained != 2 || set.Segments[0].Unexplained != 1 || set.Segments[2].Unexplained != 0 || set.Segments[3].Unexplained != 1 || set.Segments[4].Unexplained != 0 {
		t.Errorf("unexplained: set %d, segments %+v", set.Summary().Unexplained, set.Segments)
	}
	if !reflect.DeepEqual(f.Counts, []int{11, 1}) {
		t.Errorf("counts %v, want [11 1]", f.Counts)
	}
	// Far-background points (grid step 10, r = 0.05·50 = 2.5 px: all 12
	// candidates are far from the object at (20,15)) keep FarGap = 4 px
	// from the unlabelled trajectories' points (6,2) and (8,25): (5,5) at
	// 3.2 px and (5,25) at 3 px stay unlabelled, the other 10 are added.
	for _, c := range []struct {
		gap  float64
		want int
	}{{0, 12}, {4, 10}} {
		o := opt
		o.FarBackground, o.BorderStep, o.FarGap = 0.05, 10, c.gap
		s, err := Prepare(in, o)
		if err != nil {
			t.Fatal(err)
		}
		fr := s.Frames[0]
		if fr.NFar != c.want {
			t.Errorf("far gap %v: %d far points, want %d", c.gap, fr.NFar, c.want)
		}
		if blocked := fr.Labels[5*40+5] == Unlabelled && fr.Labels[25*40+5] == Unlabelled; blocked != (c.gap > 0) {
			t.Errorf("far gap %v: (5,5) label %d, (5,25) label %d", c.gap, fr.Labels[5*40+5], fr.Labels[25*40+5])
		}
	}
	// Off: a threshold of 0, or no residuals.
	for _, c := range []struct {
		th float64
		r  []float64
	}{{0, in.CameraResidual}, {3, nil}} {
		o, i := opt, in
		o.BackgroundResidual, i.CameraResidual = c.th, c.r
		s, err := Prepare(i, o)
		if err != nil || s.Summary().Unexplained != 0 || s.Frames[0].Labels[2*40+6] != 0 {
			t.Errorf("threshold %v, residuals %v: unexplained %d, err %v", c.th, c.r != nil, s.Summary().Unexplained, err)
		}
	}
	// Errors: a residual per trajectory, a finite threshold ≥ 0.
	bad := in
	bad.CameraResidual = bad.CameraResidual[:13]
	if _, err := Prepare(bad, opt); err == nil {
		t.Error("13 residuals for 14 trajectories accepted")
	}
	for _, th := range []float64{-1, math.Inf(1), math.NaN()} {
		o := opt
		o.BackgroundResidual = th
		if _, err := Prepare(in, o); err == nil {
			t.Errorf("threshold %v accepted", th)
		}
		o = opt
		o.FarGap = th
		if _, err := Prepare(in, o); err == nil {
			t.Errorf("far gap %v accepted", th)
		}
	}
}

// Segment 7 has a long trajectory of 4 points in frames 0–3 at (10, 10) and
// two of one point at (30, 20), one in frame 0 and one in frame 5 (the
// point-weighted median is 4: only the first is long). In frame 0 the short
// point lies 22 px from the long one and is dropped with r = 5, with or
// without SupportAlone. In frame 5 the segment has no long trajectory: the
// short point is dropped by default and kept with SupportAlone.
func TestSupportAloneKeepsASegmentWithoutLongTrajectoriesInItsFrame(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 6, Tracks: []trajectory.Track{
		track(0, 2, 2, 0, 1, 2, 3, 4, 5),
		track(7, 10, 10, 0, 1, 2, 3), track(7, 30, 20, 0), track(7, 30, 20, 5),
	}}
	in := Input{Tracks: ts, Width: 40, Height: 30}
	for _, alone := range []bool{false, true} {
		opt := bare()
		opt.BackgroundClusters, opt.SupportRadius, opt.SupportAlone = []int{0}, 5, alone
		set, err := Prepare(in, opt)
		if err != nil {
			t.Fatal(err)
		}
		at := func(f, x, y int) int16 { return set.Frames[f].Labels[y*40+x] }
		want5 := Unlabelled
		wantDropped := 2
		if alone {
			want5, wantDropped = 1, 1
		}
		if at(0, 10, 10) != 1 || at(0, 30, 20) != Unlabelled || at(5, 30, 20) != want5 {
			t.Errorf("alone %v: labels %d %d %d, want 1 %d %d", alone, at(0, 10, 10), at(0, 30, 20), at(5, 30, 20), Unlabelled, want5)
		}
		if set.DroppedUnsupported != wantDropped {
			t.Errorf("alone %v: %d points dropped, want %d", alone, set.DroppedUnsupported, wantDropped)
		}
	}
}

// Segment 7 has trajectories of 4, 1 and 1 points (point-weighted median
// length 4: only the first is long), segment 9 of 2 and 1 (median 2).
// With r = 5, the short point 3 px from segment 7's long trajectory keeps
// its label; the one 10 px away and the one 4 px from segment 7's long
// trajectory but in segment 9 are dropped. Background trajectories are
// never dropped, short or not.
func TestShortTrajectoriesNeedALongNeighbourOfTheirSegment(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 4, Tracks: []trajectory.Track{
		track(0, 2, 1, 0, 1, 2, 3), track(0, 30, 1, 0),
		track(7, 20, 15, 0, 1, 2, 3), track(7, 23, 15, 0), track(7, 30, 15, 0),
		track(9, 20, 25, 0, 1), track(9, 24, 15, 0),
	}}
	long := longTrajectories(ts, func(label int) (int, bool) { return label, label != 0 }, 0)
	if want := []bool{false, false, true, false, false, true, false}; !reflect.DeepEqual(long, want) {
		t.Fatalf("long %v, want %v", long, want)
	}
	// A cap of 2 points changes nothing (segment 7's short trajectories
	// have 1 point, segment 9's 2-point one is long already); a cap of 1
	// makes every foreground trajectory long.
	if got, want := longTrajectories(ts, func(label int) (int, bool) { return label, label != 0 }, 2), long; !reflect.DeepEqual(got, want) {
		t.Fatalf("cap 2: long %v, want %v", got, want)
	}
	if got, want := longTrajectories(ts, func(label int) (int, bool) { return label, label != 0 }, 1), []bool{false, false, true, true, true, true, true}; !reflect.DeepEqual(got, want) {
		t.Fatalf("cap 1: long %v, want %v", got, want)
	}
	in := Input{Tracks: ts, Width: 40, Height: 30}
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius = []int{0}, 5
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	f := set.Frames[0]
	want := map[[2]int]int16{{2, 1}: 0, {30, 1}: 0, {20, 15}: 1, {23, 15}: 1, {30, 15}: Unlabelled, {20, 25}: 1, {24, 15}: Unlabelled}
	for p, l := range want {
		if got := f.Labels[p[1]*40+p[0]]; got != l {
			t.Errorf("label at %v = %d, want %d", p, got, l)
		}
	}
	if f.Length[15*40+20] != 4 || f.Length[15*40+23] != 1 || f.Length[25*40+20] != 2 || f.Length[15*40+30] != 0 {
		t.Errorf("trajectory lengths at the labelled pixels: %d %d %d, at the dropped one %d",
			f.Length[15*40+20], f.Length[15*40+23], f.Length[25*40+20], f.Length[15*40+30])
	}
	if set.DroppedUnsupported != 2 {
		t.Errorf("%d points dropped, want 2", set.DroppedUnsupported)
	}
	// Off, or every trajectory long: every point keeps its label.
	off := opt
	off.SupportRadius = 0
	capped := opt
	capped.SupportLength = 1
	for name, o := range map[string]Options{"support off": off, "support length 1": capped} {
		if s, err := Prepare(in, o); err != nil || s.DroppedUnsupported != 0 || s.Frames[0].Labels[15*40+30] != 1 || s.Frames[0].Labels[15*40+24] != 1 {
			t.Errorf("%s: dropped %d, err %v", name, s.DroppedUnsupported, err)
		}
	}
	for _, bad := range []int{-1, 2_000_000} {
		o := opt
		o.SupportLength = bad
		if _, err := Prepare(in, o); err == nil {
			t.Errorf("support length %d accepted", bad)
		}
	}
	// The far gap keeps far-background points away from dropped points:
	// the grid point (35,15) lies 5 px from the dropped (30,15) and 15 px
	// from the nearest foreground point (r = 0.05·50 = 2.5 px).
	for _, c := range []struct {
		gap  float64
		want int16
	}{{0, 0}, {6, Unlabelled}} {
		o := opt
		o.FarBackground, o.BorderStep, o.FarGap = 0.05, 10, c.gap
		s, err := Prepare(in, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Frames[0].Labels[15*40+35]; got != c.want {
			t.Errorf("far gap %v: label at (35,15) = %d, want %d", c.gap, got, c.want)
		}
	}
	for _, r := range []float64{-1, math.Inf(1), math.NaN()} {
		o := opt
		o.SupportRadius = r
		if _, err := Prepare(in, o); err == nil {
			t.Errorf("support radius %v accepted", r)
		}
	}
}

// FarRadius is FarBackground × the frame's diagonal; CutsBackground needs
// both the cut and a ring.
func TestFarRadiusAndCutsBackgroundByHand(t *testing.T) {
	o := Options{FarBackground: 0.1, CutBackground: true}
	if r := o.FarRadius(30, 40); math.Abs(r-5) > 1e-12 || !o.CutsBackground() {
		t.Errorf("r %v (want 5), cuts %v", r, o.CutsBackground())
	}
	if o.FarBackground = 0; o.CutsBackground() {
		t.Error("no ring, yet the cut is on")
	}
	if o.FarBackground, o.CutBackground = 0.1, false; o.CutsBackground() {
		t.Error("cut off, yet on")
	}
}
