package trajectory

import "testing"

func TestPixel(t *testing.T) {
	for _, c := range []struct {
		x, y   float64
		px, py int
	}{
		{0, 0, 0, 0}, {0.49, 0.5, 0, 1}, {2.5, 3.4999, 3, 3}, {-0.5, -0.51, 0, -1}, {-1.2, 853.6, -1, 854},
	} {
		if px, py := (Point{X: c.x, Y: c.y}).Pixel(); px != c.px || py != c.py {
			t.Errorf("(%v, %v) → (%d, %d), want (%d, %d)", c.x, c.y, px, py, c.px, c.py)
		}
	}
}
