package trainset

import (
	"errors"
	"image"
	"image/color"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/densify/densify/trajectory"
)

// pointsAt is a trajectory with one point per (x, y, frame) triple.
func pointsAt(label int, xyf ...[3]float64) trajectory.Track {
	t := trajectory.Track{Label: label}
	for _, p := range xyf {
		t.Points = append(t.Points, trajectory.Point{X: p[0], Y: p[1], Frame: int(p[2])})
	}
	return t
}

// In a 40×30 image with a border band of 10 px (x < 10, y < 10, x > 29,
// y > 19): cluster 3 has one point in the band, (5, 15), and one out,
// (20, 15); cluster 1 two, (35, 2) in frames 0 and 1; cluster 2 none, its
// points (10, 15) and (29, 19) lying on the band's inner edges; cluster 4
// two, (1, 1) and (29.5, 15), like cluster 1 and of the same size (one
// trajectory), so the smaller id 1 wins the tie; cluster 5 two, from two
// trajectories, so it wins over 1 and 4 by size.
func TestChooseBackgroundByBorderPoints(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{
		pointsAt(3, [3]float64{5, 15, 0}), pointsAt(3, [3]float64{20, 15, 0}),
		pointsAt(1, [3]float64{35, 2, 0}, [3]float64{35, 2, 1}),
		pointsAt(2, [3]float64{10, 15, 0}, [3]float64{29, 19, 1}),
		pointsAt(4, [3]float64{1, 1, 0}, [3]float64{29.5, 15, 1}),
	}}
	opt := bare()
	opt.Background, opt.BorderMargin = -1, 10
	choose := func(ts *trajectory.TrackSet, opt Options) (*preparation, error) {
		p := newPreparation(Input{Tracks: ts, Width: 40, Height: 30}, opt)
		return p, p.chooseBackground()
	}
	p, err := choose(ts, opt)
	if err != nil || p.set.Background != 1 || !reflect.DeepEqual(p.isBG, map[int]bool{1: true}) {
		t.Fatalf("background %d, %v (err %v); want cluster 1 by the tie on size and id", p.set.Background, p.isBG, err)
	}
	if want := []int{1, 2, 3, 4}; !reflect.DeepEqual(p.ids, want) || p.size[3] != 2 || p.size[4] != 1 {
		t.Errorf("ids %v sizes %v", p.ids, p.size)
	}
	ts.Tracks = append(ts.Tracks, pointsAt(5, [3]float64{2, 20, 0}), pointsAt(5, [3]float64{38, 20, 1}))
	if p, _ := choose(ts, opt); p.set.Background != 5 {
		t.Errorf("background %d, want 5 (two border points, two trajectories)", p.set.Background)
	}
	// Named clusters win over the border; BackgroundClusters over Background.
	opt.Background = 2
	if p, err := choose(ts, opt); err != nil || p.set.Background != 2 || !reflect.DeepEqual(p.isBG, map[int]bool{2: true}) {
		t.Errorf("Background 2: background %d, %v, err %v", p.set.Background, p.isBG, err)
	}
	opt.BackgroundClusters = []int{5, 3}
	if p, err := choose(ts, opt); err != nil || p.set.Background != 3 || !reflect.DeepEqual(p.isBG, map[int]bool{3: true, 5: true}) {
		t.Errorf("BackgroundClusters {5, 3}: background %d, %v, err %v", p.set.Background, p.isBG, err)
	}
	opt.BackgroundClusters = []int{5, 6}
	if _, err := choose(ts, opt); err == nil || !strings.Contains(err.Error(), "background cluster 6 does not exist (clusters [1 2 3 4 5])") {
		t.Errorf("missing cluster 6: %v", err)
	}
}

// Clusters 0 (background, 5 trajectories), 2 (1), 4 (3) and 7 (2), minimum
// segment 2: cluster 2 is dropped; binary mode gives 4 and 7 class 1,
// multi-label mode classes 1 and 2 in increasing id, hence 3 classes.
func TestAssignClassesByHand(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 1}
	for label, n := range map[int]int{0: 5, 2: 1, 4: 3, 7: 2} {
		for range n {
			ts.Tracks = append(ts.Tracks, track(label, 1, 1, 0))
		}
	}
	for _, c := range []struct {
		multi   bool
		class   map[int]int
		classes int
	}{
		{false, map[int]int{0: 0, 2: -1, 4: 1, 7: 1}, 2},
		{true, map[int]int{0: 0, 2: -1, 4: 1, 7: 2}, 3},
	} {
		opt := bare()
		opt.MinSegment, opt.Multi, opt.BackgroundClusters = 2, c.multi, []int{0}
		p := newPreparation(Input{Tracks: ts, Width: 10, Height: 10}, opt)
		if err := p.chooseBackground(); err != nil {
			t.Fatal(err)
		}
		p.assignClasses()
		if !reflect.DeepEqual(p.class, c.class) || p.set.Classes != c.classes {
			t.Errorf("multi %v: classes %v (%d), want %v (%d)", c.multi, p.class, p.set.Classes, c.class, c.classes)
		}
		if !reflect.DeepEqual(p.segIdx, map[int]int{0: 0, 2: 1, 4: 2, 7: 3}) {
			t.Errorf("multi %v: segment index %v", c.multi, p.segIdx)
		}
		segs := p.set.Segments
		if len(segs) != 4 || segs[1].Cluster != 2 || segs[1].Class != -1 || segs[1].Dropped != "fewer than 2 trajectories" || segs[2].Trajectories != 3 || segs[3].Dropped != "" {
			t.Errorf("multi %v: segments %+v", c.multi, segs)
		}
	}
}

// φ = 0.3. Segment 1 has u = 0.2, 0.4, 0.9 (μ = 0.5 > φ): only 0.9 is
// hard. Segment 2 has 0.1, 0.3 (μ = 0.2 ≤ φ): none. The background 0 has
// 0.6, 1 (μ = 0.8): 1 is hard, the background is no exception. Segment 3
// has 0.2, 1 (μ = 0.6) but is dropped (minimum segment 3): none.
func TestMarkHardExamplesByHand(t *testing.T) {
	labels := []int{1, 1, 1, 2, 2, 0, 0, 3, 3}
	u := []float64{0.2, 0.4, 0.9, 0.1, 0.3, 0.6, 1, 0.2, 1}
	ts := &trajectory.TrackSet{Frames: 1}
	for _, l := range labels {
		ts.Tracks = append(ts.Tracks, track(l, 1, 1, 0))
	}
	opt := bare()
	opt.Phi, opt.MinSegment, opt.BackgroundClusters = 0.3, 3, []int{0}
	p := newPreparation(Input{Tracks: ts, Uncertainty: u, Width: 10, Height: 10}, opt)
	if err := p.chooseBackground(); err != nil {
		t.Fatal(err)
	}
	p.assignClasses()
	p.markHardExamples()
	if want := []bool{false, false, true, false, false, false, true, false, false}; !reflect.DeepEqual(p.hard, want) {
		t.Errorf("hard %v, want %v", p.hard, want)
	}
	for k, want := range []struct {
		mu        float64
		uncertain bool
		hard      int
	}{{0.8, true, 1}, {0.5, true, 1}, {0.2, false, 0}, {0.6, true, 0}} { // clusters 0, 1, 2, 3
		s := p.set.Segments[k]
		if math.Abs(s.MeanUncertainty-want.mu) > 1e-12 || s.Uncertain != want.uncertain || s.HardTracks != want.hard {
			t.Errorf("cluster %d: μ %v uncertain %v hard %d, want %v %v %d", s.Cluster, s.MeanUncertainty, s.Uncertain, s.HardTracks, want.mu, want.uncertain, want.hard)
		}
	}
}

// A 10×10 image of 3 frames. Trajectory 0 (class 1) has points at (2, 3)
// in frame 0, (12, 3) in frame 1 (outside) and (3.5, 4.4) in frame 2
// (pixel (4, 4)); trajectory 1 is of a dropped segment; trajectory 2 is an
// unexplained background trajectory at (1, 1) and (1, 2) in frames 0 and
// 1; trajectory 3 (class 0) has a point in frame 5, beyond the sequence.
func TestCollectPointsByHand(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 3, Tracks: []trajectory.Track{
		pointsAt(7, [3]float64{2, 3, 0}, [3]float64{12, 3, 1}, [3]float64{3.5, 4.4, 2}),
		pointsAt(8, [3]float64{5, 5, 0}),
		pointsAt(0, [3]float64{1, 1, 0}, [3]float64{1, 2, 1}),
		pointsAt(0, [3]float64{6, 6, 0}, [3]float64{6, 6, 5}),
	}}
	for _, gap := range []float64{0, 4} {
		opt := bare()
		opt.FarGap = gap
		p := newPreparation(Input{Tracks: ts, Width: 10, Height: 10}, opt)
		p.class = map[int]int{7: 1, 8: -1, 0: 0}
		p.unexplained = []bool{false, false, true, false}
		p.collectPoints()
		want := [][]framePoint{{{pix: 32, track: 0, class: 1}, {pix: 66, track: 3, class: 0}}, nil, {{pix: 44, track: 0, class: 1}}}
		if !reflect.DeepEqual(p.points, want) {
			t.Errorf("gap %v: points %v, want %v", gap, p.points, want)
		}
		wantAvoid, wantN := [][][2]int{nil, nil, nil}, []int{0, 0, 0}
		if gap > 0 {
			wantAvoid, wantN = [][][2]int{{{1, 1}}, {{1, 2}}, nil}, []int{1, 1, 0}
		}
		if !reflect.DeepEqual(p.avoid, wantAvoid) || !reflect.DeepEqual(p.nUnexplained, wantN) {
			t.Errorf("gap %v: avoid %v (%v), want %v (%v)", gap, p.avoid, p.nUnexplained, wantAvoid, wantN)
		}
	}
}

// On pixel 5 trajectories 2 and 1 have the same u: the lower index, 1,
// labels it. On pixel 7 trajectory 3 (u 0.2) beats 0 (u 0.4). Pixel 9 has
// one point. The kept points keep their order; owner's old contents do not
// matter.
func TestOwnedPointsByHand(t *testing.T) {
	u := []float64{0.4, 0.5, 0.5, 0.2, 0.9}
	pts := []framePoint{{5, 2, 1, false}, {7, 3, 1, false}, {5, 1, 0, false}, {7, 0, 1, false}, {9, 4, 0, true}}
	owner := []int32{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	got := ownedPoints(pts, owner, func(i int) float64 { return u[i] })
	if want := []framePoint{{7, 3, 1, false}, {5, 1, 0, false}, {9, 4, 0, true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("owned %v, want %v", got, want)
	}
}

// drop removes the named points, counts them and, with a far gap, adds
// their pixels to the frame's points to avoid after those already there.
func TestDropCountsAndAvoidsByHand(t *testing.T) {
	for _, gap := range []float64{0, 10} {
		opt := bare()
		opt.FarGap = gap
		p := newPreparation(Input{Width: 10, Height: 10}, opt)
		p.avoid = [][][2]int{nil, {{0, 0}}}
		pts := []framePoint{{pix: 12, track: 0, class: 1}, {pix: 34, track: 1, class: 1}, {pix: 56, track: 2, class: 0}, {pix: 78, track: 3, class: 1}}
		n := 2
		kept := p.drop(1, pts, func(k int, q framePoint) bool { return k == 1 || q.track == 3 }, &n)
		if want := []framePoint{{pix: 12, track: 0, class: 1}, {pix: 56, track: 2, class: 0}}; !reflect.DeepEqual(kept, want) || n != 4 {
			t.Errorf("gap %v: kept %v, count %d; want %v, 4", gap, kept, n, want)
		}
		wantAvoid := [][2]int{{0, 0}}
		if gap > 0 {
			wantAvoid = [][2]int{{0, 0}, {4, 3}, {8, 7}}
		}
		if !reflect.DeepEqual(p.avoid[1], wantAvoid) || p.avoid[0] != nil {
			t.Errorf("gap %v: avoid %v, want frame 1 %v", gap, p.avoid, wantAvoid)
		}
	}
}

// The colour check drops the foreground points of rejected trajectories,
// never background points, and counts them.
func TestDropColourRejectedByHand(t *testing.T) {
	p := newPreparation(Input{Width: 10, Height: 10}, bare())
	p.avoid = make([][][2]int, 1)
	pts := []framePoint{{pix: 1, track: 0, class: 1}, {pix: 2, track: 1, class: 0}, {pix: 3, track: 1, class: 2}, {pix: 4, track: 2, class: 1}}
	if got := p.dropColourRejected(0, pts); len(got) != 4 {
		t.Errorf("without the check: %v", got)
	}
	p.colourReject = []bool{false, true, true}
	got := p.dropColourRejected(0, pts)
	if want := []framePoint{{pix: 1, track: 0, class: 1}, {pix: 2, track: 1, class: 0}}; !reflect.DeepEqual(got, want) || p.set.DroppedColour != 2 {
		t.Errorf("kept %v, dropped %d; want %v, 2", got, p.set.DroppedColour, want)
	}
	if p.set.DroppedHard != 0 {
		t.Errorf("%d hard-example points dropped before any trajectory is hard", p.set.DroppedHard)
	}
	// Trajectories 1 and 2 hard: of the dropped points, those of 2 (pixel
	// 3) and of 1 (pixel 4) are hard examples; 1's kept background point
	// (pixel 1) is not counted.
	p.hard = []bool{false, true, true}
	p.dropColourRejected(0, pts)
	if p.set.DroppedHard != 2 || p.set.Summary().HardDropped != 2 {
		t.Errorf("%d hard-example points dropped (summary %d), want 2", p.set.DroppedHard, p.set.Summary().HardDropped)
	}
}

// A 20×1 frame, isolated radius 5: the class-1 points at x = 0 and 3 are
// neighbours and keep their labels; the class-1 point at 15 is isolated
// and dropped; the background point at 19, as isolated, is kept. Labelled
// pixels carry their trajectory's u, length, segment μ and hard flag.
func TestLabelPointsByHand(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 2, Tracks: []trajectory.Track{
		pointsAt(4, [3]float64{0, 0, 0}, [3]float64{1, 0, 1}),
		pointsAt(4, [3]float64{3, 0, 0}),
		pointsAt(4, [3]float64{15, 0, 0}),
		pointsAt(0, [3]float64{19, 0, 0}),
	}}
	opt := bare()
	opt.DropIsolated, opt.IsolatedRadius = true, 5
	p := newPreparation(Input{Tracks: ts, Uncertainty: []float64{0.25, 0.75, 0.5, 0.125}, Width: 20, Height: 1}, opt)
	p.set.Segments = []Segment{{Cluster: 0, MeanUncertainty: 0.125}, {Cluster: 4, MeanUncertainty: 0.5}}
	p.segIdx = map[int]int{0: 0, 4: 1}
	p.hard = []bool{false, true, false, false}
	fr := newFrame(0, 20, 1, 2)
	p.labelPoints(&fr, []framePoint{{pix: 0, track: 0, class: 1}, {pix: 3, track: 1, class: 1}, {pix: 15, track: 2, class: 1}, {pix: 19, track: 3, class: 0}})
	if p.set.DroppedIsolated != 1 {
		t.Errorf("dropped %d isolated points, want 1", p.set.DroppedIsolated)
	}
	for _, c := range []struct {
		x      int
		label  int16
		u, mu  float32
		length uint16
		hard   uint8
	}{{0, 1, 0.25, 0.5, 2, 0}, {3, 1, 0.75, 0.5, 1, 1}, {15, Unlabelled, 0, 0, 0, 0}, {19, 0, 0.125, 0.125, 1, 0}, {7, Unlabelled, 0, 0, 0, 0}} {
		if fr.Labels[c.x] != c.label || fr.U[c.x] != c.u || fr.Mu[c.x] != c.mu || fr.Length[c.x] != c.length || fr.Hard[c.x] != c.hard {
			t.Errorf("x %d: label %d u %v μ %v length %d hard %d; want %+v", c.x, fr.Labels[c.x], fr.U[c.x], fr.Mu[c.x], fr.Length[c.x], fr.Hard[c.x], c)
		}
	}
	// The hard trajectory 1 keeps its point: no hard-example point dropped.
	// With trajectory 2 hard too, its isolated point is one.
	if p.set.DroppedHard != 0 {
		t.Errorf("%d hard-example points dropped, want 0", p.set.DroppedHard)
	}
	p.hard[2] = true
	fr = newFrame(0, 20, 1, 2)
	p.labelPoints(&fr, []framePoint{{pix: 0, track: 0, class: 1}, {pix: 3, track: 1, class: 1}, {pix: 15, track: 2, class: 1}, {pix: 19, track: 3, class: 0}})
	if p.set.DroppedHard != 1 || fr.Labels[15] != Unlabelled {
		t.Errorf("%d hard-example points dropped (label at 15: %d), want 1 (unlabelled)", p.set.DroppedHard, fr.Labels[15])
	}
}

// 25 background and 2 foreground labels: w_1 = ⌊25/2/10⌋ + 1 = 2 with the
// balance, 1 without; unlabelled pixels weigh 0, and a hard flag counts
// only where the pixel is labelled.
func TestWeighByHand(t *testing.T) {
	for _, c := range []struct {
		balance bool
		w1      float32
	}{{true, 2}, {false, 1}} {
		fr := newFrame(0, 30, 1, 2)
		for x := range 25 {
			fr.Labels[x] = 0
		}
		fr.Labels[25], fr.Labels[26] = 1, 1
		fr.Hard[26], fr.Hard[3], fr.Hard[28] = 1, 1, 1 // 28 is unlabelled
		fr.weigh(c.balance)
		if !reflect.DeepEqual(fr.Counts, []int{25, 2}) || fr.NHard != 2 {
			t.Errorf("balance %v: counts %v, %d hard; want [25 2], 2", c.balance, fr.Counts, fr.NHard)
		}
		if fr.Weights[0] != 1 || fr.Weights[25] != c.w1 || fr.Weights[26] != c.w1 || fr.Weights[28] != 0 {
			t.Errorf("balance %v: weights %v", c.balance, fr.Weights)
		}
	}
}

// colourSamples reads only the frames with points, and gives every sample
// its trajectory, its colour class (every foreground class is 1), whether
// the trajectory is long in the foreground and the pixel's colour.
func TestColourSamplesByHand(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 2))
	img.Set(1, 0, color.RGBA{10, 20, 30, 255})
	img.Set(2, 1, color.RGBA{200, 100, 50, 255})
	var (
		mu   sync.Mutex
		read []int
	)
	frame := func(f int) (image.Image, error) {
		mu.Lock()
		read = append(read, f)
		mu.Unlock()
		if f != 1 {
			return nil, errors.New("frame without points read")
		}
		return img, nil
	}
	p := newPreparation(Input{Width: 4, Height: 2, Frame: frame}, bare())
	p.points = [][]framePoint{nil, {{pix: 1, track: 5, class: 2}, {pix: 6, track: 3, class: 0}}, nil}
	p.colourLong = []bool{false, false, false, true, false, true}
	got, err := p.colourSamples()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]colourSample{nil, {{track: 5, class: 1, long: true, col: [3]uint8{10, 20, 30}}, {track: 3, class: 0, long: true, col: [3]uint8{200, 100, 50}}}, nil}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(read, []int{1}) {
		t.Errorf("samples %v (frames read %v), want %v", got, read, want)
	}
}

// checkInput refuses what Prepare cannot use, each with its reason.
func TestCheckInputReasons(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 1, Tracks: []trajectory.Track{track(0, 1, 1, 0), track(1, 5, 5, 0)}}
	ok := Input{Tracks: ts, Width: 10, Height: 10}
	if err := checkInput(ok, bare()); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	cut := bare()
	cut.CutBackground, cut.FarBackground = true, 0.1
	badOpt := bare()
	badOpt.Phi = 2
	for _, c := range []struct {
		name string
		in   func(Input) Input
		opt  Options
		want string
	}{
		{"options", func(i Input) Input { return i }, badOpt, "φ must be in [0, 1]"},
		{"no trajectories", func(i Input) Input { i.Tracks = &trajectory.TrackSet{Frames: 1}; return i }, bare(), "no trajectories"},
		{"size", func(i Input) Input { i.Height = 0; return i }, bare(), "invalid image size 10x0"},
		{"frames for the cut", func(i Input) Input { return i }, cut, "the background cut needs the frames"},
		{"bounds", func(i Input) Input { i.Width = 4; return i }, bare(), "lies outside the 4x10 frames"},
		{"uncertainties", func(i Input) Input { i.Uncertainty = []float64{0.5}; return i }, bare(), "1 uncertainties for 2 trajectories"},
		{"residuals", func(i Input) Input { i.CameraResidual = []float64{1, 2, 3}; return i }, bare(), "3 camera residuals for 2 trajectories"},
		{"upper residuals", func(i Input) Input { i.CameraResidualUpper = []float64{1}; return i }, bare(), "1 upper camera residuals for 0 medians"},
		{"uncertainty range", func(i Input) Input { i.Uncertainty = []float64{0.5, 1.5}; return i }, bare(), "uncertainty of trajectory 1 is 1.5"},
	} {
		if err := checkInput(c.in(ok), c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
