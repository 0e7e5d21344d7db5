package decompose_test

import (
	"fmt"
	"image"
	"image/color"

	"github.com/densify/densify/decompose"
)

// A 24×16 image, dark on the left and bright on the right of x = 12,
// decomposes into two segments, one on each side of the edge. The
// uncertainty u = σ(−γ) of Kardoost & Keuper (UAI 2021, Eq. 13) is 0 away
// from the edge, where no pixel has a neighbour in the other segment, and
// highest on the column beside the edge.
func ExampleDecompose() {
	const w, h = 24, 16
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(40)
			if x >= w/2 {
				v = 200
			}
			img.SetGray(x, y, color.Gray{Y: v})
		}
	}
	opt := decompose.DefaultOptions()
	opt.Graph.MinSize = 20 // the default, 200 pixels, would absorb either half of so small an image
	r, err := decompose.Decompose(img, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	left, right := r.Labels[0], r.Labels[w-1]
	apart := left != right
	maxAway, colU := 0.0, make([]float64, w)
	for y := range h {
		for x := range w {
			l, u := r.Labels[y*w+x], r.Uncertainty.U[y*w+x]
			switch {
			case x < 10 && l != left, x > 13 && l != right:
				apart = false
			case x < 10 || x > 13:
				maxAway = max(maxAway, u)
			}
			colU[x] += u / h
		}
	}
	peak := 0
	for x := range w {
		if colU[x] > colU[peak] {
			peak = x
		}
	}
	fmt.Println("segments:", len(r.Uncertainty.Clusters))
	fmt.Println("the halves in different segments:", apart)
	fmt.Printf("largest u more than two pixels from the edge: %.2f\n", maxAway)
	fmt.Println("column of the largest mean u:", peak)
	// Output:
	// segments: 2
	// the halves in different segments: true
	// largest u more than two pixels from the edge: 0.00
	// column of the largest mean u: 11
}
