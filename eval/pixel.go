package eval

// MoSegEvalPixel is MoSegEval's point → pixel rule (int)(x+0.5f), the one
// the FBMS evaluation must use to match the reference: float32 addition,
// truncation toward zero (−1.5 < x < 0.5 all give 0). ok is false for
// coordinates that cannot be pixel positions (NaN, ±Inf, huge). Everything
// else in densify uses trajectory.Pixel.
func MoSegEvalPixel(x, y float64) (px, py int, ok bool) {
	px, okx := roundCoord(x)
	py, oky := roundCoord(y)
	return px, py, okx && oky
}
