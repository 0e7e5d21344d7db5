package trajectory

import (
	"image"
	"math"
	"math/rand"
	"testing"
)

// noise returns a w×h grey image of uniform random intensities (texture everywhere).
func noise(w, h int, seed int64) *image.Gray {
	r := rand.New(rand.NewSource(seed))
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(r.Intn(256))
	}
	return g
}

// constFlow returns a w×h flow field equal to (u, v) everywhere.
func constFlow(w, h int, u, v float32) *FlowField {
	f := NewFlowField(w, h)
	for i := range f.U {
		f.U[i], f.V[i] = u, v
	}
	return f
}

func TestFlowAtBilinear(t *testing.T) {
	f := NewFlowField(3, 2)
	// u = x + 10y, v = 2x·y on the pixel grid
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			f.U[y*3+x] = float32(x + 10*y)
			f.V[y*3+x] = float32(2 * x * y)
		}
	}
	cases := []struct{ x, y, u, v float64 }{
		{0, 0, 0, 0},
		{2, 1, 12, 4},             // bottom-right corner pixel (border cell)
		{0.5, 0.5, 5.5, 0.5},      // v: mean of 0,0,0,2
		{1.25, 0.75, 8.75, 1.875}, // v = (1-.25)(.75)·2 + .25·.75·4
		{2, 0.5, 7, 2},
	}
	for _, c := range cases {
		u, v, ok := f.At(c.x, c.y)
		if !ok || math.Abs(u-c.u) > 1e-9 || math.Abs(v-c.v) > 1e-9 {
			t.Errorf("At(%v,%v) = %v,%v,%v; want %v,%v", c.x, c.y, u, v, ok, c.u, c.v)
		}
	}
	for _, p := range [][2]float64{{-0.01, 0}, {0, -1}, {2.001, 0}, {0, 1.5}, {math.NaN(), 0}} {
		if _, _, ok := f.At(p[0], p[1]); ok {
			t.Errorf("At(%v) inside, want outside", p)
		}
	}
}

func TestGradientEnergy(t *testing.T) {
	f := NewFlowField(5, 4)
	for y := 0; y < 4; y++ {
		for x := 0; x < 5; x++ {
			f.U[y*5+x] = float32(0.3 * float64(x))  // ∂x u = 0.3
			f.V[y*5+x] = float32(-0.2 * float64(y)) // ∂y v = −0.2
		}
	}
	e := f.GradientEnergy()
	for i, v := range e {
		if math.Abs(float64(v)-(0.09+0.04)) > 1e-6 {
			t.Fatalf("energy[%d] = %v, want 0.13", i, v)
		}
	}
}

func TestMinEigenvalues(t *testing.T) {
	// Uniform: zero. Vertical step edge: 1-D structure, λ_min = 0, while a
	// checkerboard corner has λ_min > 0.
	flat := image.NewGray(image.Rect(0, 0, 20, 20))
	for i := range flat.Pix {
		flat.Pix[i] = 77
	}
	for _, l := range MinEigenvalues(flat, 1.5) {
		if l != 0 {
			t.Fatalf("uniform image λ_min = %v", l)
		}
	}
	edge := image.NewGray(image.Rect(0, 0, 20, 20))
	corner := image.NewGray(image.Rect(0, 0, 20, 20))
	for y := 0; y < 20; y++ {
		for x := 0; x < 20; x++ {
			if x >= 10 {
				edge.Pix[y*20+x] = 200
			}
			if (x >= 10) != (y >= 10) {
				corner.Pix[y*20+x] = 200
			}
		}
	}
	le := MinEigenvalues(edge, 1.5)
	for i, l := range le {
		if l > 1e-9 {
			t.Fatalf("edge λ_min[%d] = %v, want 0", i, l)
		}
	}
	lc := MinEigenvalues(corner, 1.5)
	if lc[10*20+10] < 100 {
		t.Errorf("corner λ_min = %v, want large", lc[10*20+10])
	}
	// Hand-computed: a single bright pixel, σ = 0: at its right neighbour
	// Ix = (0−255)/2, Iy = 0 → λ_min = 0; at a diagonal pixel no gradient.
	dot := image.NewGray(image.Rect(0, 0, 5, 5))
	dot.Pix[2*5+2] = 255
	l0 := MinEigenvalues(dot, 0)
	if l0[2*5+3] != 0 || l0[1*5+1] != 0 {
		t.Errorf("σ=0 λ_min = %v, %v, want 0, 0", l0[2*5+3], l0[1*5+1])
	}
}

func track(t *testing.T, opt TrackerOptions, frames []*image.Gray, fwd, bwd []*FlowField) (*TrackSet, TrackerStats) {
	t.Helper()
	w, h := frames[0].Bounds().Dx(), frames[0].Bounds().Dy()
	tr, err := NewTracker(opt, w, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fwd {
		if err := tr.Add(frames[i], fwd[i], bwd[i]); err != nil {
			t.Fatal(err)
		}
	}
	ts := tr.Finish()
	return ts, tr.Stats()
}

func TestTrackerConstantTranslation(t *testing.T) {
	const w, h, n = 80, 48, 6
	const du, dv = 1.25, -0.5
	opt := DefaultTrackerOptions()
	opt.MinLength = 2
	var frames []*image.Gray
	var fwd, bwd []*FlowField
	for i := 0; i < n-1; i++ {
		frames = append(frames, noise(w, h, int64(i)))
		fwd = append(fwd, constFlow(w, h, du, dv))
		bwd = append(bwd, constFlow(w, h, -du, -dv))
	}
	ts, st := track(t, opt, frames, fwd, bwd)
	if ts.Frames != n {
		t.Fatalf("Frames = %d, want %d", ts.Frames, n)
	}
	// Frame 0: every grid cell (10×6) is seeded at its centre.
	seeded0 := 0
	for _, tk := range ts.Tracks {
		s := tk.Points[0]
		if tk.Label != 0 {
			t.Errorf("label %d, want 0", tk.Label)
		}
		if s.Frame == 0 {
			seeded0++
			if int(s.X)%8 != 4 || int(s.Y)%8 != 4 || s.X != math.Trunc(s.X) {
				t.Errorf("seed at (%v,%v), want a cell centre", s.X, s.Y)
			}
		}
		for k, p := range tk.Points {
			if p.Frame != s.Frame+k {
				t.Fatalf("non-contiguous track %v", tk.Points)
			}
			wx := s.X + float64(k)*du
			wy := s.Y + float64(k)*dv
			if math.Abs(p.X-wx) > 1e-9 || math.Abs(p.Y-wy) > 1e-9 {
				t.Fatalf("point %d at (%v,%v), want (%v,%v)", k, p.X, p.Y, wx, wy)
			}
		}
		// A track ends before the last frame only when its next position leaves the image.
		if e := tk.Points[len(tk.Points)-1]; e.Frame < n-1 {
			nx, ny := e.X+du, e.Y+dv
			if nx >= 0 && ny >= 0 && nx <= w-1 && ny <= h-1 {
				t.Errorf("track stopped at (%v,%v) frame %d although its next position is inside", e.X, e.Y, e.Frame)
			}
		}
	}
	if seeded0 != 10*6 {
		t.Errorf("%d seeds in frame 0, want 60", seeded0)
	}
	if st.Stopped[StopInconsistent] != 0 || st.Stopped[StopBoundary] != 0 {
		t.Errorf("constant flow stopped tracks: %+v", st.Stopped)
	}
}

func TestTrackerSeedsUncoveredCells(t *testing.T) {
	// Translation by exactly one cell per frame: at every later frame only the
	// leftmost column of cells (6 cells) is uncovered and gets new seeds;
	// the rightmost column's points leave the image.
	const w, h, n = 64, 48, 4
	opt := DefaultTrackerOptions()
	opt.MinLength = 1
	var frames []*image.Gray
	var fwd, bwd []*FlowField
	for i := 0; i < n-1; i++ {
		frames = append(frames, noise(w, h, int64(10+i)))
		fwd = append(fwd, constFlow(w, h, 8, 0))
		bwd = append(bwd, constFlow(w, h, -8, 0))
	}
	ts, st := track(t, opt, frames, fwd, bwd)
	perFrame := make([]int, n)
	for _, tk := range ts.Tracks {
		s := tk.Points[0]
		perFrame[s.Frame]++
		if s.Frame > 0 && s.X != 4 {
			t.Errorf("frame %d seed at x=%v, want 4 (uncovered left column)", s.Frame, s.X)
		}
	}
	want := []int{48, 6, 6, 0} // last frame: no Add, no seeding
	for f := range want {
		if perFrame[f] != want[f] {
			t.Errorf("frame %d: %d seeds, want %d", f, perFrame[f], want[f])
		}
	}
	if st.Stopped[StopLeftImage] != 3*6 {
		t.Errorf("%d tracks left the image, want 18", st.Stopped[StopLeftImage])
	}
	// Last frame: no seeding there, so the left column stays empty (7/8).
	if st.Covered[0] != 1 || st.Covered[2] != 1 || st.Covered[3] != 0.875 {
		t.Errorf("coverage %v, want 1 1 1 0.875", st.Covered)
	}
}

func TestTrackerNoSeedsOnTexturelessRegions(t *testing.T) {
	const w, h = 64, 40
	g := noise(w, h, 3)
	for y := 0; y < h; y++ {
		for x := 32; x < w; x++ {
			g.Pix[y*w+x] = 128
		}
	}
	opt := DefaultTrackerOptions()
	opt.MinLength = 1
	zero := NewFlowField(w, h)
	ts, _ := track(t, opt, []*image.Gray{g}, []*FlowField{zero}, []*FlowField{zero})
	left := 0
	for _, tk := range ts.Tracks {
		x := tk.Points[0].X
		if x >= 40 { // Gaussian support of σ=1.5 reaches 5 px past the edge at 31/32
			t.Errorf("seed at x=%v in the textureless half", x)
		}
		if x < 32 {
			left++
		}
	}
	if left != 4*5 {
		t.Errorf("%d seeds on the textured half, want 20", left)
	}
	flat := image.NewGray(image.Rect(0, 0, w, h))
	ts, _ = track(t, opt, []*image.Gray{flat}, []*FlowField{zero}, []*FlowField{zero})
	if len(ts.Tracks) != 0 {
		t.Errorf("uniform frame produced %d tracks", len(ts.Tracks))
	}
}

func TestTrackerInconsistentBackwardFlowStops(t *testing.T) {
	// Forward (1,0) everywhere; backward is −forward on the left half but 0
	// on the right half: |w+ŵ|² = 1 > 0.01·1 + 0.5 there.
	const w, h, n = 64, 32, 5
	opt := DefaultTrackerOptions()
	opt.MinLength = 1
	var frames []*image.Gray
	var fwd, bwd []*FlowField
	for i := 0; i < n-1; i++ {
		frames = append(frames, noise(w, h, int64(20+i)))
		fwd = append(fwd, constFlow(w, h, 1, 0))
		b := constFlow(w, h, -1, 0)
		for y := 0; y < h; y++ {
			for x := 32; x < w; x++ {
				b.U[y*w+x] = 0
			}
		}
		bwd = append(bwd, b)
	}
	ts, st := track(t, opt, frames, fwd, bwd)
	for _, tk := range ts.Tracks {
		for k, p := range tk.Points[1:] {
			if p.X >= 32 {
				t.Fatalf("track reached x=%v (point %d) in the inconsistent half", p.X, k+1)
			}
		}
	}
	if st.Stopped[StopInconsistent] == 0 {
		t.Error("no track stopped by the consistency test")
	}
	// With MinLength 2 the right-half seeds (length 1) are dropped.
	opt.MinLength = 2
	ts, _ = track(t, opt, frames, fwd, bwd)
	for _, tk := range ts.Tracks {
		if tk.Points[0].X >= 32 {
			t.Errorf("length-%d track at x=%v kept", len(tk.Points), tk.Points[0].X)
		}
	}
	// Relaxing the absolute threshold above 1 lets them pass.
	opt.ConsistencyAbs = 1.5
	_, st = track(t, opt, frames, fwd, bwd)
	if st.Stopped[StopInconsistent] != 0 {
		t.Errorf("%d stopped with the relaxed threshold", st.Stopped[StopInconsistent])
	}
}

// occlusionSequence: static textured background; an 16×16 square moving 2
// px/frame to the right from x0 = 8 occludes it. Flows are exact: forward is
// (2,0) on the square at t, 0 elsewhere; backward is (−2,0) on the square at
// t+1, 0 elsewhere (disoccluded pixels have background flow 0).
func occlusionSequence(n int) (frames []*image.Gray, fwd, bwd []*FlowField, sq func(t int) image.Rectangle) {
	const w, h = 96, 48
	sq = func(t int) image.Rectangle { return image.Rect(8+2*t, 16, 24+2*t, 32) }
	for i := 0; i < n-1; i++ {
		frames = append(frames, noise(w, h, int64(40+i)))
		f, b := NewFlowField(w, h), NewFlowField(w, h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if image.Pt(x, y).In(sq(i)) {
					f.U[y*w+x] = 2
				}
				if image.Pt(x, y).In(sq(i + 1)) {
					b.U[y*w+x] = -2
				}
			}
		}
		fwd, bwd = append(fwd, f), append(bwd, b)
	}
	return
}

func TestTrackerStopsAtOcclusion(t *testing.T) {
	const n = 10
	frames, fwd, bwd, sq := occlusionSequence(n)
	opt := DefaultTrackerOptions()
	opt.MinLength = 1
	opt.BoundaryAbs = -1 // consistency only
	ts, st := track(t, opt, frames, fwd, bwd)
	onSquare := 0
	for _, tk := range ts.Tracks {
		s := tk.Points[0]
		moving := image.Pt(int(s.X), int(s.Y)).In(sq(s.Frame))
		for _, p := range tk.Points {
			in := image.Pt(int(p.X), int(p.Y)).In(sq(p.Frame))
			if !moving && in {
				t.Fatalf("background track inside the occluding square at frame %d (%v,%v)", p.Frame, p.X, p.Y)
			}
		}
		if moving && len(tk.Points) == n-s.Frame {
			onSquare++
		}
		if !moving && (s.Y < 14 || s.Y > 34) && len(tk.Points) != n-s.Frame {
			t.Errorf("background track far from the square stopped early: %v", tk.Points)
		}
	}
	if onSquare < 4 {
		t.Errorf("%d full-length tracks on the square, want ≥ 4", onSquare)
	}
	if st.Stopped[StopInconsistent] == 0 {
		t.Error("no background track stopped at the occlusion")
	}
	opt.BoundaryAbs = 0.002
	_, st = track(t, opt, frames, fwd, bwd)
	if st.Stopped[StopBoundary] == 0 {
		t.Error("motion-boundary test never fired at the square's edges")
	}
}

func TestTrackerMinLengthAndValidation(t *testing.T) {
	const w, h = 32, 32
	opt := DefaultTrackerOptions()
	opt.MinLength = 4
	frames := []*image.Gray{noise(w, h, 1), noise(w, h, 2)}
	z := []*FlowField{NewFlowField(w, h), NewFlowField(w, h)}
	ts, st := track(t, opt, frames, z, z) // 3 frames: all tracks have ≤ 3 points
	if len(ts.Tracks) != 0 || st.Dropped != st.Seeded || st.Seeded != 16 {
		t.Errorf("kept %d, dropped %d of %d seeds; want 0, 16 of 16", len(ts.Tracks), st.Dropped, st.Seeded)
	}
	bad := []TrackerOptions{{Spacing: 0, MinLength: 2}, {Spacing: 8, MinLength: 0}}
	for _, o := range bad {
		if _, err := NewTracker(o, 10, 10); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	o := DefaultTrackerOptions()
	o.StructureThreshold = math.NaN()
	if _, err := NewTracker(o, 10, 10); err == nil {
		t.Error("NaN threshold accepted")
	}
	tr, _ := NewTracker(DefaultTrackerOptions(), w, h)
	if err := tr.Add(noise(w, h, 1), NewFlowField(w, h+1), NewFlowField(w, h)); err == nil {
		t.Error("flow of the wrong size accepted")
	}
	if err := tr.Add(noise(w, h, 1), &FlowField{W: w, H: h}, NewFlowField(w, h)); err == nil {
		t.Error("flow without samples accepted")
	}
	nan := constFlow(w, h, float32(math.NaN()), 0)
	if err := tr.Add(noise(w, h, 1), nan, nan); err != nil {
		t.Fatal(err)
	}
	if ts := tr.Finish(); len(ts.Tracks) != 0 {
		t.Errorf("NaN flow produced %d tracks", len(ts.Tracks))
	}
}

func TestAppearanceChangeHandComputed(t *testing.T) {
	flat := func(v uint8) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, 9, 9))
		for i := range g.Pix {
			g.Pix[i] = v
		}
		return g
	}
	// A flat patch of 100 against the same patch with a centre pixel of
	// 150: D̄ = 50/25 = 2, mean|D − D̄| = (24·2 + 48)/25 = 3.84,
	// mean|B − B̄| = 3.84, mean|A − Ā| = 0, so c = 3.84/(1.92 + 2).
	a, b := flat(100), flat(100)
	b.Pix[4*9+4] = 150
	if got, want := AppearanceChange(a, b, 4, 4, 4, 4), 3.84/3.92; math.Abs(got-want) > 1e-12 {
		t.Errorf("centre pixel: c = %v, want %v", got, want)
	}
	// A ramp I = 10x followed exactly one pixel to the right: D = 10
	// everywhere, so nothing changes but the brightness: c = 0.
	ramp := image.NewGray(image.Rect(0, 0, 12, 9))
	for y := 0; y < 9; y++ {
		for x := 0; x < 12; x++ {
			ramp.Pix[y*12+x] = uint8(10 * x)
		}
	}
	if got := AppearanceChange(ramp, ramp, 4, 4, 5, 4); got != 0 {
		t.Errorf("ramp followed exactly: c = %v, want 0", got)
	}
	// A uniform change of brightness costs nothing either.
	n := noise(20, 20, 3)
	brighter := image.NewGray(n.Rect)
	for i, v := range n.Pix {
		brighter.Pix[i] = uint8(min(int(v)/2+40, 255))
	}
	half := image.NewGray(n.Rect)
	for i, v := range n.Pix {
		half.Pix[i] = v / 2
	}
	if got := AppearanceChange(half, brighter, 10, 10, 10, 10); got != 0 {
		t.Errorf("brighter by 40: c = %v, want 0", got)
	}
	// Two unrelated noise patches differ by about their contrast: c near 1
	// (for independent uniform noise E|D − D̄| ≈ 85, E|A − Ā| ≈ 64).
	m := noise(20, 20, 4)
	if got := AppearanceChange(n, m, 10, 10, 10, 10); got < 0.8 {
		t.Errorf("unrelated patches: c = %v, want ≥ 0.8", got)
	}
}

func TestTrackerAppearanceStopsPointsCarriedOverAnotherSurface(t *testing.T) {
	const w, h, n = 64, 40, 5
	// The flow says "move 2 px right", and frame t+1 is frame t moved
	// 2 px right: every point follows its surface.
	moved := func(g *image.Gray, dx int) *image.Gray {
		o := image.NewGray(g.Rect)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o.Pix[y*w+x] = g.Pix[y*w+max(x-dx, 0)]
			}
		}
		return o
	}
	frames := []*image.Gray{noise(w, h, 1)}
	for i := 1; i < n; i++ {
		frames = append(frames, moved(frames[i-1], 2))
	}
	run := func(frames []*image.Gray, tau float64, withNext bool) TrackerStats {
		opt := DefaultTrackerOptions()
		opt.Appearance = tau
		tr, err := NewTracker(opt, w, h)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n-1; i++ {
			var next *image.Gray
			if withNext {
				next = frames[i+1]
			}
			if err := tr.AddNext(frames[i], next, constFlow(w, h, 2, 0), constFlow(w, h, -2, 0)); err != nil {
				t.Fatal(err)
			}
		}
		tr.Finish()
		return tr.Stats()
	}
	if st := run(frames, 0.5, true); st.Stopped[StopAppearance] != 0 {
		t.Errorf("points that follow their surface: %d stopped by the appearance test", st.Stopped[StopAppearance])
	}
	// The same flow over frames of unrelated texture: the flow carries every
	// point onto another surface, and every point alive is stopped.
	unrelated := []*image.Gray{noise(w, h, 1)}
	for i := 1; i < n; i++ {
		unrelated = append(unrelated, noise(w, h, int64(10+i)))
	}
	st := run(unrelated, 0.5, true)
	if st.Stopped[StopAppearance] != st.Seeded || st.Kept != 0 {
		t.Errorf("unrelated frames: %d of %d seeded stopped by appearance, %d kept; want all stopped, none kept",
			st.Stopped[StopAppearance], st.Seeded, st.Kept)
	}
	// Without the next frame, or with τ = 0, the test is off.
	for _, c := range []struct {
		tau  float64
		next bool
	}{{0.5, false}, {0, true}} {
		if st := run(unrelated, c.tau, c.next); st.Stopped[StopAppearance] != 0 || st.Kept == 0 {
			t.Errorf("τ = %v, next given %v: %d stopped by appearance, %d kept", c.tau, c.next, st.Stopped[StopAppearance], st.Kept)
		}
	}
	tr, _ := NewTracker(DefaultTrackerOptions(), w, h)
	if err := tr.AddNext(frames[0], noise(w, h+1, 1), constFlow(w, h, 2, 0), constFlow(w, h, -2, 0)); err == nil {
		t.Error("a next frame of another size was accepted")
	}
	if err := (TrackerOptions{Spacing: 8, MinLength: 3, Appearance: -1}).Validate(); err == nil {
		t.Error("a negative appearance threshold was accepted")
	}
}

// greyAt samples a sub-image (Rect.Min ≠ 0, Stride wider than the
// rectangle) at exactly the values of the same points in its parent,
// including a 1-px-wide column at the parent's bottom-right corner, whose
// last pixel ends the parent's Pix; and refuses points outside the
// rectangle.
func TestGreyAtSubImage(t *testing.T) {
	const w, h = 7, 5
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(37*i + 11)
	}
	for _, r := range []image.Rectangle{image.Rect(2, 1, 6, 4), image.Rect(6, 2, 7, 5), image.Rect(3, 4, 7, 5)} {
		sub := g.SubImage(r).(*image.Gray)
		x1, y1 := float64(r.Dx()-1), float64(r.Dy()-1)
		for _, p := range [][2]float64{{0, 0}, {x1 / 2, y1 / 4}, {x1, y1}, {x1 / 3, y1 * 0.7}} {
			got, ok := greyAt(sub, p[0], p[1])
			want, okw := greyAt(g, p[0]+float64(r.Min.X), p[1]+float64(r.Min.Y))
			if !ok || !okw || math.Abs(got-want) > 1e-9 {
				t.Errorf("sub-image %v at %v: %v (%v), parent %v (%v)", r, p, got, ok, want, okw)
			}
		}
		if _, ok := greyAt(sub, float64(r.Dx()), 0); ok {
			t.Errorf("sub-image %v: a point right of the rectangle is sampled", r)
		}
	}
}
