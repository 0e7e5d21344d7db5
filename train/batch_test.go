package train

import (
	"math"
	"testing"

	"github.com/densify/densify/unet"
)

// A batch of a mirrored and a plain sample with cached edge maps: RGB and the
// edge channel are mirrored together, labels and weights follow, and the
// mirrored cached map equals the edge map of the mirrored frame up to float
// rounding (the Sobel magnitude is symmetric under a horizontal flip), which
// is why training may cache one map per frame.
func TestBatchMirrorsCachedEdges(t *testing.T) {
	const w, h = 23, 17
	ss := benchSamples(t, 2, w, h, 5)
	b := makeBatch(ss, []bool{true, false})
	if b.C != 4 || len(b.X) != 2*4*w*h {
		t.Fatalf("C %d, %d values; want 4 channels of 2×%d×%d", b.C, len(b.X), w, h)
	}
	s := ss[0]
	mirror := make([]float32, 3*w*h)
	for c := 0; c < 3; c++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := float32(s.RGB[c*w*h+y*w+(w-1-x)]) / 255
				mirror[c*w*h+y*w+x] = v
				if got := b.X[c*w*h+y*w+x]; got != v {
					t.Fatalf("channel %d (%d,%d): %v, want the mirrored %v", c, x, y, got, v)
				}
			}
		}
	}
	want, err := unet.SobelPlanes(mirror, w, h)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			got := b.X[3*w*h+i]
			if got != s.Edges[y*w+(w-1-x)] {
				t.Fatalf("edge (%d,%d) is not the mirrored cached map", x, y)
			}
			if math.Abs(float64(got-want[i])) > 1e-6 {
				t.Fatalf("edge (%d,%d): cached+mirrored %v, Sobel of the mirrored frame %v", x, y, got, want[i])
			}
			if b.Target[i] != max(0, float32(s.Labels[y*w+(w-1-x)])) {
				t.Fatalf("target (%d,%d) not mirrored", x, y)
			}
		}
	}
	// the plain sample: its own map, unmirrored
	for i := 0; i < w*h; i++ {
		if b.X[(4+3)*w*h+i] != ss[1].Edges[i] {
			t.Fatalf("edge %d of the second sample differs from its cached map", i)
		}
	}
}
