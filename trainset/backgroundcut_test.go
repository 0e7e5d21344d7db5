package trainset

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/internal/colourcut"
	"github.com/densify/densify/trajectory"
)

// cutScene is a 120×80 frame: a dark background (grey 40, with a little
// deterministic texture so that no colour mixture is degenerate) and a
// bright square object [40, 70) × [20, 50) (grey 200), with 16 foreground
// labels in the square's top-left corner and background labels on the
// left strip x < 10 only. Everything else is unlabelled.
func cutScene() (image.Image, []int16, int, int) {
	const W, H = 120, 80
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	labels := make([]int16, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := 40
			if inSquare(x, y) {
				v = 200
			}
			v += (x*7+y*13)%9 - 4
			img.Set(x, y, color.RGBA{uint8(v), uint8(v + 2), uint8(v - 2), 255})
			labels[y*W+x] = Unlabelled
			if x < 10 && (x+y)%2 == 0 {
				labels[y*W+x] = 0
			}
		}
	}
	for y := 22; y <= 28; y += 2 {
		for x := 42; x <= 48; x += 2 {
			labels[y*W+x] = 1
		}
	}
	return img, labels, W, H
}

func inSquare(x, y int) bool { return x >= 40 && x < 70 && y >= 20 && y < 50 }

// squareDist2 is the squared distance from (x, y) to the nearest pixel of
// the square.
func squareDist2(x, y int) float64 {
	dx := max(40-x, 0, x-69)
	dy := max(20-y, 0, y-49)
	return float64(dx*dx + dy*dy)
}

// The cut gives the whole square to the object (its labels cover one
// corner only) and the dark pixels to the background: exactly the
// unlabelled grid points that are dark, within r of a foreground label and
// more than the margin from the square become background labels; none in
// the square, none beyond r (the far-background points' region), none
// within the margin.
func TestAddCutBackgroundLabelsTheRingByColour(t *testing.T) {
	img, labels, W, H := cutScene()
	const step, r, margin = 10, 40.0, 10.0
	want := map[int]bool{}
	for y := step / 2; y < H; y += step {
		for x := step / 2; x < W; x += step {
			near := false
			for i, v := range labels {
				if v >= 1 {
					dx, dy := float64(i%W-x), float64(i/W-y)
					near = near || dx*dx+dy*dy <= r*r
				}
			}
			if labels[y*W+x] == Unlabelled && near && !inSquare(x, y) && squareDist2(x, y) > margin*margin {
				want[y*W+x] = true
			}
		}
	}
	if len(want) < 10 {
		t.Fatalf("scene too small: %d expected points", len(want))
	}
	got := append([]int16(nil), labels...)
	n, err := addCutBackground(img, got, W, H, step, r, margin, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("added %d points, want %d", n, len(want))
	}
	for i := range got {
		switch {
		case want[i] && got[i] != 0:
			t.Errorf("(%d,%d): label %d, want background", i%W, i/W, got[i])
		case !want[i] && got[i] != labels[i]:
			t.Errorf("(%d,%d): label %d changed to %d", i%W, i/W, labels[i], got[i])
		}
	}

	// The same frame with its bounds starting at (5, 7): the same labels.
	shifted := image.NewRGBA(image.Rect(5, 7, W+5, H+7))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			shifted.Set(x+5, y+7, img.At(x, y))
		}
	}
	moved := append([]int16(nil), labels...)
	if k, err := addCutBackground(shifted, moved, W, H, step, r, margin, nil, 0); err != nil || k != n || !slices.Equal(moved, got) {
		t.Errorf("frame with bounds at (5,7): added %d (err %v), want the same %d labels", k, err, n)
	}

	// A point to avoid removes the grid points within the gap of it.
	var first int
	for i := range got {
		if want[i] {
			first = i
			break
		}
	}
	again := append([]int16(nil), labels...)
	m, err := addCutBackground(img, again, W, H, step, r, margin, [][2]int{{first % W, first/W + 2}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m != n-1 || again[first] != Unlabelled {
		t.Errorf("with a point to avoid 2 px from (%d,%d): added %d (want %d), its label %d", first%W, first/W, m, n-1, again[first])
	}

	// Without a margin the ring right next to the square is labelled too.
	wide := append([]int16(nil), labels...)
	if k, err := addCutBackground(img, wide, W, H, step, r, 0, nil, 0); err != nil || k <= n {
		t.Errorf("margin 0: added %d (err %v), want more than %d", k, err, n)
	}
}

// Labels are hard constraints: a foreground label on a background-coloured
// pixel and a background label on the object's colour keep their sides in
// the cut.
func TestBackgroundCutKeepsLabelledPixels(t *testing.T) {
	img, labels, W, H := cutScene()
	labels[60*W+100] = 1 // dark pixel, foreground label
	labels[45*W+65] = 0  // bright pixel, background label
	node := make([]int32, W*H)
	for i := range node {
		node[i] = int32(i)
	}
	rgb := make([]float64, 3*W*H)
	for i := range W * H {
		c := rgbAt(img, i%W, i/W)
		rgb[3*i], rgb[3*i+1], rgb[3*i+2] = float64(c[0]), float64(c[1]), float64(c[2])
	}
	obj, ok, err := backgroundCut(rgb, labels, node, W*H, W, H)
	if err != nil || !ok {
		t.Fatalf("backgroundCut: ok %v, err %v", ok, err)
	}
	for i, l := range labels {
		if l >= 0 && obj[i] != (l >= 1) {
			t.Errorf("label (%d,%d) of class %d is on the %v side", i%W, i/W, l, obj[i])
		}
	}
	if !obj[35*W+60] || obj[70*W+20] {
		t.Errorf("unlabelled square pixel object %v, dark pixel object %v; want true, false", obj[35*W+60], obj[70*W+20])
	}
}

// No foreground label, or too few labelled pixels of a side for a colour
// model: no cut and nothing added.
func TestAddCutBackgroundNeedsLabels(t *testing.T) {
	img, labels, W, H := cutScene()
	none := append([]int16(nil), labels...)
	for i, l := range none {
		if l >= 1 {
			none[i] = Unlabelled
		}
	}
	if n, err := addCutBackground(img, none, W, H, 10, 40, 10, nil, 0); n != 0 || err != nil {
		t.Errorf("no foreground labels: added %d, err %v", n, err)
	}
	few := append([]int16(nil), labels...)
	k := 0
	for i, l := range few {
		if l >= 1 {
			if k++; k > colourcut.MinSamples-1 {
				few[i] = Unlabelled
			}
		}
	}
	if n, err := addCutBackground(img, few, W, H, 10, 40, 10, nil, 0); n != 0 || err != nil {
		t.Errorf("%d foreground labels: added %d, err %v", colourcut.MinSamples-1, n, err)
	}
	if n, err := addCutBackground(img, append([]int16(nil), labels...), W, H, 10, math.NaN(), 10, nil, 0); n != 0 || err != nil {
		t.Errorf("r NaN: added %d, err %v", n, err)
	}
}

// Through Prepare: on cutScene's frame, with trajectories at its labels
// and r = 40 px, the background cut adds background points only where
// addCutBackground's conditions hold (on top of the far-background points
// beyond r, which become hard constraints too), the set counts them, and
// without the frames Prepare refuses.
func TestPrepareAddsBackgroundCutPoints(t *testing.T) {
	img, labels, W, H := cutScene()
	ts := &trajectory.TrackSet{Frames: 3} // three frames, cut concurrently
	for i, l := range labels {
		switch {
		case l >= 1:
			ts.Tracks = append(ts.Tracks, track(7, float64(i%W), float64(i/W), 0, 1, 2))
		case l == 0:
			ts.Tracks = append(ts.Tracks, track(0, float64(i%W), float64(i/W), 0, 1, 2))
		}
	}
	in := Input{Tracks: ts, Width: W, Height: H, Frame: func(int) (image.Image, error) { return img, nil }}
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius = []int{0}, 0
	opt.FarBackground, opt.BorderStep, opt.FarGap = 40/math.Hypot(float64(W), float64(H)), 10, 0
	opt.CutBackground, opt.CutMargin = true, 10
	var calls [][2]int
	opt.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	on, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{1, 3}, {2, 3}, {3, 3}}; !slices.Equal(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
	opt.CutBackground, opt.Progress = false, nil
	off, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for i, l := range on.Frames[0].Labels {
		if l == off.Frames[0].Labels[i] {
			continue
		}
		added++
		x, y := i%W, i/W
		if l != 0 || off.Frames[0].Labels[i] != Unlabelled || inSquare(x, y) || squareDist2(x, y) <= 100 || x%10 != 5 || y%10 != 5 {
			t.Errorf("(%d,%d): label %d → %d", x, y, off.Frames[0].Labels[i], l)
		}
	}
	if n := on.Frames[0].NCut; added == 0 || n != added || on.Summary().CutPoints != 3*added || off.Summary().CutPoints != 0 {
		t.Errorf("%d labels added, NCut %d, summary %d (off: %d), want 3 frames of %d", added, n, on.Summary().CutPoints, off.Summary().CutPoints, added)
	}
	if c := on.Frames[0].Counts[0]; c != off.Frames[0].Counts[0]+added {
		t.Errorf("background count %d, want %d + %d", c, off.Frames[0].Counts[0], added)
	}
	for _, fr := range on.Frames[1:] {
		if !slices.Equal(fr.Labels, on.Frames[0].Labels) || fr.NCut != added || fr.Counts[0] != on.Frames[0].Counts[0] {
			t.Errorf("frame %d: NCut %d, %d background labels; want frame 0's %d, %d", fr.Frame, fr.NCut, fr.Counts[0], added, on.Frames[0].Counts[0])
		}
	}
	if w := on.Frames[0].Weights; w[35*W+15] != 1 {
		t.Errorf("weight of an added point %v, want the background's 1", w[35*W+15])
	}
	opt.CutBackground, in.Frame = true, nil
	if _, err := Prepare(in, opt); err == nil || !strings.Contains(err.Error(), "background cut needs the frames") {
		t.Errorf("no frames: %v", err)
	}
}

// BenchmarkPrepareBackgroundCut854x480 is Prepare with the background cut
// on eight 854×480 frames (a textured background, a 200×150 bright object
// with foreground trajectories every 6 px, background trajectories every
// 12 px farther than 40 px from it), all else off: ns/op over the eight
// frames, which the cut spreads over GOMAXPROCS cores.
func BenchmarkPrepareBackgroundCut854x480(b *testing.B) {
	const W, H, frames = 854, 480, 8
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	obj := func(x, y int) bool { return x >= 300 && x < 500 && y >= 150 && y < 300 }
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := 60 + (x*7+y*13)%23
			if obj(x, y) {
				v = 190 + (x*5+y*3)%17
			}
			img.Set(x, y, color.RGBA{uint8(v), uint8(v + 3), uint8(v - 3), 255})
		}
	}
	all := make([]int, frames)
	for f := range all {
		all[f] = f
	}
	ts := &trajectory.TrackSet{Frames: frames}
	for y := 3; y < H; y += 6 {
		for x := 3; x < W; x += 6 {
			dx, dy := max(300-x, 0, x-499), max(150-y, 0, y-299)
			switch {
			case obj(x, y):
				ts.Tracks = append(ts.Tracks, track(7, float64(x), float64(y), all...))
			case x%12 == 3 && y%12 == 3 && dx*dx+dy*dy > 40*40:
				ts.Tracks = append(ts.Tracks, track(0, float64(x), float64(y), all...))
			}
		}
	}
	in := Input{Tracks: ts, Width: W, Height: H, Frame: func(int) (image.Image, error) { return img, nil }}
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius = []int{0}, 0
	opt.FarBackground, opt.BorderStep, opt.FarGap = 0.1, 10, DefaultFarGap
	opt.CutBackground, opt.CutMargin = true, DefaultCutMargin
	b.ResetTimer()
	for range b.N {
		set, err := Prepare(in, opt)
		if err != nil {
			b.Fatal(err)
		}
		if set.Summary().CutPoints == 0 {
			b.Fatal("no background-cut points")
		}
	}
}

// cutWorkers: every core while cutMemory holds their frames' cuts, fewer
// for large frames, never none.
func TestCutWorkersByHand(t *testing.T) {
	for _, c := range []struct{ w, h, procs, want int }{
		{854, 480, 2, 2},    // 164 MB per cut: all cores
		{854, 480, 64, 13},  // 2 GiB / 164 MB
		{1920, 1080, 16, 2}, // 829 MB per cut
		{4000, 3000, 16, 1}, // 4.8 GB per cut: still one
		{854, 480, 1, 1},
	} {
		if got := cutWorkers(c.w, c.h, c.procs); got != c.want {
			t.Errorf("cutWorkers(%d, %d, %d) = %d, want %d", c.w, c.h, c.procs, got, c.want)
		}
	}
}
