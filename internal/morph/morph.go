// Package morph holds binary morphology on row-major w×h masks with the
// (2r+1)×(2r+1) square as structuring element (Chebyshev radius r). Pixels
// outside the image are ignored: a dilation sees only the image, and an
// erosion does not shrink a set where it touches the image border.
package morph

// Dilate returns δ_r(in): every pixel within Chebyshev distance r of a set
// pixel. Separable: a max filter over rows, then over columns, O(w·h·r).
func Dilate(in []bool, w, h, r int) []bool {
	if r <= 0 {
		return append([]bool(nil), in...)
	}
	tmp := make([]bool, len(in))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for i := max(x-r, 0); i <= min(x+r, w-1); i++ {
				if in[y*w+i] {
					tmp[y*w+x] = true
					break
				}
			}
		}
	}
	out := make([]bool, len(in))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for i := max(y-r, 0); i <= min(y+r, h-1); i++ {
				if tmp[i*w+x] {
					out[y*w+x] = true
					break
				}
			}
		}
	}
	return out
}

// Erode returns ε_r(in) = ¬δ_r(¬in): the pixels whose whole square of radius
// r, clipped to the image, lies in the set.
func Erode(in []bool, w, h, r int) []bool {
	out := Dilate(not(in), w, h, r)
	for i, v := range out {
		out[i] = !v
	}
	return out
}

// Open returns the opening γ_r(in) = δ_r(ε_r(in)): the union of the squares
// of side 2r+1 that fit in the set. What it removes, in ∖ γ_r(in), are the
// parts of the set narrower than 2r+1 pixels (lines, thin limbs, spurs).
func Open(in []bool, w, h, r int) []bool {
	return Dilate(Erode(in, w, h, r), w, h, r)
}

func not(in []bool) []bool {
	out := make([]bool, len(in))
	for i, v := range in {
		out[i] = !v
	}
	return out
}
