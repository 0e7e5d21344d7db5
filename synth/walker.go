package synth

import (
	"math"
	"math/rand/v2"
)

// The articulated object (object 1) is a walker: an upright elliptic torso
// with a head, two legs (thigh and shin) and two arms (upper arm and
// forearm), seen from the side, walking horizontally at a constant speed u
// in the world (the background's frame). Limbs are capsules 6–8.5 px wide at
// 240 px: thin, but wide enough to be tracked on the default 8 px grid. This
// is where motion segmentation errs, as Kardoost & Keuper (UAI
// 2021) discuss it: thin articulated parts that move
// relative to the body, parts that move like the background for a while, and
// surfaces uncovered as the limbs swing.
//
// Gait. Every leg repeats a cycle of P frames, the two legs half a cycle
// apart. In the stance phase (the first D = 75 % of the cycle, a slow walk)
// the foot rests on the ground, so it moves exactly as the background: with leg length L,
// the foot's horizontal offset from the hip falls linearly,
//
//	d(c) = s·X₀·(1 − 2c/D),   X₀ = min(u·D·P/2, 0.6·L),   c ∈ [0, D)   (s = ±1 the walking direction)
//
// and the hip height follows the stance leg, y_hip = y_ground − √(L² − d²)
// (in double support the leg with the larger |d|; the other one bends its knee).
// In the swing phase the foot returns, d(c) = −s·X₀·cos(π(c−D)/(1−D)), with the
// knee bent by up to 0.9 rad. The leg points from the hip at the angle
// φ = atan2(√(L² − d²), d) (image y points down); the arms swing against the
// legs on the same side.
type walker struct {
	s      float64 // walking direction ±1
	u      float64 // walking speed (world px per frame)
	per    float64 // gait period P (frames)
	phase  float64 // cycle offset (fraction)
	legLen float64 // L = thigh + shin
	thigh  float64
	x0     float64 // X₀
}

const stanceDuty = 0.75

// cycle returns the position c ∈ [0,1) of leg j (0 or 1) in its cycle at frame f.
func (w *walker) cycle(f float64, j int) float64 {
	c := f/w.per + w.phase + 0.5*float64(j)
	return c - math.Floor(c)
}

// foot returns the horizontal foot offset d from the hip and the knee bend
// (≥ 0, towards the back) of leg j at frame f, and whether it is in stance.
func (w *walker) foot(f float64, j int) (d, knee float64, stance bool) {
	c := w.cycle(f, j)
	if c < stanceDuty {
		return w.s * w.x0 * (1 - 2*c/stanceDuty), 0, true
	}
	q := (c - stanceDuty) / (1 - stanceDuty)
	return -w.s * w.x0 * math.Cos(math.Pi*q), 0.9 * math.Sin(math.Pi*q), false
}

// hipDrop returns how far the hip is below its highest position (straight
// stance leg) at frame f: L − √(L² − d²) for the stance leg (the larger of the
// two in double support).
func (w *walker) hipDrop(f float64) float64 {
	drop := 0.0
	for j := 0; j < 2; j++ {
		if d, _, st := w.foot(f, j); st {
			drop = math.Max(drop, w.legLen-math.Sqrt(w.legLen*w.legLen-d*d))
		}
	}
	return drop
}

// legAngles returns the thigh angle (from the +x axis, image y down) and the
// knee angle (shin relative to thigh) of leg j at frame f. The hip–foot
// distance r = √(a² + b² + 2ab·cos κ) (thigh a, shin b, knee κ) and the foot
// offset d fix the hip–foot line; the thigh leads that line by the angle of
// the triangle at the hip. In stance the foot is on the ground, h = L − drop
// below the hip, so r = √(d² + h²) and the knee follows from r (straight for
// the leg that sets the hip height, slightly bent for the other one in
// double support); in swing the knee bend is the swing's.
func (w *walker) legAngles(f float64, j int) (thigh, knee float64) {
	d, k, stance := w.foot(f, j)
	a, b := w.thigh, w.legLen-w.thigh
	if stance {
		h := w.legLen - w.hipDrop(f)
		r := math.Sqrt(d*d + h*h)
		c := math.Max(-1, math.Min(1, (r*r-a*a-b*b)/(2*a*b)))
		k = math.Acos(c)
	}
	k = w.s * k // the knee bends backwards
	r := math.Sqrt(a*a + b*b + 2*a*b*math.Cos(k))
	dd := math.Max(-r, math.Min(r, d))
	line := math.Atan2(math.Sqrt(r*r-dd*dd), dd)
	lead := math.Atan2(b*math.Sin(k), a+b*math.Cos(k))
	return line - lead, k
}

// addWalker adds the walker's layers (object 1) around the planned image
// position (ox, oy) at frame fmid and returns its layer indices back to front.
func (sc *scene) addWalker(r *rand.Rand, st objectStyle, camAt func(float64) affine, ox, oy, fmid, k float64) []int {
	bodyA, bodyB := uniform(r, 11, 13)*k, uniform(r, 19, 22)*k // torso half-width and half-height
	thigh, shin := uniform(r, 1.1, 1.2)*bodyB, uniform(r, 1.05, 1.15)*bodyB
	w := &walker{
		s:      1,
		u:      uniform(r, 3.2, 4.2) * k,
		per:    uniform(r, 14, 19),
		phase:  r.Float64(),
		legLen: thigh + shin,
		thigh:  thigh,
	}
	if r.IntN(2) == 0 {
		w.s = -1
	}
	w.x0 = math.Min(0.6*w.legLen, w.u*stanceDuty*w.per/2)
	lean := w.s * uniform(r, 0.03, 0.1)
	hipY := 0.8 * bodyB // hip joint below the torso centre (body coordinates, before the lean)
	// world position of the torso centre at fmid (highest hip)
	wx0, wy0 := camAt(fmid).inverse().apply(ox, oy-0.25*w.legLen)
	region := 1
	body := ellipse{a: bodyA, b: bodyB}
	bodyMotion := func(t float64) affine {
		ff := t
		return camAt(ff).then(translate(wx0+w.s*w.u*(ff-fmid), wy0+w.hipDrop(ff))).then(rotate(lean))
	}
	layers := func(l layer) int {
		sc.layers = append(sc.layers, l)
		return len(sc.layers) - 1
	}
	bodyIdx := layers(layer{region: region, parent: -1, part: "torso", shape: body, motion: bodyMotion, tex: st.bodyTexture(body.bounds())})
	headR := uniform(r, 0.5, 0.6) * bodyA
	head := ellipse{a: headR, b: 1.15 * headR}
	headIdx := layers(layer{region: region, parent: bodyIdx, part: "head", shape: head, tex: st.bodyTexture(head.bounds()),
		motion: func(float64) affine { return translate(w.s*0.15*bodyA, -bodyB-0.9*head.b) }})

	limb := func(part string, parent int, length, width float64, motion func(float64) affine) int {
		c := capsule{l: length, r: width / 2}
		return layers(layer{region: region, parent: parent, limb: true, part: part, shape: c, tex: st.limbTexture(c.bounds(), r), motion: motion})
	}
	legW := uniform(r, 7, 8.5) * k
	leg := func(j int) []int {
		t := limb("thigh", bodyIdx, thigh, legW, func(t float64) affine {
			th, _ := w.legAngles(t, j)
			return translate(0, hipY).then(rotate(th - lean))
		})
		s := limb("shin", t, shin, 0.85*legW, func(t float64) affine {
			_, kn := w.legAngles(t, j)
			return translate(thigh, 0).then(rotate(kn))
		})
		return []int{t, s}
	}
	armW := uniform(r, 6.5, 8) * k
	upper, fore := uniform(r, 0.9, 1)*bodyB, uniform(r, 0.85, 0.95)*bodyB
	armAmp := uniform(r, 0.35, 0.5)
	arm := func(j int) []int {
		// swings against the leg of the same side: forwards while that leg is in stance
		angle := func(t float64) float64 {
			c := w.cycle(t, j)
			return math.Pi/2 - w.s*armAmp*math.Cos(2*math.Pi*(c-stanceDuty/2))
		}
		a := limb("upper arm", bodyIdx, upper, armW, func(t float64) affine {
			return translate(w.s*0.1*bodyA, -0.6*bodyB).then(rotate(angle(t) - lean))
		})
		b := limb("forearm", a, fore, 0.9*armW, func(t float64) affine {
			return translate(upper, 0).then(rotate(-w.s * (0.25 + 0.35*(1-math.Cos(angle(t)-math.Pi/2)))))
		})
		return []int{a, b}
	}
	// far side behind the torso, near side in front of it
	order := append(arm(1), leg(1)...)
	order = append(order, bodyIdx, headIdx)
	order = append(order, leg(0)...)
	return append(order, arm(0)...)
}
