// Package boundary predicts, for every pixel of an image, the probability
// that a human annotator draws a segment boundary there: a logistic model on
// multi-scale brightness, colour and texture gradients (in the spirit of
// Martin, Fowlkes, Malik, "Learning to detect natural image boundaries using
// local brightness, color, and texture cues", TPAMI 2004, with Gaussian
// derivative gradients instead of half-disc histograms), fitted on the
// BSDS-500 train split. The probability map feeds the edge costs of the
// pixel-level lifted multicut (package decompose).
package boundary

import (
	"image"
	"math"
)

// Scales are the Gaussian σ (pixels) of the multi-scale gradients.
var Scales = []float64{1, 2, 4}

// FeatureNames lists the per-pixel features in order: for every scale σ the
// square root of the gradient magnitude of the Gaussian-smoothed brightness
// L, the opponent colours a = R−G and b = (R+G)/2−B (all in [0,1] units), and
// of the texture channel T (local standard deviation of L in a Gaussian
// window of σ = 2) — 12 features. The square root makes the logit concave in
// the gradient, which a linear model otherwise cannot express.
var FeatureNames = func() []string {
	var n []string
	for _, s := range Scales {
		for _, c := range []string{"L", "a", "b", "T"} {
			n = append(n, "sqrt_grad_"+c+"_s"+ftoa(s))
		}
	}
	return n
}()

func ftoa(x float64) string {
	if x == math.Trunc(x) {
		return string(rune('0' + int(x)))
	}
	return "x"
}

// NumFeatures is the length of the per-pixel feature vector.
var NumFeatures = len(FeatureNames)

// Features holds the feature planes of a W×H image: F[j][y*W+x].
type Features struct {
	W, H int
	F    [][]float32
}

// Channels converts img to the brightness and opponent colour planes L, a, b.
func Channels(img image.Image) (w, h int, L, A, B []float32) {
	bd := img.Bounds()
	w, h = bd.Dx(), bd.Dy()
	L, A, B = make([]float32, w*h), make([]float32, w*h), make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := img.At(bd.Min.X+x, bd.Min.Y+y).RGBA()
			R, G, Bl := float32(r)/65535, float32(g)/65535, float32(b)/65535
			i := y*w + x
			L[i] = (R + G + Bl) / 3
			A[i] = R - G
			B[i] = (R+G)/2 - Bl
		}
	}
	return
}

// Compute returns the feature planes of img.
func Compute(img image.Image) *Features {
	w, h, L, A, B := Channels(img)
	// texture: local standard deviation of L, sqrt(G_2*L² − (G_2*L)²)
	m := blur(L, w, h, 2)
	sq := make([]float32, len(L))
	for i, v := range L {
		sq[i] = v * v
	}
	m2 := blur(sq, w, h, 2)
	T := make([]float32, len(L))
	for i := range T {
		T[i] = float32(math.Sqrt(math.Max(0, float64(m2[i]-m[i]*m[i]))))
	}
	f := &Features{W: w, H: h}
	for _, s := range Scales {
		for _, c := range [][]float32{L, A, B, T} {
			g := gradMag(blur(c, w, h, s), w, h)
			for i := range g {
				g[i] = float32(math.Sqrt(float64(g[i])))
			}
			f.F = append(f.F, g)
		}
	}
	return f
}

// blur convolves a W×H plane with a Gaussian of standard deviation s
// (separable, truncated at 3s, borders replicated).
func blur(in []float32, w, h int, s float64) []float32 {
	r := int(math.Ceil(3 * s))
	k := make([]float32, 2*r+1)
	sum := 0.0
	for i := -r; i <= r; i++ {
		v := math.Exp(-float64(i*i) / (2 * s * s))
		k[i+r] = float32(v)
		sum += v
	}
	for i := range k {
		k[i] /= float32(sum)
	}
	tmp := make([]float32, len(in))
	out := make([]float32, len(in))
	for y := 0; y < h; y++ {
		row := in[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			var acc float32
			for i := -r; i <= r; i++ {
				xx := min(max(x+i, 0), w-1)
				acc += k[i+r] * row[xx]
			}
			tmp[y*w+x] = acc
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var acc float32
			for i := -r; i <= r; i++ {
				yy := min(max(y+i, 0), h-1)
				acc += k[i+r] * tmp[yy*w+x]
			}
			out[y*w+x] = acc
		}
	}
	return out
}

// gradMag is the central-difference gradient magnitude (one-sided at the
// border), in units per pixel.
func gradMag(p []float32, w, h int) []float32 {
	out := make([]float32, len(p))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			x0, x1 := max(x-1, 0), min(x+1, w-1)
			y0, y1 := max(y-1, 0), min(y+1, h-1)
			gx := (p[y*w+x1] - p[y*w+x0]) / float32(max(x1-x0, 1))
			gy := (p[y1*w+x] - p[y0*w+x]) / float32(max(y1-y0, 1))
			out[y*w+x] = float32(math.Sqrt(float64(gx*gx + gy*gy)))
		}
	}
	return out
}
