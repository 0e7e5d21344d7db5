// Package morph holds binary morphology on row-major w×h masks with the
// (2r+1)×(2r+1) square as structuring element (Chebyshev radius r). Pixels
// outside the image are ignored: a dilation sees only the image, and an
// erosion does not shrink a set where it touches the image border.
package morph

// Dilate returns δ_r(in): every pixel within Chebyshev distance r of a set
// pixel. Separable: a max filter along the rows, then along the columns,
// O(w·h·r).
func Dilate(in []bool, w, h, r int) []bool {
	if r <= 0 {
		return append([]bool(nil), in...)
	}
	return maxPass(maxPass(in, w, h, r, 1, w), h, w, r, w, 1)
}

// maxPass is the 1-D max filter of radius r along lines of n pixels with
// stride step; m lines start stride apart (rows: n = w, step 1, stride w;
// columns: n = h, step w, stride 1).
func maxPass(in []bool, n, m, r, step, stride int) []bool {
	out := make([]bool, len(in))
	for j := 0; j < m; j++ {
		base := j * stride
		for i := 0; i < n; i++ {
			for k := max(i-r, 0); k <= min(i+r, n-1); k++ {
				if in[base+k*step] {
					out[base+i*step] = true
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

// Thin parts of an object mask F: with γ_r the opening by the (2r+1)²
// square, T = F ∖ γ_ThinRadius(F) are the parts of F narrower than
// 2·ThinRadius+1 = 5 px (lines, cords, spokes), and their band is
// δ_ThinBand(T) ∖ γ_ThinRadius(F): T and the pixels within ThinBand px
// (Chebyshev) of it, off the thick object. Label and mask scores can be
// given away from the band, where a right label of the scene behind a 1-px
// line is not counted as an error.
const (
	ThinRadius = 2
	ThinBand   = 3
)

// ThinPartsBand marks the band around the thin parts of fg (w×h).
func ThinPartsBand(fg []bool, w, h int) []bool {
	_, band := ThinParts(fg, w, h)
	return band
}

// ThinParts returns the thin parts T of fg (w×h) and their band (see
// ThinRadius).
func ThinParts(fg []bool, w, h int) (thin, band []bool) {
	thick := Open(fg, w, h, ThinRadius)
	thin = make([]bool, len(fg))
	for i := range fg {
		thin[i] = fg[i] && !thick[i]
	}
	band = Dilate(thin, w, h, ThinBand)
	for i := range band {
		band[i] = band[i] && !thick[i]
	}
	return thin, band
}

// Holes returns the holes of fg (w×h): the pixels outside fg that no path
// of 4-neighbours outside fg joins to the image border, such as the scene
// seen inside a wheel's rim or through a loop of rigging. The set is taken
// 8-connected and its complement 4-connected, the usual pair (Rosenfeld,
// "Connectivity in digital pictures", J. ACM 17(1), 1970): a ring closed
// only through a diagonal step still encloses its hole. A flood fill from
// the border, O(w·h).
func Holes(fg []bool, w, h int) []bool {
	outside := make([]bool, len(fg)) // background reached from the border
	stack := make([]int, 0, 2*(w+h))
	push := func(x, y int) {
		if i := y*w + x; !fg[i] && !outside[i] {
			outside[i] = true
			stack = append(stack, i)
		}
	}
	for x := 0; x < w; x++ {
		push(x, 0)
		push(x, h-1)
	}
	for y := 0; y < h; y++ {
		push(0, y)
		push(w-1, y)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(x-1, y)
		}
		if x < w-1 {
			push(x+1, y)
		}
		if y > 0 {
			push(x, y-1)
		}
		if y < h-1 {
			push(x, y+1)
		}
	}
	holes := make([]bool, len(fg))
	for i := range fg {
		holes[i] = !fg[i] && !outside[i]
	}
	return holes
}
