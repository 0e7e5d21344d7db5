package sampling

import (
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/densify/densify/trajectory"
)

// colourScene is a 40×30, 3-frame sequence: a red object (x 8–23, y 8–21)
// on blue water. Background cluster 0 has 3-point trajectories every 2 px
// outside the object; segment 7 has 56 long (3-point) trajectories on the
// object, a 1-point trajectory on the object at (9, 9) and a 1-point
// trajectory on the water at (31, 15), like spray that moves with the
// object for a frame; segment 9, spray thrown off on its own, has three
// 1-point trajectories on the water at (33–37, 25).
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
	ts.Tracks = append(ts.Tracks, track(7, 9, 9, 0), track(7, 31, 15, 0), track(9, 33, 25, 0), track(9, 35, 25, 0), track(9, 37, 25, 0))
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

func TestColourCheckDropsShortForegroundPointsOfBackgroundColour(t *testing.T) {
	in, _ := colourScene()
	opt := bare()
	opt.BackgroundClusters, opt.SupportRadius, opt.ColourWindow = []int{0}, 0, 1
	set, err := Prepare(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	f := set.Frames[0]
	at := func(x, y int) int16 { return f.Labels[y*40+x] }
	if at(31, 15) != Unlabelled || at(9, 9) != 1 || at(10, 10) != 1 || at(30, 14) != 0 {
		t.Errorf("labels: spray %d (want unlabelled), short on the object %d, long on the object %d, water %d",
			at(31, 15), at(9, 9), at(10, 10), at(30, 14))
	}
	// Segment 9's trajectories are as long as its median, but short for
	// the class: dropped too.
	if at(33, 25) != Unlabelled || at(35, 25) != Unlabelled || at(37, 25) != Unlabelled {
		t.Errorf("labels of the spray segment: %d %d %d, want unlabelled", at(33, 25), at(35, 25), at(37, 25))
	}
	if set.DroppedColour != 4 || set.Summary().ColourRejected != 4 {
		t.Errorf("%d points dropped for their colour (summary %d), want 4", set.DroppedColour, set.Summary().ColourRejected)
	}
	// Off: the spray keeps its label.
	opt.ColourWindow = 0
	if s, err := Prepare(in, opt); err != nil || s.DroppedColour != 0 || s.Frames[0].Labels[15*40+31] != 1 {
		t.Errorf("colour check off: dropped %d, err %v", s.DroppedColour, err)
	}
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
