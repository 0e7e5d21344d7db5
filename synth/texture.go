package synth

import (
	"math"
	"math/rand/v2"
)

// texture is an RGB image (float32, 0..255) over a layer's local plane:
// texel (i, j) sits at local coordinates (x0 + i, y0 + j).
type texture struct {
	x0, y0 float64
	w, h   int
	pix    []float32 // 3 per texel, row-major
}

// newTexture allocates a texture covering b (plus a 2-texel margin) and
// fills it with fill(u, v) evaluated at every texel.
func newTexture(b box, fill func(u, v float64) [3]float32) *texture {
	x0, y0 := math.Floor(b.x0)-2, math.Floor(b.y0)-2
	w := int(math.Ceil(b.x1)-x0) + 3
	h := int(math.Ceil(b.y1)-y0) + 3
	t := &texture{x0: x0, y0: y0, w: w, h: h, pix: make([]float32, 3*w*h)}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			c := fill(x0+float64(i), y0+float64(j))
			k := 3 * (j*w + i)
			t.pix[k], t.pix[k+1], t.pix[k+2] = c[0], c[1], c[2]
		}
	}
	return t
}

// sample returns the bilinearly interpolated colour at local (u, v),
// clamping to the border outside the texture.
func (t *texture) sample(u, v float64) (r, g, b float32) {
	fx, fy := u-t.x0, v-t.y0
	ix, iy := int(math.Floor(fx)), int(math.Floor(fy))
	ax, ay := float32(fx-float64(ix)), float32(fy-float64(iy))
	if ix < 0 {
		ix, ax = 0, 0
	} else if ix >= t.w-1 {
		ix, ax = t.w-2, 1
	}
	if iy < 0 {
		iy, ay = 0, 0
	} else if iy >= t.h-1 {
		iy, ay = t.h-2, 1
	}
	k := 3 * (iy*t.w + ix)
	k2 := k + 3*t.w
	p := t.pix
	w00, w10, w01, w11 := (1-ax)*(1-ay), ax*(1-ay), (1-ax)*ay, ax*ay
	r = w00*p[k] + w10*p[k+3] + w01*p[k2] + w11*p[k2+3]
	g = w00*p[k+1] + w10*p[k+4] + w01*p[k2+1] + w11*p[k2+4]
	b = w00*p[k+2] + w10*p[k+5] + w01*p[k2+2] + w11*p[k2+5]
	return
}

// paintDisc blends colour c into the texture inside the disc of radius r
// around (cx, cy), with a 1.5-texel soft edge.
func (t *texture) paintDisc(cx, cy, r float64, c [3]float32) {
	i0 := max(0, int(cx-r-2-t.x0))
	i1 := min(t.w-1, int(cx+r+2-t.x0))
	j0 := max(0, int(cy-r-2-t.y0))
	j1 := min(t.h-1, int(cy+r+2-t.y0))
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			d := math.Hypot(t.x0+float64(i)-cx, t.y0+float64(j)-cy)
			a := float32(math.Max(0, math.Min(1, (r-d)/1.5+0.5)))
			if a == 0 {
				continue
			}
			k := 3 * (j*t.w + i)
			for ch := 0; ch < 3; ch++ {
				t.pix[k+ch] = (1-a)*t.pix[k+ch] + a*c[ch]
			}
		}
	}
}

// splitmix64 is the SplitMix64 finaliser, used as an integer hash.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// lattice returns a hash value in [0,1) for the integer lattice point (i, j).
func lattice(i, j int64, seed uint64) float64 {
	h := splitmix64(seed ^ splitmix64(uint64(i)*0x632be59bd9b4e019^uint64(j)*0x8cb92ba72f3d8dd7))
	return float64(h>>11) / (1 << 53)
}

// valueNoise is lattice value noise with cell size s: hashed values at the
// integer lattice of (u/s, v/s), blended with the smoothstep weights
// 3t² − 2t³ (Perlin 1985, value-noise variant). Range [0,1].
func valueNoise(u, v, s float64, seed uint64) float64 {
	x, y := u/s, v/s
	fx, fy := math.Floor(x), math.Floor(y)
	tx, ty := x-fx, y-fy
	tx, ty = tx*tx*(3-2*tx), ty*ty*(3-2*ty)
	i, j := int64(fx), int64(fy)
	a := lattice(i, j, seed) + tx*(lattice(i+1, j, seed)-lattice(i, j, seed))
	b := lattice(i, j+1, seed) + tx*(lattice(i+1, j+1, seed)-lattice(i, j+1, seed))
	return a + ty*(b-a)
}

// fbm is fractional Brownian motion: Σ_k 2^−k · valueNoise(s/2^k),
// normalised to [0,1].
func fbm(u, v, s float64, octaves int, seed uint64) float64 {
	sum, norm, amp := 0.0, 0.0, 1.0
	for k := 0; k < octaves; k++ {
		sum += amp * valueNoise(u, v, s, seed+uint64(k)*0x51ed27)
		norm += amp
		amp *= 0.5
		s *= 0.5
	}
	return sum / norm
}

// hsv converts hue (0..1), saturation and value (0..1) to RGB 0..255.
func hsv(h, s, v float64) [3]float32 {
	h = 6 * (h - math.Floor(h))
	i := int(h)
	f := h - float64(i)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch i % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return [3]float32{float32(255 * r), float32(255 * g), float32(255 * b)}
}

func mix(a, b [3]float32, t float64) [3]float32 {
	tf := float32(t)
	return [3]float32{a[0] + tf*(b[0]-a[0]), a[1] + tf*(b[1]-a[1]), a[2] + tf*(b[2]-a[2])}
}

func mul(a [3]float32, s float64) [3]float32 {
	sf := float32(s)
	return [3]float32{a[0] * sf, a[1] * sf, a[2] * sf}
}

// palette3 maps t ∈ [0,1] piecewise linearly through three colours.
func palette3(p [3][3]float32, t float64) [3]float32 {
	if t < 0.5 {
		return mix(p[0], p[1], 2*t)
	}
	return mix(p[1], p[2], 2*t-1)
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// randomPalette draws three colours around a random hue with the given
// saturation and value ranges.
func randomPalette(r *rand.Rand, satLo, satHi, valLo, valHi float64) [3][3]float32 {
	h := r.Float64()
	var p [3][3]float32
	for k := range p {
		p[k] = hsv(h+uniform(r, -0.12, 0.12), uniform(r, satLo, satHi), uniform(r, valLo, valHi))
	}
	return p
}

// fineDetail is the luminance modulation 1 + 1.2·(fbm − ½) at a 3–4 px
// scale (about ±30 %) that gives every surface trackable structure.
func fineDetail(u, v float64, seed uint64) float64 {
	return 1 + 1.2*(fbm(u, v, 3.5, 2, seed)-0.5)
}

// backgroundTexture: multi-scale value noise in a muted palette, faint
// oriented stripes in some areas, coloured blobs and fine detail.
func backgroundTexture(r *rand.Rand, b box) *texture {
	pal := randomPalette(r, 0.15, 0.5, 0.35, 0.85)
	alt := hsv(r.Float64(), uniform(r, 0.3, 0.7), uniform(r, 0.4, 0.9))
	s1, s2, s3, s4 := r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()
	ang := uniform(r, 0, math.Pi)
	ca, sa := math.Cos(ang), math.Sin(ang)
	period := uniform(r, 7, 12)
	t := newTexture(b, func(u, v float64) [3]float32 {
		c := palette3(pal, fbm(u, v, 56, 3, s1))
		c = mix(c, alt, 0.45*math.Max(0, fbm(u, v, 18, 2, s2)-0.45))
		if m := valueNoise(u, v, 40, s3); m > 0.55 {
			c = mul(c, 1+0.18*math.Min(1, (m-0.55)*8)*math.Sin(2*math.Pi*(u*ca+v*sa)/period))
		}
		return mul(c, fineDetail(u, v, s4))
	})
	// Blobs: about one per 5000 px², radius 3–14 px, own colours with detail.
	n := int((b.x1 - b.x0) * (b.y1 - b.y0) / 5000)
	for k := 0; k < n; k++ {
		cx, cy := uniform(r, b.x0, b.x1), uniform(r, b.y0, b.y1)
		col := hsv(r.Float64(), uniform(r, 0.15, 0.6), uniform(r, 0.3, 0.85))
		t.paintDisc(cx, cy, uniform(r, 3, 14), col)
	}
	// Re-apply a little fine detail so that blob interiors are textured too.
	s5 := r.Uint64()
	for j := 0; j < t.h; j++ {
		for i := 0; i < t.w; i++ {
			f := float32(0.7 + 0.6*fbm(t.x0+float64(i), t.y0+float64(j), 2.5, 2, s5))
			k := 3 * (j*t.w + i)
			t.pix[k] *= f
			t.pix[k+1] *= f
			t.pix[k+2] *= f
		}
	}
	clampTexture(t)
	return t
}

func clampTexture(t *texture) {
	for i, v := range t.pix {
		t.pix[i] = float32(math.Max(0, math.Min(255, float64(v))))
	}
}

// objectStyle is the appearance shared by the layers of one object.
type objectStyle struct {
	kind  int // 0 stripes, 1 spots, 2 marble
	pal   [3][3]float32
	seeds [4]uint64
	ang   float64
	per   float64
}

func newObjectStyle(r *rand.Rand, kind int) objectStyle {
	return objectStyle{
		kind:  kind,
		pal:   randomPalette(r, 0.45, 0.95, 0.45, 1),
		seeds: [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()},
		ang:   uniform(r, 0, math.Pi),
		per:   uniform(r, 7, 13),
	}
}

// bodyTexture renders the object's style over box b: warped stripes, spots on
// a jittered grid, or marble (fbm through the palette), each with fine detail.
func (st objectStyle) bodyTexture(b box) *texture {
	ca, sa := math.Cos(st.ang), math.Sin(st.ang)
	t := newTexture(b, func(u, v float64) [3]float32 {
		var c [3]float32
		switch st.kind {
		case 0:
			w := 4 * fbm(u, v, 24, 2, st.seeds[0])
			s := 0.5 + 0.5*math.Sin(2*math.Pi*(u*ca+v*sa)/st.per+w)
			c = palette3(st.pal, s)
		case 1:
			c = st.pal[0]
			cell := st.per * 1.2
			ci, cj := math.Floor(u/cell), math.Floor(v/cell)
			for dj := -1.0; dj <= 1; dj++ {
				for di := -1.0; di <= 1; di++ {
					i, j := int64(ci+di), int64(cj+dj)
					cx := (float64(i) + 0.2 + 0.6*lattice(i, j, st.seeds[0])) * cell
					cy := (float64(j) + 0.2 + 0.6*lattice(i, j, st.seeds[1])) * cell
					rad := cell * (0.18 + 0.22*lattice(i, j, st.seeds[2]))
					if d := math.Hypot(u-cx, v-cy); d < rad+1 {
						col := st.pal[1]
						if lattice(i, j, st.seeds[3]) > 0.5 {
							col = st.pal[2]
						}
						c = mix(c, col, math.Min(1, rad+1-d))
					}
				}
			}
		default:
			c = palette3(st.pal, fbm(u, v, 14, 3, st.seeds[0]))
		}
		return mul(c, fineDetail(u, v, st.seeds[1]^0xabcdef))
	})
	clampTexture(t)
	return t
}

// limbTexture: bands across the limb (period 4–6 px along its axis) in the
// object's palette, with fine detail.
func (st objectStyle) limbTexture(b box, r *rand.Rand) *texture {
	per := uniform(r, 4, 6.5)
	seed := r.Uint64()
	t := newTexture(b, func(u, v float64) [3]float32 {
		s := 0.5 + 0.5*math.Sin(2*math.Pi*u/per)
		return mul(mix(st.pal[0], st.pal[2], s), fineDetail(u, v, seed))
	})
	clampTexture(t)
	return t
}
