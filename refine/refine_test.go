package refine

import (
	"image"
	"math"
	"strings"
	"testing"
)

// A 3×3 square in a 100×75 frame (diagonal 125): the trimap, by hand.
func TestTrimapByHand(t *testing.T) {
	const W, H = 100, 75
	mask := make([]bool, W*H)
	for y := 30; y < 33; y++ {
		for x := 40; x < 43; x++ {
			mask[y*W+x] = true
		}
	}
	// R = 2 (the centre (41,31) is 2 px from the nearest pixel outside, the
	// others 1); core 0.6·R = 1.2: only the centre. Band 0.04·125 = 5: the
	// square grown by 5 px (Euclidean).
	tri, roi, dF2 := Trimap(mask, W, H, Options{Core: 0.6, Band: 0.04, Grow: 0.01, Scale: 1, Iterations: 1})
	at := func(x, y int) uint8 { return tri[y*W+x] }
	checks := []struct {
		x, y int
		want uint8
	}{
		{41, 31, Foreground},                                       // d_B² = 4 > 1.5625
		{40, 30, ProbablyForeground}, {42, 31, ProbablyForeground}, // d_B² = 1
		{47, 31, ProbablyBackground}, {48, 31, Background}, // 5 and 6 px right of the square
		{45, 35, ProbablyBackground}, {45, 36, ProbablyBackground}, // (3,3) and (3,4) from the corner (42,32): d² 18, 25
		{46, 36, Background}, {0, 0, Background}, // (4,4): d² = 32 > 25
	}
	for _, c := range checks {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("trimap(%d,%d) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
	if want := image.Rect(35, 25, 48, 38); roi != want {
		t.Errorf("box %v, want %v", roi, want)
	}
	if dF2[31*W+45] != 9 || dF2[35*W+45] != 18 {
		t.Errorf("d_F² = %v, %v, want 9, 18", dF2[31*W+45], dF2[35*W+45])
	}
	// Without a core nothing is fixed foreground.
	tri, _, _ = Trimap(mask, W, H, Options{Core: 0, Band: 0.04, Grow: 0.01, Scale: 1, Iterations: 1})
	if tri[31*W+41] != ProbablyForeground {
		t.Errorf("core 0: centre is %d, want %d", tri[31*W+41], ProbablyForeground)
	}
}

// fakeCut records what it was given and answers with a fixed foreground:
// the left half of the box.
type fakeCut struct {
	roi  image.Rectangle
	tri  []uint8
	skip bool
}

func (f *fakeCut) Cut(img image.Image, roi image.Rectangle, tri []uint8, scale float64, it int) ([]bool, bool, error) {
	f.roi, f.tri = roi, append([]uint8(nil), tri...)
	if f.skip {
		return nil, false, nil
	}
	fg := make([]bool, len(tri))
	for y := 0; y < roi.Dy(); y++ {
		for x := 0; x < roi.Dx()/2; x++ {
			fg[y*roi.Dx()+x] = true
		}
	}
	return fg, true, nil
}

// Mask passes the trimap's box to the cut, keeps the cut's foreground only
// within Grow of the network's mask, and leaves empty, full and skipped
// masks as they were.
func TestMaskGrowLimitAndPassThrough(t *testing.T) {
	const W, H = 100, 75 // diagonal 125
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	mask := make([]uint8, W*H)
	for y := 20; y < 40; y++ {
		for x := 40; x < 60; x++ {
			mask[y*W+x] = 255
		}
	}
	o := Options{Core: 0.5, Band: 0.08, Grow: 0.016, Scale: 1, Iterations: 1} // band 10 px, grow 2 px
	c := &fakeCut{}
	out, st, err := Mask(img, mask, o, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := image.Rect(30, 10, 70, 50); c.roi != want {
		t.Fatalf("box %v, want %v", c.roi, want)
	}
	// The cut says: foreground on x < 50 (left half of the box). Inside the
	// grow limit that is x in [38, 50), y in [18, 42) minus the corners
	// farther than 2 px: the square's left half (10×20) plus a 2-px margin.
	want := 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			dx := max(40-x, 0, x-59)
			dy := max(20-y, 0, y-39)
			in := x < 50 && dx*dx+dy*dy <= 4
			if in {
				want++
			}
			if (out[y*W+x] == 1) != in {
				t.Fatalf("refined(%d,%d) = %d, want %v", x, y, out[y*W+x], in)
			}
		}
	}
	if !st.Refined || st.Before != 400 || st.After != want {
		t.Errorf("stats %+v, want refined, 400 → %d", st, want)
	}
	if mask[20*W+55] != 255 {
		t.Error("input mask modified")
	}

	c.skip = true
	out, st, err = Mask(img, mask, o, c)
	if err != nil || st.Refined || st.After != 400 || out[20*W+55] != 1 {
		t.Errorf("skipped cut: refined %v, %d pixels, err %v; want the mask as 0/1", st.Refined, st.After, err)
	}
	for _, fill := range []uint8{0, 1} {
		m := make([]uint8, W*H)
		for i := range m {
			m[i] = fill
		}
		c := &fakeCut{}
		out, st, err := Mask(img, m, o, c)
		if err != nil || st.Refined || c.tri != nil || out[0] != fill {
			t.Errorf("mask all %d: refined %v, cut called %v, err %v", fill, st.Refined, c.tri != nil, err)
		}
	}
}

func TestMaskErrors(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	cases := []struct {
		mask []uint8
		o    Options
		c    Cutter
		want string
	}{
		{make([]uint8, 99), DefaultOptions(), &fakeCut{}, "99 values for a 10x10"},
		{make([]uint8, 100), Options{Core: 1, Band: 0.05, Scale: 1, Iterations: 1}, &fakeCut{}, "core is a fraction"},
		{make([]uint8, 100), Options{Band: 0.05, Grow: 0.1, Scale: 1, Iterations: 1}, &fakeCut{}, "must not exceed band"},
		{make([]uint8, 100), Options{Band: 0.05, Scale: 0, Iterations: 1}, &fakeCut{}, "scale"},
		{make([]uint8, 100), Options{Band: 0.05, Scale: 1, Iterations: 0}, &fakeCut{}, "iterations"},
		{make([]uint8, 100), Options{Band: math.NaN(), Scale: 1, Iterations: 1}, &fakeCut{}, "band is a fraction"},
		{make([]uint8, 100), Options{Band: 0.1, Grow: -1, Scale: 1, Iterations: 1}, &fakeCut{}, "grow is a fraction"},
		{make([]uint8, 100), DefaultOptions(), nil, "no graph cut"},
	}
	for _, c := range cases {
		_, _, err := Mask(img, c.mask, c.o, c.c)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.o, err, c.want)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
