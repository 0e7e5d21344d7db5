package trajectory

import "math"

// Pixel is the pixel holding the image point (x, y) when pixel (i, j) has
// its centre at (i, j): (⌊x+½⌋, ⌊y+½⌋), halves rounded up. It is the one
// point → pixel rule of densify (training labels, ground-truth regions,
// heat maps, drawings, statistics); the result may lie outside the image,
// callers check the bounds.
//
// The FBMS evaluation is the exception: it must match MoSegEval, whose
// (int)(x+0.5f) adds in float32 and truncates toward zero (so −1.5 < x < 0.5
// all give pixel 0); eval implements that rule (eval.MoSegEvalPixel) and
// synth uses it so that its ground truth agrees with the evaluation.
func Pixel(x, y float64) (int, int) {
	return int(math.Floor(x + 0.5)), int(math.Floor(y + 0.5))
}

// Pixel is the pixel holding the point (see the function Pixel).
func (p Point) Pixel() (int, int) { return Pixel(p.X, p.Y) }
