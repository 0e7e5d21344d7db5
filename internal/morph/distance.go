package morph

import "math"

// SquaredDistance is the exact squared Euclidean distance transform of a W×H
// binary image: for every pixel, the squared distance to the nearest pixel
// whose value is target (0 on those pixels; +Inf everywhere when there is
// none). Felzenszwalb & Huttenlocher (2012), Sec. 2–3: the 1-D transform of
// the sampled function f (0 on targets, ∞ elsewhere) is the lower envelope of
// the parabolas (q − p)² + f(p), found in one pass; applied to the columns
// and then to the rows it gives the 2-D transform in O(W·H).
func SquaredDistance(img []bool, W, H int, target bool) []float64 {
	d := make([]float64, W*H)
	for i, v := range img {
		if v == target {
			d[i] = 0
		} else {
			d[i] = math.Inf(1)
		}
	}
	n := max(W, H)
	f := make([]float64, n)
	out := make([]float64, n)
	v := make([]int, n)
	z := make([]float64, n+1)
	for x := 0; x < W; x++ {
		for y := 0; y < H; y++ {
			f[y] = d[y*W+x]
		}
		dt1(f[:H], out[:H], v, z)
		for y := 0; y < H; y++ {
			d[y*W+x] = out[y]
		}
	}
	for y := 0; y < H; y++ {
		dt1(d[y*W:(y+1)*W], out[:W], v, z)
		copy(d[y*W:(y+1)*W], out[:W])
	}
	return d
}

// dt1 is the 1-D transform: out[q] = min_p (q − p)² + f[p] (Felzenszwalb &
// Huttenlocher 2012, Algorithm 1), skipping the infinite samples (they never
// lie on the envelope), so an all-infinite f gives +Inf everywhere.
func dt1(f, out []float64, v []int, z []float64) {
	n := len(f)
	k := -1
	for q := 0; q < n; q++ {
		if math.IsInf(f[q], 1) {
			continue
		}
		if k < 0 {
			k = 0
			v[0], z[0], z[1] = q, math.Inf(-1), math.Inf(1)
			continue
		}
		var s float64
		for { // pops the parabolas the new one hides; z[0] = −∞ stops at k = 0
			p := v[k]
			s = ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*(q-p))
			if s > z[k] {
				break
			}
			k--
		}
		k++
		v[k], z[k], z[k+1] = q, s, math.Inf(1)
	}
	if k < 0 {
		for q := range out {
			out[q] = math.Inf(1)
		}
		return
	}
	j := 0
	for q := 0; q < n; q++ {
		for z[j+1] < float64(q) {
			j++
		}
		p := v[j]
		out[q] = float64((q-p)*(q-p)) + f[p]
	}
}
