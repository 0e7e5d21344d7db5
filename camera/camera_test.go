package camera

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/densify/densify/trajectory"
)

// sceneTracks builds a background grid moved by a known homography per frame
// (zoom, rotation, pan and a little perspective) plus an object whose points
// translate by (3, −2) px per frame, with Gaussian noise of sd px.
func sceneTracks(frames int, sd float64, outliers int) (*trajectory.TrackSet, Homography, int) {
	rng := rand.New(rand.NewPCG(7, 8))
	c, s := math.Cos(0.01), math.Sin(0.01)
	h := Homography{1.02 * c, -1.02 * s, 4, 1.02 * s, 1.02 * c, -1.5, 2e-5, -1e-5, 1}
	ts := &trajectory.TrackSet{Frames: frames}
	for y := 10.0; y < 470; y += 15 {
		for x := 10.0; x < 630; x += 15 {
			tr := trajectory.Track{}
			px, py := x, y
			for t := range frames {
				tr.Points = append(tr.Points, trajectory.Point{X: px + sd*rng.NormFloat64(), Y: py + sd*rng.NormFloat64(), Frame: t})
				px, py, _ = h.Apply(px, py)
			}
			ts.Tracks = append(ts.Tracks, tr)
		}
	}
	bg := len(ts.Tracks)
	for k := range outliers {
		tr := trajectory.Track{}
		px, py := 200+float64(k%20)*4, 200+float64(k/20)*4
		for t := range frames {
			tr.Points = append(tr.Points, trajectory.Point{X: px + 3*float64(t), Y: py - 2*float64(t), Frame: t})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	return ts, h, bg
}

func TestEstimateRecoversHomographyAndResiduals(t *testing.T) {
	ts, h, bg := sceneTracks(12, 0.05, 400)
	opt := DefaultOptions()
	opt.Step = 1
	m, err := Estimate(ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	// transfer error of the fitted H against the true one over the image
	for tf := 0; tf < 11; tf++ {
		f := m.Frames[tf]
		if !f.Valid || f.Step != 1 {
			t.Fatalf("frame %d: %+v", tf, f)
		}
		if f.Inliers < bg*9/10 || f.Inliers > bg+5 {
			t.Errorf("frame %d: %d inliers, %d background points", tf, f.Inliers, bg)
		}
		// points of frame tf lie on the image of the grid under H^tf; compare
		// the fitted H with the true H on a grid of positions
		worst := 0.0
		for y := 0.0; y < 480; y += 60 {
			for x := 0.0; x < 640; x += 80 {
				ax, ay, _ := f.H.Apply(x, y)
				bx, by, _ := h.Apply(x, y)
				worst = math.Max(worst, math.Hypot(ax-bx, ay-by))
			}
		}
		if worst > 0.1 {
			t.Errorf("frame %d: fitted H differs from the true one by %.3f px", tf, worst)
		}
	}
	// background residuals are noise, object residuals its own motion
	var bgMax, objMin float64 = 0, math.Inf(1)
	for i := range ts.Tracks {
		for k := range m.Norm[i] {
			r := math.Hypot(float64(m.ResX[i][k]), float64(m.ResY[i][k]))
			if i < bg {
				bgMax = math.Max(bgMax, r)
			} else {
				objMin = math.Min(objMin, r)
			}
		}
	}
	if bgMax > 0.5 || objMin < 1 {
		t.Errorf("background residual up to %.3f px/frame, object residual from %.3f px/frame", bgMax, objMin)
	}
}

func TestEstimateStepAndStaticCamera(t *testing.T) {
	// a static camera: every background point stays put; Step 5 clipped at
	// the end of the sequence
	ts := &trajectory.TrackSet{Frames: 8}
	for k := range 50 {
		tr := trajectory.Track{}
		for f := range 8 {
			tr.Points = append(tr.Points, trajectory.Point{X: float64(10 * (k % 10)), Y: float64(10 * (k / 10)), Frame: f})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	m, err := Estimate(ts, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for tf, f := range m.Frames {
		want := min(5, 7-tf)
		if tf == 7 {
			want = 1
		}
		if f.Step != want {
			t.Errorf("frame %d: step %d, want %d", tf, f.Step, want)
		}
		near := true
		for j := range 9 {
			near = near && math.Abs(f.H[j]-Identity[j]) < 1e-9
		}
		if tf < 7 && (!f.Valid || f.Inliers != 50 || !near) {
			t.Errorf("frame %d: %+v, want the identity with 50 inliers", tf, f)
		}
		if f.Scale != DefaultOptions().MinScale {
			t.Errorf("frame %d: scale %v, want the floor", tf, f.Scale)
		}
	}
	for i := range ts.Tracks {
		if len(m.Norm[i]) != 7 {
			t.Fatalf("track %d: %d residuals, want 7", i, len(m.Norm[i]))
		}
		for _, r := range m.Norm[i] {
			if r > 1e-9 {
				t.Fatalf("track %d: residual %v on a static scene", i, r)
			}
		}
	}
}

func TestFitDLTExact(t *testing.T) {
	h := Homography{0.9, 0.1, 5, -0.05, 1.1, -3, 1e-4, 2e-4, 1}
	var x0, y0, x1, y1 []float64
	for _, p := range [][2]float64{{0, 0}, {100, 0}, {0, 100}, {100, 100}, {50, 30}} {
		x0 = append(x0, p[0])
		y0 = append(y0, p[1])
		a, b, _ := h.Apply(p[0], p[1])
		x1 = append(x1, a)
		y1 = append(y1, b)
	}
	got, ok := fitDLT(x0, y0, x1, y1, []int{0, 1, 2, 3})
	if !ok {
		t.Fatal("degenerate")
	}
	for j := range 9 {
		if math.Abs(got[j]-h[j]) > 1e-9*math.Max(1, math.Abs(h[j])) {
			t.Fatalf("h[%d] = %v, want %v (%v)", j, got[j], h[j], got)
		}
	}
	// collinear points are degenerate: the fit may not pass for a homography
	if _, ok := fitDLT([]float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}, x1, y1, []int{0, 1, 2, 3}); ok {
		t.Error("coincident points accepted")
	}
}

// The minimal solver of the RANSAC hypotheses gives the SVD's homography:
// on 200 random homographies (rotation, zoom, shear, perspective) and random
// samples of four points in a 854×480 frame, exact correspondences are
// mapped back to within 1e-6 px by both, and the two agree entry by entry;
// coincident and collinear samples are refused.
func TestFitMinimalMatchesDLT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		a, z := 0.2*(rng.Float64()-0.5), 1+0.2*(rng.Float64()-0.5)
		h := Homography{z * math.Cos(a), -z*math.Sin(a) + 0.05*rng.NormFloat64(), 20 * rng.NormFloat64(),
			z * math.Sin(a), z * math.Cos(a), 20 * rng.NormFloat64(), 1e-4 * rng.NormFloat64(), 1e-4 * rng.NormFloat64(), 1}
		var x0, y0, x1, y1 []float64
		for range 4 {
			x, y := 854*rng.Float64(), 480*rng.Float64()
			u, v, _ := h.Apply(x, y)
			x0, y0, x1, y1 = append(x0, x), append(y0, y), append(x1, u), append(y1, v)
		}
		gm, okm := fitMinimal(x0, y0, x1, y1, [4]int{0, 1, 2, 3})
		gd, okd := fitDLT(x0, y0, x1, y1, []int{0, 1, 2, 3})
		if !okm || !okd {
			t.Fatalf("trial %d: ok %v (minimal) %v (DLT)", trial, okm, okd)
		}
		for i := range 4 {
			if d := math.Sqrt(r2(&gm, x0[i], y0[i], x1[i], y1[i])); d > 1e-6 {
				t.Fatalf("trial %d: point %d maps %g px off", trial, i, d)
			}
		}
		for j := range 9 {
			if math.Abs(gm[j]-gd[j]) > 1e-7*math.Max(1, math.Abs(gd[j])) {
				t.Fatalf("trial %d: h[%d] = %v (minimal), %v (DLT)", trial, j, gm[j], gd[j])
			}
		}
	}
	x1, y1 := []float64{0, 10, 0, 10}, []float64{0, 0, 10, 10}
	for name, p := range map[string][2][]float64{
		"coincident": {{5, 5, 5, 5}, {5, 5, 5, 5}},
		"collinear":  {{0, 10, 20, 7}, {0, 10, 20, 3}}, // (0,0), (10,10), (20,20) on a line
	} {
		if _, ok := fitMinimal(p[0], p[1], x1, y1, [4]int{0, 1, 2, 3}); ok {
			t.Errorf("%s sample accepted", name)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{
		{Step: 0, Iterations: 1, Threshold: 1, MinScale: 1, Sample: 4},
		{Step: 1, Iterations: 0, Threshold: 1, MinScale: 1, Sample: 4},
		{Step: 1, Iterations: 1, Threshold: math.NaN(), MinScale: 1, Sample: 4},
		{Step: 1, Iterations: 1, Threshold: 1, MinScale: 0, Sample: 4},
		{Step: 1, Iterations: 1, Threshold: 1, MinScale: 1, Sample: 3},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Error(err)
	}
}

// A camera that follows an object: the object (static in the image, many
// points in the middle) is the largest consistent motion of the frame, the
// background translates by (3, 0) px per frame. Fitted on the whole frame the
// object is the "camera"; fitted on the border band it is the background.
func TestBorderBandFollowsTheBackground(t *testing.T) {
	ts := &trajectory.TrackSet{Frames: 6}
	add := func(x, y, vx float64) {
		tr := trajectory.Track{}
		for f := range 6 {
			tr.Points = append(tr.Points, trajectory.Point{X: x + vx*float64(f), Y: y, Frame: f})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	for y := 0.0; y <= 480; y += 40 {
		for x := 0.0; x <= 600; x += 40 {
			if x > 180 && x < 440 && y > 130 && y < 350 {
				continue
			}
			add(x, y, 3)
		}
	}
	bg := len(ts.Tracks)
	for y := 150.0; y < 330; y += 6 {
		for x := 200.0; x < 420; x += 6 {
			add(x, y, 0)
		}
	}
	if len(ts.Tracks)-bg <= bg {
		t.Fatalf("the object must outnumber the background: %d vs %d", len(ts.Tracks)-bg, bg)
	}
	opt := DefaultOptions()
	opt.Step = 1
	resid := func(m *Motion, i int) float64 { return math.Hypot(float64(m.ResX[i][0]), float64(m.ResY[i][0])) }
	whole, err := Estimate(ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := resid(whole, bg); r > 1e-6 {
		t.Errorf("whole frame: object residual %v, want 0 (the object is the dominant motion)", r)
	}
	opt.Border = 0.15
	band, err := Estimate(ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r := resid(band, 0); r > 1e-6 {
		t.Errorf("border band: background residual %v, want 0", r)
	}
	if r := resid(band, bg); math.Abs(r-3) > 1e-6 {
		t.Errorf("border band: object residual %v, want 3", r)
	}
	opt.Border = 0.7
	if _, err := Estimate(ts, opt); err == nil {
		t.Error("border 0.7 accepted")
	}
}

func TestTrackQuantilesMedian(t *testing.T) {
	m := &Motion{Norm: [][]float32{{3, 1, 2}, {4, 1}, {}, {7}}}
	got := m.TrackQuantiles(0.5)[0]
	// odd count: the middle value; even: the upper of the two middle ones
	want := []float64{2, 4, math.NaN(), 7}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("track %d: median %v, want %v", i, got[i], want[i])
		}
	}
	if m.Norm[0][0] != 3 {
		t.Error("TrackQuantiles reordered the residuals")
	}
}

func TestTrackQuantilesUpperQuartile(t *testing.T) {
	// rank ⌊0.75·n⌋ of the sorted residuals: n = 8 → the 7th smallest; a
	// hoof at rest for five of its eight steps has median 0.5 and upper
	// quartile 9; n = 2, 3, 4 → the largest; n = 5 → the 4th smallest
	m := &Motion{Norm: [][]float32{{0.2, 9, 0.1, 0.5, 12, 0.3, 8, 0.4}, {1, 4}, {5, 1, 2}, {1, 2, 3, 4}, {5, 4, 3, 2, 1}, {}}}
	got := m.TrackQuantiles(UpperQuartile)[0]
	want := []float64{9, 4, 5, 4, 4, math.NaN()}
	for i := range want {
		if float32(got[i]) != float32(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("track %d: upper quartile %v, want %v", i, got[i], want[i])
		}
	}
	if med := m.TrackQuantiles(0.5)[0][0]; float32(med) != 0.5 {
		t.Errorf("hoof: median %v, want 0.5", med)
	}
	// both at once, as segment asks for them: the same values
	both := m.TrackQuantiles(0.5, UpperQuartile)
	for j, single := range [][]float64{m.TrackQuantiles(0.5)[0], got} {
		for i := range single {
			if both[j][i] != single[i] && !(math.IsNaN(both[j][i]) && math.IsNaN(single[i])) {
				t.Errorf("quantile %d of track %d: %v together, %v alone", j, i, both[j][i], single[i])
			}
		}
	}
}
