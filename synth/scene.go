package synth

import (
	"math"
	"math/rand/v2"
)

// layer is one rigid piece of the scene (background, object body or limb).
type layer struct {
	region int // 0 = background, i = object i
	parent int // index of the parent layer, -1 for roots
	limb   bool
	shape  shape
	tex    *texture
	// motion returns the local→parent map in frame f (local→image for roots).
	motion func(f int) affine
	fwd    []affine // per frame: local → image
	inv    []affine // per frame: image → local
	bbox   []box    // per frame: image-space bounding box of the shape
}

// scene is the full generative model of a sequence.
type scene struct {
	w, h, frames int
	layers       []layer
	order        []int     // layer indices, back to front; order[0] = 0 = background
	gain         []float64 // per-frame illumination gain
}

// subRand derives an independent generator for purpose k from the seed.
func subRand(seed int64, k uint64) *rand.Rand {
	s := splitmix64(uint64(seed) ^ splitmix64(k+0x1234567))
	return rand.New(rand.NewPCG(s, splitmix64(s)))
}

// buildScene draws a scene from p.Seed (see the package comment for the model).
func buildScene(p Params) *scene {
	r := subRand(p.Seed, 1)
	W, H, F := float64(p.Width), float64(p.Height), p.Frames
	minWH := math.Min(W, H)
	k := minWH / 240 // size unit: 1 at 240 px
	cx, cy := (W-1)/2, (H-1)/2
	sc := &scene{w: p.Width, h: p.Height, frames: F}

	// Camera: pan at 0.4–1.2 px/frame (at most 2·max(W,H) in total), a
	// slow shake, and a zoom of 3–10 % in or out over the sequence.
	span := math.Max(1, float64(F-1))
	panSpeed := math.Min(uniform(r, 0.4, 1.2), 2*math.Max(W, H)/span)
	panDir := uniform(r, 0, 2*math.Pi)
	shakeAmp, shakePer, shakePh := uniform(r, 0, 1.5), uniform(r, 15, 40), uniform(r, 0, 2*math.Pi)
	zoom := uniform(r, 0.03, 0.1)
	if r.IntN(2) == 0 {
		zoom = -zoom
	}
	camera := func(f int) affine {
		ff := float64(f)
		tx := -panSpeed*ff*math.Cos(panDir) + shakeAmp*math.Sin(2*math.Pi*ff/shakePer+shakePh)
		ty := -panSpeed*ff*math.Sin(panDir) + shakeAmp*math.Cos(2*math.Pi*ff/(1.3*shakePer)+shakePh)
		z := math.Exp(zoom * ff / span)
		return translate(cx+tx, cy+ty).then(scale(z)).then(translate(-cx, -cy))
	}
	imageBox := box{-0.5, -0.5, W - 0.5, H - 0.5}
	var bgBox box
	for f := 0; f < F; f++ {
		b := imageBox.mapped(camera(f).inverse())
		if f == 0 {
			bgBox = b
		} else {
			bgBox = bgBox.union(b)
		}
	}
	sc.layers = append(sc.layers, layer{region: 0, parent: -1, shape: plane{}, motion: camera})
	sc.layers[0].tex = backgroundTexture(subRand(p.Seed, 2), bgBox)

	// Objects: texture kinds all different as long as possible. Object i
	// moves on a straight image-space line from direction baseDir + 2π(i−1)/n
	// (±0.4 rad), passing the point m + δ_i at frame t_i: all paths converge
	// near m around the meeting frame fm, so objects occlude each other in the
	// middle of the sequence and are apart at its ends.
	kinds := r.Perm(3)
	baseDir := uniform(r, 0, 2*math.Pi)
	speed := math.Max(0.4, math.Min(3, 0.6*minWH/span))
	fm := span * uniform(r, 0.35, 0.65)
	mx, my := cx+uniform(r, -0.1, 0.1)*W, cy+uniform(r, -0.1, 0.1)*H
	var groups [][]int // per object: its layer indices back to front
	for i := 1; i <= p.Objects; i++ {
		ro := subRand(p.Seed, 100+uint64(i))
		style := newObjectStyle(ro, kinds[(i-1)%3])
		dir := baseDir + 2*math.Pi*float64(i-1)/float64(p.Objects) + uniform(ro, -0.4, 0.4)
		v := speed * uniform(ro, 0.8, 1.2)
		vx, vy := -v*math.Cos(dir), -v*math.Sin(dir) // coming from dir
		oa, od := uniform(ro, 0, 2*math.Pi), 0.12*minWH*math.Sqrt(ro.Float64())
		ox, oy := mx+od*math.Cos(oa), my+od*math.Sin(oa)
		fmid := fm + uniform(ro, -1, 1)*span/8
		scAmp, scPer, scPh := uniform(ro, 0.02, 0.06), uniform(ro, 20, 45), uniform(ro, 0, 2*math.Pi)
		articulated := i == 1
		var rot func(f float64) float64
		bobAmp, bobPer := 0.0, 1.0
		if articulated {
			th0, wob, wper := uniform(ro, -0.2, 0.2), uniform(ro, 0.02, 0.08), uniform(ro, 20, 40)
			rot = func(f float64) float64 { return th0 + wob*math.Sin(2*math.Pi*f/wper) }
			bobAmp, bobPer = uniform(ro, 0.5, 2), uniform(ro, 10, 16)
		} else {
			th0, om := uniform(ro, 0, 2*math.Pi), uniform(ro, 0.002, 0.015)
			if ro.IntN(2) == 0 {
				om = -om
			}
			rot = func(f float64) float64 { return th0 + om*f }
		}
		bodyMotion := func(f int) affine {
			ff := float64(f)
			px := ox + vx*(ff-fmid)
			py := oy + vy*(ff-fmid) + bobAmp*math.Sin(2*math.Pi*ff/bobPer)
			cam := camera(f)
			wx, wy := cam.inverse().apply(px, py)
			s := 1 + scAmp*math.Sin(2*math.Pi*ff/scPer+scPh)
			return cam.then(translate(wx, wy)).then(rotate(rot(ff))).then(scale(s))
		}
		var body shape
		if articulated {
			a := uniform(ro, 22, 30) * k
			body = ellipse{a: a, b: a * uniform(ro, 0.6, 0.75)}
		} else if ro.IntN(2) == 0 {
			a := uniform(ro, 0.1, 0.16) * minWH
			body = ellipse{a: a, b: a * uniform(ro, 0.55, 0.9)}
		} else {
			b := blob{r: uniform(ro, 0.09, 0.13) * minWH}
			b.freq = [3]float64{2, 3, 5}
			for j := range b.amp {
				b.amp[j] = uniform(ro, 0.02, 0.13)
				b.phase[j] = uniform(ro, 0, 2*math.Pi)
			}
			body = b
		}
		bodyIdx := len(sc.layers)
		sc.layers = append(sc.layers, layer{region: i, parent: -1, shape: body, motion: bodyMotion,
			tex: style.bodyTexture(body.bounds())})
		var back, front []int
		if articulated {
			back, front = sc.addLimbs(ro, style, bodyIdx, body.(ellipse), k)
		}
		g := append(back, bodyIdx)
		groups = append(groups, append(g, front...))
	}
	sc.order = []int{0}
	for _, gi := range r.Perm(len(groups)) {
		sc.order = append(sc.order, groups[gi]...)
	}

	// Per-frame maps and image boxes (parents precede children in layers).
	for li := range sc.layers {
		L := &sc.layers[li]
		L.fwd, L.inv, L.bbox = make([]affine, F), make([]affine, F), make([]box, F)
		for f := 0; f < F; f++ {
			m := L.motion(f)
			if L.parent >= 0 {
				m = sc.layers[L.parent].fwd[f].then(m)
			}
			L.fwd[f], L.inv[f] = m, m.inverse()
			if li == 0 {
				L.bbox[f] = box{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
			} else {
				L.bbox[f] = L.shape.bounds().mapped(m)
			}
		}
	}
	ga, gp, gph := p.Illumination, uniform(r, 20, 40), uniform(r, 0, 2*math.Pi)
	sc.gain = make([]float64, F)
	for f := range sc.gain {
		sc.gain[f] = 1 + ga*math.Sin(2*math.Pi*float64(f)/gp+gph)
	}
	return sc
}

// addLimbs attaches 2–4 thin swinging limbs (capsules 3–5 px wide, half of
// them with a second segment) to the elliptic body at layer bodyIdx. It
// returns the limb layers drawn behind and in front of the body.
func (sc *scene) addLimbs(r *rand.Rand, st objectStyle, bodyIdx int, body ellipse, k float64) (back, front []int) {
	n := 2 + r.IntN(3)
	// Joint directions: two legs (down), then arms (sides); y points down.
	dirs := []float64{math.Pi/2 - 0.45, math.Pi/2 + 0.45, -0.15, math.Pi + 0.15}
	per := uniform(r, 18, 30)
	ph := uniform(r, 0, 2*math.Pi)
	for j := 0; j < n; j++ {
		beta := dirs[j] + uniform(r, -0.15, 0.15)
		jx, jy := 0.75*body.a*math.Cos(beta), 0.75*body.b*math.Sin(beta)
		base := beta + uniform(r, -0.25, 0.25)
		amp := uniform(r, 0.3, 0.5)
		phase := ph + math.Pi*float64(j%2) + uniform(r, -0.3, 0.3)
		length := uniform(r, 0.9, 1.3) * body.a
		width := uniform(r, 3, 5)
		capS := capsule{l: length, r: width / 2}
		idx := len(sc.layers)
		sc.layers = append(sc.layers, layer{region: sc.layers[bodyIdx].region, parent: bodyIdx, limb: true,
			shape: capS, tex: st.limbTexture(capS.bounds(), r),
			motion: swing(jx, jy, base, amp, per, phase)})
		group := []int{idx}
		if r.IntN(2) == 0 {
			l2 := capsule{l: uniform(r, 0.6, 0.8) * length, r: math.Max(1.5, width/2-0.5)}
			sc.layers = append(sc.layers, layer{region: sc.layers[bodyIdx].region, parent: idx, limb: true,
				shape: l2, tex: st.limbTexture(l2.bounds(), r),
				motion: swing(length, 0, uniform(r, -0.4, 0.4), uniform(r, 0.2, 0.4), per, phase+uniform(r, 0.5, 1.5))})
			group = append(group, idx+1)
		}
		if r.IntN(2) == 0 {
			front = append(front, group...)
		} else {
			back = append(back, group...)
		}
	}
	return back, front
}

// swing is the hinge motion T(jx, jy) ∘ R(base + amp·sin(2πf/per + phase)).
func swing(jx, jy, base, amp, per, phase float64) func(int) affine {
	return func(f int) affine {
		return translate(jx, jy).then(rotate(base + amp*math.Sin(2*math.Pi*float64(f)/per+phase)))
	}
}

// front returns the front-most layer containing image point (x, y) in frame f
// and the point's local coordinates in that layer.
func (sc *scene) front(f int, x, y float64) (li int, u, v float64) {
	for oi := len(sc.order) - 1; oi > 0; oi-- {
		li = sc.order[oi]
		L := &sc.layers[li]
		if !L.bbox[f].contains(x, y) {
			continue
		}
		u, v = L.inv[f].apply(x, y)
		if L.shape.contains(u, v) {
			return li, u, v
		}
	}
	u, v = sc.layers[0].inv[f].apply(x, y)
	return 0, u, v
}

// silhouette reports whether layer li's shape covers (x, y) in frame f,
// whether or not it is visible there.
func (sc *scene) silhouette(f, li int, x, y float64) bool {
	L := &sc.layers[li]
	if !L.bbox[f].contains(x, y) {
		return false
	}
	u, v := L.inv[f].apply(x, y)
	return L.shape.contains(u, v)
}
