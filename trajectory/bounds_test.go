package trajectory

import (
	"strings"
	"testing"
)

func TestCheckBounds(t *testing.T) {
	mk := func(x, y float64) *TrackSet {
		return &TrackSet{Frames: 3, Tracks: []Track{
			{Points: []Point{{X: 0, Y: 0, Frame: 0}, {X: 9, Y: 4, Frame: 1}}},
			{Points: []Point{{X: 1, Y: 1, Frame: 1}, {X: x, Y: y, Frame: 2}}},
		}}
	}
	for _, c := range []struct {
		x, y float64
		ok   bool
	}{
		{-0.5, -0.5, true}, {9.49, 4.49, true}, // round to pixels (0,0) and (9,4)
		// within one pixel of the frame: sub-pixel positions at the border
		{-0.51, 2, true}, {9.5, 2, true}, {2, 4.5, true}, {-1.5, -1.5, true}, {10.49, 5.49, true},
		{-1.51, 2, false}, {10.5, 2, false}, {2, 5.5, false}, {2, -7, false}, {1e300, 2, false},
	} {
		err := mk(c.x, c.y).CheckBounds("s/Tracks3.dat", 10, 5)
		if (err == nil) != c.ok {
			t.Errorf("(%g, %g): %v", c.x, c.y, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "s/Tracks3.dat: track 1, frame 2: point (") {
			t.Errorf("message %q", err)
		}
	}
	if err := mk(1, 1).CheckBounds("", 0, 5); err == nil {
		t.Error("zero width accepted")
	}
}
