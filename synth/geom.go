package synth

import "math"

// affine is the map (x, y) ↦ (a·x + b·y + tx, c·x + d·y + ty).
type affine struct{ a, b, c, d, tx, ty float64 }

func translate(x, y float64) affine { return affine{a: 1, d: 1, tx: x, ty: y} }
func rotate(t float64) affine {
	s, c := math.Sincos(t)
	return affine{a: c, b: -s, c: s, d: c}
}
func scale(s float64) affine { return affine{a: s, d: s} }

// then returns m ∘ n (apply n first, then m).
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.b*n.c, b: m.a*n.b + m.b*n.d,
		c: m.c*n.a + m.d*n.c, d: m.c*n.b + m.d*n.d,
		tx: m.a*n.tx + m.b*n.ty + m.tx, ty: m.c*n.tx + m.d*n.ty + m.ty,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.b*y + m.tx, m.c*x + m.d*y + m.ty
}

func (m affine) inverse() affine {
	det := m.a*m.d - m.b*m.c
	ia, ib, ic, id := m.d/det, -m.b/det, -m.c/det, m.a/det
	return affine{a: ia, b: ib, c: ic, d: id, tx: -(ia*m.tx + ib*m.ty), ty: -(ic*m.tx + id*m.ty)}
}

// box is an axis-aligned rectangle [x0,x1]×[y0,y1].
type box struct{ x0, y0, x1, y1 float64 }

// mapped returns the bounding box of m applied to b.
func (b box) mapped(m affine) box {
	out := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range [4][2]float64{{b.x0, b.y0}, {b.x1, b.y0}, {b.x0, b.y1}, {b.x1, b.y1}} {
		x, y := m.apply(p[0], p[1])
		out.x0, out.x1 = math.Min(out.x0, x), math.Max(out.x1, x)
		out.y0, out.y1 = math.Min(out.y0, y), math.Max(out.y1, y)
	}
	return out
}

func (b box) union(o box) box {
	return box{math.Min(b.x0, o.x0), math.Min(b.y0, o.y0), math.Max(b.x1, o.x1), math.Max(b.y1, o.y1)}
}

func (b box) contains(x, y float64) bool { return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 }

// shape is a region of a layer's local plane.
type shape interface {
	contains(u, v float64) bool
	bounds() box
}

// plane is the whole plane (the background).
type plane struct{}

func (plane) contains(u, v float64) bool { return true }
func (plane) bounds() box                { return box{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)} }

// ellipse is (u/a)² + (v/b)² ≤ 1.
type ellipse struct{ a, b float64 }

func (e ellipse) contains(u, v float64) bool {
	x, y := u/e.a, v/e.b
	return x*x+y*y <= 1
}
func (e ellipse) bounds() box { return box{-e.a, -e.b, e.a, e.b} }

// capsule is the set of points within distance r of the segment (0,0)–(l,0):
// a limb hinged at the origin.
type capsule struct{ l, r float64 }

func (c capsule) contains(u, v float64) bool {
	cu := math.Max(0, math.Min(c.l, u))
	du := u - cu
	return du*du+v*v <= c.r*c.r
}
func (c capsule) bounds() box { return box{-c.r, -c.r, c.l + c.r, c.r} }

// blob is the star-shaped set ρ ≤ R·(1 + Σ_k a_k cos(n_k θ + p_k)) in polar
// coordinates (ρ, θ).
type blob struct {
	r     float64
	amp   [3]float64
	freq  [3]float64
	phase [3]float64
}

func (s blob) radius(t float64) float64 {
	r := 1.0
	for k := range s.amp {
		r += s.amp[k] * math.Cos(s.freq[k]*t+s.phase[k])
	}
	return s.r * r
}

func (s blob) contains(u, v float64) bool {
	rr := u*u + v*v
	rmax := s.r * (1 + s.amp[0] + s.amp[1] + s.amp[2])
	if rr > rmax*rmax {
		return false
	}
	r := s.radius(math.Atan2(v, u))
	return rr <= r*r
}
func (s blob) bounds() box {
	m := s.r * (1 + s.amp[0] + s.amp[1] + s.amp[2])
	return box{-m, -m, m, m}
}
