package synth

import (
	"image"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Sequence is a rendered synthetic sequence with its exact ground truth.
type Sequence struct {
	Params Params
	Width  int
	Height int
	// Frames[f] is frame f (0-based).
	Frames []*image.RGBA
	// Regions[f][y*Width+x] is the region shown by pixel (x, y) in frame f:
	// 0 = background, i = object i (its colour is RegionColors[i]).
	Regions [][]uint8
	// Colors are the region colours R·65536+G·256+B, index = region.
	Colors []int

	sc     *scene
	layers [][]uint8 // per frame: front-most layer of every pixel
}

// Generate renders the sequence described by p. It is deterministic: the
// same Params give identical frames, regions and tracks.
func Generate(p Params) (*Sequence, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sc := buildScene(p)
	s := &Sequence{
		Params: p, Width: p.Width, Height: p.Height,
		Frames:  make([]*image.RGBA, p.Frames),
		Regions: make([][]uint8, p.Frames),
		Colors:  append([]int(nil), RegionColors[:p.Objects+1]...),
		sc:      sc,
		layers:  make([][]uint8, p.Frames),
	}
	workers := min(runtime.GOMAXPROCS(0), p.Frames)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				s.render(f)
			}
		}()
	}
	for f := 0; f < p.Frames; f++ {
		next <- f
	}
	close(next)
	wg.Wait()
	return s, nil
}

// render draws frame f: colour = gain_f · texture_L(A_t(L)⁻¹ x) + noise for
// the front-most layer L at every pixel centre x, averaged over blurSamples
// times t evenly spread over the exposure [f − Blur/2, f + Blur/2] (motion
// blur; one sample at t = f without blur). Regions and layers are those at
// t = f.
func (s *Sequence) render(f int) {
	sc, p := s.sc, s.Params
	W, H := s.Width, s.Height
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	reg := make([]uint8, W*H)
	lay := make([]uint8, W*H)
	noise := subRand(p.Seed, 1_000_000+uint64(f))
	g := float32(sc.gain[f])
	n := blurSamples(p.Blur)
	poses := make([]pose, n)
	for k := range poses {
		t := float64(f)
		if n > 1 {
			t += p.Blur * (float64(k)/float64(n-1) - 0.5)
		}
		poses[k] = sc.poseAt(t)
	}
	inv := float32(1) / float32(n)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			li, _, _ := sc.front(f, float64(x), float64(y))
			var r, gg, b float32
			for k := range poses {
				lk, u, v := sc.frontPose(&poses[k], float64(x), float64(y))
				rk, gk, bk := sc.layers[lk].tex.sample(u, v)
				r, gg, b = r+rk, gg+gk, b+bk
			}
			i := y*W + x
			reg[i], lay[i] = uint8(sc.layers[li].region), uint8(li)
			o := 4 * i
			img.Pix[o] = quantize(g*r*inv, noise, p.Noise)
			img.Pix[o+1] = quantize(g*gg*inv, noise, p.Noise)
			img.Pix[o+2] = quantize(g*b*inv, noise, p.Noise)
			img.Pix[o+3] = 255
		}
	}
	s.Frames[f], s.Regions[f], s.layers[f] = img, reg, lay
}

// blurSamples is the number of times averaged per frame for the exposure
// blur (fraction of the frame interval): 1 + ⌈8·blur⌉, one sample per
// 1/8 frame of exposure, 1 without blur.
func blurSamples(blur float64) int {
	if !(blur > 0) {
		return 1
	}
	return 1 + int(math.Ceil(8*blur))
}

func quantize(v float32, r *rand.Rand, sigma float64) uint8 {
	x := float64(v)
	if sigma > 0 {
		x += sigma * r.NormFloat64()
	}
	return uint8(math.Max(0, math.Min(255, math.Round(x))))
}

// LabelledFrames returns the 0-based frames with a ground-truth label image:
// 0, GTEvery, 2·GTEvery, …
func (s *Sequence) LabelledFrames() []int {
	var fs []int
	for f := 0; f < len(s.Frames); f += s.Params.GTEvery {
		fs = append(fs, f)
	}
	return fs
}

// TrueFlow returns the exact forward motion field from frame f to f+1 of the
// surface visible at every pixel centre x of frame f: A_{f+1}(L)·A_f(L)⁻¹x − x
// (also for points that become occluded in f+1). Row-major, len Width·Height.
func (s *Sequence) TrueFlow(f int) (u, v []float32) {
	if f < 0 || f+1 >= len(s.Frames) {
		return nil, nil
	}
	W, H := s.Width, s.Height
	u, v = make([]float32, W*H), make([]float32, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			li := int(s.layers[f][y*W+x])
			m := s.sc.layers[li].fwd[f+1].then(s.sc.layers[li].inv[f])
			nx, ny := m.apply(float64(x), float64(y))
			u[y*W+x], v[y*W+x] = float32(nx-float64(x)), float32(ny-float64(y))
		}
	}
	return u, v
}
