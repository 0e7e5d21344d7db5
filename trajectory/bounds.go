package trajectory

import (
	"fmt"
	"math"
)

// CheckBounds checks that every point of ts lies on frames of w×h pixels or
// within one pixel of them: its pixel (Pixel) must be inside the frame or
// on the ring of pixels around it, i.e. −1.5 ≤ x < w + 0.5 and
// −1.5 ≤ y < h + 0.5. Trackers write sub-pixel positions at the border
// (x = 11.6 in a 12-pixel-wide frame); MoSegEval scores such a point where
// (int)(x+0.5) falls inside the frame and skips it otherwise, and so do the
// consumers here (evaluation, training labels, ground-truth regions, heat
// maps: each checks the pixel it uses). A point farther out means tracks of
// another sequence or resolution, which every consumer would otherwise
// misread or silently drop. name (the Tracks file; may be empty) prefixes
// the error, which names the first offending track and frame.
func (ts *TrackSet) CheckBounds(name string, w, h int) error {
	prefix := ""
	if name != "" {
		prefix = name + ": "
	}
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%sframe size %dx%d is not positive", prefix, w, h)
	}
	xMax, yMax := float64(w)+0.5, float64(h)+0.5
	for i := range ts.Tracks {
		for _, p := range ts.Tracks[i].Points {
			if !(p.X >= -1.5 && p.X < xMax && p.Y >= -1.5 && p.Y < yMax) || math.IsNaN(p.X+p.Y) {
				return fmt.Errorf("%strack %d, frame %d: point (%g, %g) lies outside the %dx%d frames (tracks of another sequence or resolution?)",
					prefix, i, p.Frame, p.X, p.Y, w, h)
			}
		}
	}
	return nil
}
