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
	part   string // what the layer is: background, body, torso, head, thigh, shin, upper arm, forearm
	shape  shape
	tex    *texture
	// motion returns the local→parent map at time t in frames (local→image
	// for roots); frame f is t = f.
	motion func(t float64) affine
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
	sc := &scene{w: p.Width, h: p.Height, frames: F}
	camAt := newCameraPath(r, W, H, F)
	sc.layers = append(sc.layers, layer{region: 0, parent: -1, part: "background", shape: plane{}, motion: camAt})
	sc.layers[0].tex = backgroundTexture(subRand(p.Seed, 2), backgroundBox(camAt, W, H, F))
	groups := sc.addObjects(r, p, camAt)
	sc.order = []int{0}
	for _, gi := range r.Perm(len(groups)) {
		sc.order = append(sc.order, groups[gi]...)
	}
	sc.setPoses()
	ga, gp, gph := p.Illumination, uniform(r, 20, 40), uniform(r, 0, 2*math.Pi)
	sc.gain = make([]float64, F)
	for f := range sc.gain {
		sc.gain[f] = 1 + ga*math.Sin(2*math.Pi*float64(f)/gp+gph)
	}
	return sc
}

// newCameraPath draws the camera of a W×H sequence of F frames: pan at
// 0.4–1.2 px/frame (at most 2·max(W,H) in total), a slow shake, and a zoom
// of 3–10 % in or out over the sequence. It returns the world-to-image map
// at (fractional) frame f.
func newCameraPath(r *rand.Rand, W, H float64, F int) func(f float64) affine {
	cx, cy := (W-1)/2, (H-1)/2
	span := math.Max(1, float64(F-1))
	panSpeed := math.Min(uniform(r, 0.4, 1.2), 2*math.Max(W, H)/span)
	panDir := uniform(r, 0, 2*math.Pi)
	shakeAmp, shakePer, shakePh := uniform(r, 0, 1.5), uniform(r, 15, 40), uniform(r, 0, 2*math.Pi)
	zoom := uniform(r, 0.03, 0.1)
	if r.IntN(2) == 0 {
		zoom = -zoom
	}
	return func(ff float64) affine {
		tx := -panSpeed*ff*math.Cos(panDir) + shakeAmp*math.Sin(2*math.Pi*ff/shakePer+shakePh)
		ty := -panSpeed*ff*math.Sin(panDir) + shakeAmp*math.Cos(2*math.Pi*ff/(1.3*shakePer)+shakePh)
		z := math.Exp(zoom * ff / span)
		return translate(cx+tx, cy+ty).then(scale(z)).then(translate(-cx, -cy))
	}
}

// backgroundBox is the world box the camera shows over the F frames.
func backgroundBox(camAt func(float64) affine, W, H float64, F int) box {
	imageBox := box{-0.5, -0.5, W - 0.5, H - 0.5}
	var bgBox box
	for f := 0; f < F; f++ {
		b := imageBox.mapped(camAt(float64(f)).inverse())
		if f == 0 {
			bgBox = b
		} else {
			bgBox = bgBox.union(b)
		}
	}
	return bgBox
}

// objectPath is an object's planned image path: it passes (ox, oy) at frame
// fmid with velocity (vx, vy).
type objectPath struct {
	ox, oy, fmid, vx, vy float64
}

// addObjects adds the p.Objects objects and returns each one's layer
// indices, back to front. Texture kinds are all different as long as
// possible. Object i moves on a straight image-space line from direction
// baseDir + 2π(i−1)/n (±0.4 rad), passing the point m + δ_i at frame t_i:
// all paths converge near m around the meeting frame fm, so objects occlude
// each other in the middle of the sequence and are apart at its ends.
// Object 1 is a walker, the others rigid bodies.
func (sc *scene) addObjects(r *rand.Rand, p Params, camAt func(float64) affine) [][]int {
	W, H := float64(p.Width), float64(p.Height)
	minWH := math.Min(W, H)
	k := minWH / 240 // size unit: 1 at 240 px
	cx, cy := (W-1)/2, (H-1)/2
	span := math.Max(1, float64(p.Frames-1))
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
		oa, od := uniform(ro, 0, 2*math.Pi), 0.12*minWH*math.Sqrt(ro.Float64())
		ox, oy := mx+od*math.Cos(oa), my+od*math.Sin(oa)
		fmid := fm + uniform(ro, -1, 1)*span/8
		if i == 1 {
			groups = append(groups, sc.addWalker(ro, style, camAt, ox, oy, fmid, k))
			continue
		}
		vx, vy := -v*math.Cos(dir), -v*math.Sin(dir) // coming from dir
		path := objectPath{ox: ox, oy: oy, fmid: fmid, vx: vx, vy: vy}
		groups = append(groups, sc.addRigidObject(ro, i, style, camAt, path, span, minWH))
	}
	return groups
}

// addRigidObject adds object i as one rigid body (an ellipse or a blob) on
// its path, with a slow rotation and scale oscillation, and returns its
// layer index. Object 2 stands still in the world (it moves exactly as the
// background) until frame fStart, then accelerates over fRamp frames to its
// speed: a parked car that drives off. The planned image path is the one of
// a moving object; the world position of the object is that of the path at
// the warped time τ(f).
func (sc *scene) addRigidObject(ro *rand.Rand, i int, style objectStyle, camAt func(float64) affine, path objectPath, span, minWH float64) []int {
	scAmp, scPer, scPh := uniform(ro, 0.02, 0.06), uniform(ro, 20, 45), uniform(ro, 0, 2*math.Pi)
	th0, om := uniform(ro, 0, 2*math.Pi), uniform(ro, 0.002, 0.015)
	if ro.IntN(2) == 0 {
		om = -om
	}
	tau := func(f float64) float64 { return f }
	if i == 2 {
		fStart := span * uniform(ro, 0.3, 0.4)
		fRamp := span * 0.15
		tau = func(f float64) float64 { return fStart + smoothRamp(f-fStart, fRamp) }
	}
	bodyMotion := func(t float64) affine {
		ff := tau(t)
		// world position of the planned image position at time τ(f)
		px := path.ox + path.vx*(ff-path.fmid)
		py := path.oy + path.vy*(ff-path.fmid)
		wx, wy := camAt(ff).inverse().apply(px, py)
		s := 1 + scAmp*math.Sin(2*math.Pi*ff/scPer+scPh)
		return camAt(t).then(translate(wx, wy)).then(rotate(th0 + om*ff)).then(scale(s))
	}
	body := bodyShape(ro, minWH)
	bodyIdx := len(sc.layers)
	sc.layers = append(sc.layers, layer{region: i, parent: -1, part: "body", shape: body, motion: bodyMotion,
		tex: style.bodyTexture(body.bounds())})
	return []int{bodyIdx}
}

// bodyShape draws a rigid body: an ellipse or a blob of radius 9–16 % of
// the smaller image side.
func bodyShape(ro *rand.Rand, minWH float64) shape {
	if ro.IntN(2) == 0 {
		a := uniform(ro, 0.1, 0.16) * minWH
		return ellipse{a: a, b: a * uniform(ro, 0.55, 0.9)}
	}
	b := blob{r: uniform(ro, 0.09, 0.13) * minWH}
	b.freq = [3]float64{2, 3, 5}
	for j := range b.amp {
		b.amp[j] = uniform(ro, 0.02, 0.13)
		b.phase[j] = uniform(ro, 0, 2*math.Pi)
	}
	return b
}

// setPoses stores every layer's maps and image box in every frame (parents
// precede children in layers).
func (sc *scene) setPoses() {
	F := sc.frames
	for li := range sc.layers {
		L := &sc.layers[li]
		L.fwd, L.inv, L.bbox = make([]affine, F), make([]affine, F), make([]box, F)
	}
	for f := 0; f < F; f++ {
		ps := sc.poseAt(float64(f))
		for li := range sc.layers {
			L := &sc.layers[li]
			L.fwd[f], L.inv[f], L.bbox[f] = ps.fwd[li], ps.inv[li], ps.bbox[li]
		}
	}
}

// smoothRamp is the distance covered in time x by a mover that starts at
// rest at x = 0 and reaches unit speed linearly over r: 0 for x ≤ 0,
// x²/(2r) for 0 < x < r, x − r/2 afterwards (continuous with its derivative).
func smoothRamp(x, r float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x < r:
		return x * x / (2 * r)
	}
	return x - r/2
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

// pose is the local→image map, its inverse and the image box of every
// layer at one time.
type pose struct {
	fwd, inv []affine
	bbox     []box
}

// poseAt returns the pose of the scene at time t (frames; need not be an
// integer: motion blur samples the exposure interval): a layer's map is its
// parent's map ∘ its motion(t) (parents precede children in layers).
func (sc *scene) poseAt(t float64) pose {
	n := len(sc.layers)
	ps := pose{fwd: make([]affine, n), inv: make([]affine, n), bbox: make([]box, n)}
	for li := range sc.layers {
		L := &sc.layers[li]
		m := L.motion(t)
		if L.parent >= 0 {
			m = ps.fwd[L.parent].then(m)
		}
		ps.fwd[li], ps.inv[li] = m, m.inverse()
		if li == 0 {
			ps.bbox[li] = box{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
		} else {
			ps.bbox[li] = L.shape.bounds().mapped(m)
		}
	}
	return ps
}

// frontPose is front for an arbitrary pose.
func (sc *scene) frontPose(ps *pose, x, y float64) (li int, u, v float64) {
	for oi := len(sc.order) - 1; oi > 0; oi-- {
		li = sc.order[oi]
		if !ps.bbox[li].contains(x, y) {
			continue
		}
		u, v = ps.inv[li].apply(x, y)
		if sc.layers[li].shape.contains(u, v) {
			return li, u, v
		}
	}
	u, v = ps.inv[0].apply(x, y)
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
