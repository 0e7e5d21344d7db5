package refine

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// haloFrame is a red disk (radius 20) on a background half grey, half
// green, with noise, and the probabilities of a network that paints an
// 8-px halo around it: 0.99 on the disk, 0.8 on the halo, 0.02 elsewhere.
func haloFrame() (*image.RGBA, []float32, []bool) {
	return noisyFrame(120, 90, 2, 4, func(x, y int) ([3]float64, float32, bool) {
		r := math.Hypot(float64(x-60), float64(y-45))
		c, p := [3]float64{120, 120, 120}, float32(0.02)
		if x >= 60 {
			c = [3]float64{40, 160, 60}
		}
		if r <= 20 {
			return [3]float64{200, 40, 40}, 0.99, true
		}
		if r <= 28 {
			p = 0.8
		}
		return c, p, false
	})
}

// noisyFrame draws a w×h frame whose pixel (x, y) has the colour at(x, y)
// gives it plus Gaussian noise (sd 6, the generator seeded with s1, s2),
// with the network's probability and the object mask at gives.
func noisyFrame(w, h int, s1, s2 uint64, at func(x, y int) (c [3]float64, p float32, obj bool)) (*image.RGBA, []float32, []bool) {
	rng := rand.New(rand.NewPCG(s1, s2))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	prob := make([]float32, w*h)
	obj := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c, p, o := at(x, y)
			prob[y*w+x], obj[y*w+x] = p, o
			var v [3]uint8
			for k := range v {
				v[k] = uint8(min(255, max(0, c[k]+rng.NormFloat64()*6)))
			}
			img.SetRGBA(x, y, color.RGBA{v[0], v[1], v[2], 255})
		}
	}
	return img, prob, obj
}

func iou(m []uint8, ref []bool) float64 {
	in, un := 0, 0
	for i, r := range ref {
		a := m[i] != 0
		if a && r {
			in++
		}
		if a || r {
			un++
		}
	}
	return float64(in) / float64(un)
}

// The halo has the background's colours: the colour term takes it back,
// although the network gives it 0.8.
func TestGraphCutRemovesHalo(t *testing.T) {
	img, prob, disk := haloFrame()
	o := DefaultCutOptions()
	out, st, err := GraphCut(img, prob, o)
	if err != nil {
		t.Fatal(err)
	}
	net := make([]uint8, len(prob))
	for i, p := range prob {
		if p > 0.5 {
			net[i] = 1
		}
	}
	before, after := iou(net, disk), iou(out, disk)
	if !st.Refined || before > 0.55 || after < 0.9 || st.Before != int(countOnes(net)) || st.After != int(countOnes(out)) {
		t.Fatalf("refined %v (%d → %d px): IoU with the disk %.3f before, %.3f after; want ≤ 0.55 → ≥ 0.9", st.Refined, st.Before, st.After, before, after)
	}
	// With the network term alone (at full scale) the cut is the network's
	// own decision, P > ½: halo kept.
	o.Colour, o.Smooth, o.Scale = 0, 0, 1
	out, _, err = GraphCut(img, prob, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i] != net[i] {
			t.Fatalf("network term alone: pixel %d is %d, want %d", i, out[i], net[i])
		}
	}
}

func countOnes(m []uint8) int {
	n := 0
	for _, v := range m {
		n += int(v)
	}
	return n
}

// Empty and full maps, and maps with too few pixels of a side for a colour
// model, are returned as their threshold at ½, unrefined.
func TestGraphCutPassThrough(t *testing.T) {
	img, _, _ := haloFrame()
	n := 120 * 90
	for _, c := range []struct {
		name string
		p    func(i int) float32
	}{
		{"empty", func(int) float32 { return 0.1 }},
		{"full", func(int) float32 { return 0.7 }},
		{"tiny", func(i int) float32 { // 4 pixels: fewer than colourcut.MinSamples
			if i == 45*120+60 || i == 45*120+61 || i == 46*120+60 || i == 46*120+61 {
				return 1
			}
			return 0
		}},
	} {
		prob := make([]float32, n)
		want := 0
		for i := range prob {
			prob[i] = c.p(i)
			if prob[i] > 0.5 {
				want++
			}
		}
		out, st, err := GraphCut(img, prob, DefaultCutOptions())
		if err != nil || st.Refined || st.After != want || countOnes(out) != want {
			t.Errorf("%s: refined %v, %d → %d px (mask %d), err %v; want %d kept", c.name, st.Refined, st.Before, st.After, countOnes(out), err, want)
		}
	}
}

func TestGraphCutErrors(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	ok := DefaultCutOptions()
	bad := func(f func(*CutOptions)) CutOptions { o := ok; f(&o); return o }
	nan := make([]float32, 100)
	nan[7] = float32(math.NaN())
	cases := []struct {
		prob []float32
		o    CutOptions
		want string
	}{
		{make([]float32, 99), ok, "99 probabilities for a 10x10"},
		{nan, ok, "probability NaN at pixel (7,0)"},
		{append(make([]float32, 99), 1.5), ok, "probability 1.5"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Net = -1 }), "net weight"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Smooth = math.Inf(1) }), "smooth weight"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Colour = math.NaN() }), "colour weight"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Components = 0 }), "components"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Iterations = 11 }), "iterations"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Confident = 1 }), "confident"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Band = 0 }), "band"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.Scale = 1.5 }), "scale"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.DenseCRF = -1 }), "dense CRF weight"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.DenseCRF = math.NaN() }), "dense CRF weight"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.LogitShift = 21 }), "logit shift"},
		{make([]float32, 100), bad(func(o *CutOptions) { o.LogitShift = math.NaN() }), "logit shift"},
	}
	for _, c := range cases {
		if _, _, err := GraphCut(img, c.prob, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.o, err, c.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// The logit shift is the cut of the shifted maps: on the halo frame,
// GraphCut with LogitShift b gives the mask GraphCut gives the maps
// σ(logit P + b) without it. A flat map of 0.4 with b = +1 becomes
// σ(logit 0.4 + 1) = 0.644 > ½, a full mask left uncut; with b = −1 a flat
// map of 0.6 becomes 0.356, an empty one. By hand: σ(logit 0.4 − 2) =
// 0.0827, σ(logit 0.8 − 2) = 0.3512.
func TestGraphCutLogitShift(t *testing.T) {
	img, prob, _ := haloFrame()
	for _, b := range []float64{-2, 1.5} {
		o := DefaultCutOptions()
		o.LogitShift = b
		got, _, err := GraphCut(img, prob, o)
		if err != nil {
			t.Fatal(err)
		}
		shifted := make([]float32, len(prob))
		for i, p := range prob {
			shifted[i] = float32(1 / (1 + math.Exp(-(math.Log(float64(p)/(1-float64(p))) + b))))
		}
		want, _, err := GraphCut(img, shifted, DefaultCutOptions())
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("b = %v: pixel %d is %d with the shift, %d on the shifted map", b, i, got[i], want[i])
			}
		}
	}
	e := math.Exp(-2)
	if p := []float32{shiftLogit(0.4, e), shiftLogit(0.8, e), shiftLogit(0, e), shiftLogit(1, e)}; math.Abs(float64(p[0])-0.0827) > 1e-4 || math.Abs(float64(p[1])-0.3512) > 1e-4 || p[2] != 0 || p[3] != 1 {
		t.Errorf("σ(logit P − 2) of 0.4, 0.8, 0, 1: %v, want 0.0827 0.3512 0 1", p)
	}
	n := 120 * 90
	for _, c := range []struct {
		p, b float64
		want int
	}{{0.4, 1, n}, {0.4, 0, 0}, {0.6, -1, 0}, {0.6, 0, n}} {
		flat := make([]float32, n)
		for i := range flat {
			flat[i] = float32(c.p)
		}
		o := DefaultCutOptions()
		o.LogitShift = c.b
		out, st, err := GraphCut(img, flat, o)
		if err != nil || st.Refined || countOnes(out) != c.want || st.Before != c.want {
			t.Errorf("flat %v, b = %v: %d px (before %d, refined %v), err %v; want %d", c.p, c.b, countOnes(out), st.Before, st.Refined, err, c.want)
		}
	}
}

// spokeFrame is a red disk (radius 12) with four red spokes 2 px wide,
// 30 px long, on a grey background with noise, and the map of a network
// that saw them at a quarter of the resolution: 0.99 on the disk, 0.7 on
// each spoke and the 3 px beside it, 0.02 elsewhere.
func spokeFrame() (*image.RGBA, []float32, []bool) {
	return noisyFrame(120, 120, 3, 5, func(x, y int) ([3]float64, float32, bool) {
		dx, dy := x-59, y-59
		r := math.Hypot(float64(dx), float64(dy))
		if r <= 12 {
			return [3]float64{200, 40, 40}, 0.99, true
		}
		p := float32(0.02)
		if r <= 45 && (dx >= -3 && dx <= 4 || dy >= -3 && dy <= 4) {
			p = 0.7
		}
		if r <= 42 && (dx == 0 || dx == 1 || dy == 0 || dy == 1) {
			return [3]float64{200, 40, 40}, p, true
		}
		return [3]float64{120, 120, 120}, p, false
	})
}

// At the default full resolution the cut gives the spokes back their 2 px
// (IoU 1.0 when written); at half resolution, where each spoke is one pixel
// of mixed colour, it cannot (0.71).
func TestGraphCutKeepsThinSpokesAtFullResolution(t *testing.T) {
	img, prob, obj := spokeFrame()
	full, half := DefaultCutOptions(), DefaultCutOptions()
	half.Scale, half.Smooth = 0.5, 10 // the former default, the same energy per unit of the frame
	got := map[string]float64{}
	for name, o := range map[string]CutOptions{"full": full, "half": half} {
		out, _, err := GraphCut(img, prob, o)
		if err != nil {
			t.Fatal(err)
		}
		got[name] = iou(out, obj)
	}
	t.Logf("IoU with the disk and spokes: full resolution %.3f, half %.3f", got["full"], got["half"])
	if got["full"] < 0.95 || got["half"] > got["full"]-0.1 {
		t.Fatalf("IoU full %.3f, half %.3f: want ≥ 0.95 at full resolution and 0.1 above half", got["full"], got["half"])
	}
}
