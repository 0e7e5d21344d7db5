package refine

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/densify/densify/internal/gmm"
)

// energy is the package comment's energy of a labelling of the free pixels
// (node ≥ 0; fixed pixels are background), computed directly from its
// definition over all unordered 8-neighbour pairs.
func energy(lab []bool, rgb, p []float64, node []int32, w, h int, gf, gb *gmm.Mixture, beta float64, o CutOptions) float64 {
	x := func(i int) bool { return node[i] >= 0 && lab[node[i]] }
	e := 0.0
	for i := 0; i < w*h; i++ {
		if node[i] < 0 {
			continue
		}
		q := min(1-probEps, max(probEps, p[i]))
		c := rgb[3*i : 3*i+3]
		if x(i) {
			e += -o.Net*math.Log(q) - o.Colour*gf.LogDensity(c)
		} else {
			e += -o.Net*math.Log(1-q) - o.Colour*gb.LogDensity(c)
		}
	}
	for i := 0; i < w*h; i++ {
		for j := i + 1; j < min(w*h, i+w+2); j++ {
			dx, dy := j%w-i%w, j/w-i/w
			if dx < -1 || dx > 1 || dy > 1 || x(i) == x(j) {
				continue
			}
			d2 := 0.0
			for c := 0; c < 3; c++ {
				d2 += (rgb[3*i+c] - rgb[3*j+c]) * (rgb[3*i+c] - rgb[3*j+c])
			}
			e += o.Smooth / math.Hypot(float64(dx), float64(dy)) * math.Exp(-beta*d2)
		}
	}
	return e
}

// On small random frames with fixed pixels, the cut's labelling has the
// least energy of all 2^n labellings of the free pixels.
func TestSolveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const w, h = 4, 4
	for trial := 0; trial < 60; trial++ {
		rgb := make([]float64, 3*w*h)
		p := make([]float64, w*h)
		for i := range p {
			p[i] = rng.Float64()
			if trial%3 == 0 {
				p[i] = math.Round(p[i]) // 0 and 1: the clamp to [ε, 1 − ε]
			}
			for c := 0; c < 3; c++ {
				rgb[3*i+c] = float64(rng.IntN(256))
			}
		}
		node := make([]int32, w*h)
		n := 0
		for i := range node {
			node[i] = -1
			if rng.IntN(4) != 0 { // a quarter fixed
				node[i] = int32(n)
				n++
			}
		}
		gf, _ := gmm.Fit(rgb[:18], 2, 1)
		gb, _ := gmm.Fit(rgb[18:], 3, 1)
		o := CutOptions{Net: 0.5 + rng.Float64(), Colour: rng.Float64() * 0.3, Smooth: rng.Float64() * 6, Components: 2, Iterations: 1, Confident: 0.9, Band: 1, Scale: 1}
		beta := 1 / (2 * 40000.0)
		lnP1, lnP0 := make([]float64, n), make([]float64, n)
		for i, k := range node {
			if k >= 0 {
				q := min(1-probEps, max(probEps, p[i]))
				lnP1[k], lnP0[k] = -math.Log(q), -math.Log(1-q)
			}
		}
		lab, err := solve(rgb, lnP1, lnP0, n, gf, gb, newPairTerms(rgb, node, n, w, h, beta, o.Smooth), o)
		if err != nil {
			t.Fatal(err)
		}
		got := energy(lab, rgb, p, node, w, h, gf, gb, beta, o)
		best := math.Inf(1)
		all := make([]bool, n)
		for m := 0; m < 1<<n; m++ {
			for k := range all {
				all[k] = m>>k&1 == 1
			}
			best = min(best, energy(all, rgb, p, node, w, h, gf, gb, beta, o))
		}
		if math.Abs(got-best) > 1e-9*math.Abs(best)+1e-9 {
			t.Fatalf("trial %d (%d free): cut energy %v, minimum %v", trial, n, got, best)
		}
	}
}

// haloFrame is a red disk (radius 20) on a background half grey, half
// green, with noise, and the probabilities of a network that paints an
// 8-px halo around it: 0.99 on the disk, 0.8 on the halo, 0.02 elsewhere.
func haloFrame() (*image.RGBA, []float32, []bool) {
	const W, H = 120, 90
	rng := rand.New(rand.NewPCG(2, 4))
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	prob := make([]float32, W*H)
	disk := make([]bool, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r := math.Hypot(float64(x-60), float64(y-45))
			c := [3]float64{120, 120, 120}
			if x >= 60 {
				c = [3]float64{40, 160, 60}
			}
			prob[y*W+x] = 0.02
			if r <= 28 {
				prob[y*W+x] = 0.8
			}
			if r <= 20 {
				c, prob[y*W+x], disk[y*W+x] = [3]float64{200, 40, 40}, 0.99, true
			}
			var v [3]uint8
			for k := range v {
				v[k] = uint8(min(255, max(0, c[k]+rng.NormFloat64()*6)))
			}
			img.SetRGBA(x, y, color.RGBA{v[0], v[1], v[2], 255})
		}
	}
	return img, prob, disk
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
		{"tiny", func(i int) float32 { // 4 pixels: fewer than minColourSamples
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
