package trainset

import (
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/densify/densify/internal/gmm"
	"github.com/densify/densify/trajectory"
)

// colourScene is a 40×30, 3-frame sequence: a red object (x 8–23, y 8–21)
// on blue water. Background cluster 0 has 3-point trajectories every 2 px
// outside the object; segment 7 has 56 long (3-point) trajectories on the
// object, a 1-point trajectory on the object at (9, 9), a 1-point
// trajectory on the water at (31, 15), like spray that moves with the
// object for a frame, a 3-point trajectory that follows the water at
// (35, 5) for its whole life (as long as the object's, like the water
// between kite lines), and a 3-point trajectory on the object at (11, 11)
// and (13, 11) in frames 0 and 1 that slips onto the water at (27, 11) in
// frame 2; segment 9, spray thrown off on its own, has three 1-point
// trajectories on the water at (33–37, 25).
func colourScene() (Input, func(f int) (image.Image, error)) {
	inObject := func(x, y int) bool { return x >= 8 && x < 24 && y >= 8 && y < 22 }
	ts := &trajectory.TrackSet{Frames: 3}
	for y := 0; y < 30; y += 2 {
		for x := 0; x < 40; x += 2 {
			l := 0
			if inObject(x, y) {
				l = 7
			}
			ts.Tracks = append(ts.Tracks, track(l, float64(x), float64(y), 0, 1, 2))
		}
	}
	ts.Tracks = append(ts.Tracks, track(7, 9, 9, 0), track(7, 31, 15, 0), track(9, 33, 25, 0), track(9, 35, 25, 0), track(9, 37, 25, 0),
		track(7, 35, 5, 0, 1, 2), trajectory.Track{Label: 7, Points: []trajectory.Point{{X: 11, Y: 11, Frame: 0}, {X: 13, Y: 11, Frame: 1}, {X: 27, Y: 11, Frame: 2}}})
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			n := uint8((x*7 + y*3) % 9) // a little texture
			c := color.RGBA{10 + n, 40 + n, 200 - n, 255}
			if inObject(x, y) {
				c = color.RGBA{210 - n, 30 + n, 20 + n, 255}
			}
			img.Set(x, y, c)
		}
	}
	frame := func(int) (image.Image, error) { return img, nil }
	return Input{Tracks: ts, Width: 40, Height: 30, Frame: frame}, frame
}

// The check decides per trajectory: the spray, the spray segment and the
// long trajectory on the water lose their labels in every frame; the short
// trajectory on the object keeps its, and so does the object's trajectory
// that slips onto the water for one frame of three (a per-point decision
// would drop that point; an inverted decision would drop the object).
func TestColourCheckDropsTrajectoriesOfBackgroundColour(t *testing.T) {
	in, _ := colourScene()
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius, opt.ColourWindow = []int{0}, 0, 1
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	at := func(f, x, y int) int16 { return set.Frames[f].Labels[y*40+x] }
	if at(0, 31, 15) != Unlabelled || at(0, 9, 9) != 1 || at(0, 10, 10) != 1 || at(0, 30, 14) != 0 {
		t.Errorf("labels: spray %d (want unlabelled), short on the object %d, long on the object %d, water %d",
			at(0, 31, 15), at(0, 9, 9), at(0, 10, 10), at(0, 30, 14))
	}
	if at(0, 33, 25) != Unlabelled || at(0, 35, 25) != Unlabelled || at(0, 37, 25) != Unlabelled {
		t.Errorf("labels of the spray segment: %d %d %d, want unlabelled", at(0, 33, 25), at(0, 35, 25), at(0, 37, 25))
	}
	for f := 0; f < 3; f++ {
		if at(f, 35, 5) != Unlabelled {
			t.Errorf("frame %d: the long trajectory on the water is labelled %d, want unlabelled", f, at(f, 35, 5))
		}
	}
	if at(0, 11, 11) != 1 || at(1, 13, 11) != 1 || at(2, 27, 11) != 1 {
		t.Errorf("the object's trajectory that slips onto the water: labels %d %d %d, want 1 1 1",
			at(0, 11, 11), at(1, 13, 11), at(2, 27, 11))
	}
	// 1 spray point, 3 of the spray segment, 3 of the long water trajectory.
	if set.DroppedColour != 7 || set.Summary().ColourRejected != 7 {
		t.Errorf("%d points dropped for their colour (summary %d), want 7", set.DroppedColour, set.Summary().ColourRejected)
	}
	if set.DroppedColourTracks != 5 || set.Summary().ColourRejectedTracks != 5 {
		t.Errorf("%d trajectories rejected for their colour (summary %d), want 5", set.DroppedColourTracks, set.Summary().ColourRejectedTracks)
	}
	// Off: the spray keeps its label.
	opt.ColourWindow = 0
	if s, err := Prepare(in, opt); err != nil || s.DroppedColour != 0 || s.Frames[0].Labels[15*40+31] != 1 {
		t.Errorf("colour check off: dropped %d, err %v", s.DroppedColour, err)
	}
}

// In multi-label mode every segment is its own class, but the check still
// pools them: the spray segment 9 (class 2 there, three 1-point
// trajectories of its own) is tested against the object's colours and
// dropped as in binary mode, and the object keeps its labels.
func TestColourCheckPoolsClassesInMultiMode(t *testing.T) {
	in, _ := colourScene()
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius, opt.ColourWindow, opt.Multi = []int{0}, 0, 1, true
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	at := func(f, x, y int) int16 { return set.Frames[f].Labels[y*40+x] }
	if set.Classes != 3 || at(0, 10, 10) != 1 || at(0, 9, 9) != 1 {
		t.Errorf("%d classes, object labels %d %d; want 3 classes, object class 1", set.Classes, at(0, 10, 10), at(0, 9, 9))
	}
	if at(0, 33, 25) != Unlabelled || at(0, 35, 25) != Unlabelled || at(0, 37, 25) != Unlabelled || at(0, 31, 15) != Unlabelled {
		t.Errorf("spray segment %d %d %d, spray %d; want unlabelled", at(0, 33, 25), at(0, 35, 25), at(0, 37, 25), at(0, 31, 15))
	}
	if set.DroppedColour != 7 || set.DroppedColourTracks != 5 {
		t.Errorf("%d points of %d trajectories dropped, want binary mode's 7 of 5", set.DroppedColour, set.DroppedColourTracks)
	}
}

// colourEvidence and colourRejected on one-component models of red (the
// class) and blue (the background): Λ is the mean log ratio over a
// trajectory's points, the decision its sign; background points and frames
// without models contribute nothing, and a trajectory with no point left
// has no Λ.
func TestColourRejectedSumsLogRatios(t *testing.T) {
	red, blue := fitTestColours(t, 200, 30, 20), fitTestColours(t, 20, 40, 200)
	models := []colourModel{{fg: map[int16]*gmm.Mixture{1: red}, bg: blue}, {}, {fg: map[int16]*gmm.Mixture{1: red}, bg: blue}}
	red3, blue3 := [3]uint8{200, 30, 20}, [3]uint8{20, 40, 200}
	samples := [][]colourSample{
		{{0, 1, true, red3}, {1, 1, true, blue3}, {2, 0, true, red3}, {3, 1, true, blue3}},
		{{3, 1, true, red3}, {3, 1, true, red3}}, // no models: ignored
		{{0, 1, true, blue3}, {1, 1, true, blue3}},
	}
	lambda := colourEvidence(5, samples, models)
	got := colourRejected(lambda)
	r0, _ := models[0].logRatio(1, red3)
	r1, _ := models[0].logRatio(1, blue3)
	if r0 >= 0 || r1 <= 0 {
		t.Fatalf("log ratios: red %g (want < 0), blue %g (want > 0)", r0, r1)
	}
	for i, want := range []float64{(r0 + r1) / 2, r1, math.NaN(), r1, math.NaN()} {
		if l := lambda[i]; !(math.Abs(l-want) < 1e-12 || math.IsNaN(l) && math.IsNaN(want)) {
			t.Errorf("track %d: Λ %g, want %g", i, l, want)
		}
	}
	// Track 0: red then blue, rejected iff the blue's ratio outweighs the red's.
	want := []bool{r0+r1 > 0, true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("track %d rejected %v, want %v", i, got[i], want[i])
		}
	}
}

// fitTestColours fits a colour model to 100 colours scattered around (r, g, b).
func fitTestColours(t *testing.T, r, g, b int) *gmm.Mixture {
	t.Helper()
	var cols []float64
	for i := 0; i < 100; i++ {
		cols = append(cols, float64(r+i%7-3), float64(g+i%5-2), float64(b+i%3-1))
	}
	m, err := gmm.Fit(cols, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestColourCheckErrors(t *testing.T) {
	in, _ := colourScene()
	opt := bare()
	opt.BackgroundClusters, opt.ColourWindow = []int{0}, 2
	noFrames := in
	noFrames.Frame = nil
	if _, err := Prepare(noFrames, opt); err == nil || !strings.Contains(err.Error(), "needs the frames") {
		t.Errorf("no frames: %v", err)
	}
	failing := in
	failing.Frame = func(int) (image.Image, error) { return nil, errors.New("frames/00001.jpg: unexpected EOF") }
	if _, err := Prepare(failing, opt); err == nil || !strings.Contains(err.Error(), "00001.jpg") {
		t.Errorf("unreadable frame: %v", err)
	}
	small := in
	small.Frame = func(int) (image.Image, error) { return image.NewRGBA(image.Rect(0, 0, 20, 30)), nil }
	if _, err := Prepare(small, opt); err == nil || !strings.Contains(err.Error(), "20x30") {
		t.Errorf("frame of another size: %v", err)
	}
	for _, w := range []int{-1, 1001} {
		o := opt
		o.ColourWindow = w
		if _, err := Prepare(in, o); err == nil {
			t.Errorf("colour window %d accepted", w)
		}
	}
}

// rgbAt reads YCbCr (decoded JPEG) and RGBA frames directly; the values
// are img.At's, frames whose bounds do not start at (0, 0) included.
func TestRGBAtFastPathsMatchAt(t *testing.T) {
	r := image.Rect(3, 5, 3+17, 5+11)
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 37)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(i*53+7), uint8(i*91+200)
	}
	rgba := image.NewRGBA(r)
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 29)
	}
	for _, img := range []image.Image{ycc, rgba} {
		for y := 0; y < r.Dy(); y++ {
			for x := 0; x < r.Dx(); x++ {
				cr, cg, cb, _ := img.At(r.Min.X+x, r.Min.Y+y).RGBA()
				want := [3]uint8{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8)}
				if got := rgbAt(img, x, y); got != want {
					t.Fatalf("%T (%d,%d): %v, want %v", img, x, y, got, want)
				}
			}
		}
	}
}
