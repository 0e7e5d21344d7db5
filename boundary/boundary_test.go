package boundary

import (
	"image"
	"image/color"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/testutil"
)

func TestDefaultModelValid(t *testing.T) {
	m := Default()
	if m.Samples < 100000 || m.Theta[0] >= 0 {
		t.Fatalf("embedded model: %d samples, intercept %v", m.Samples, m.Theta[0])
	}
}

// The contrast-normalised gradients on a grey ramp L = x/255 (160×160): in the
// interior |∇(G_σ∗L)| = 1/255 per pixel and the local standard deviation in
// the window of 2σ is (1/255)·√(Σ_i k_i i²) over the discrete, truncated
// kernel k; the colour's gradient is 0. A flat image gives 0 everywhere, and
// models of versions 1 and 2 (12 and 18 features) are refused with the
// advice to refit.
func TestNormalisedGradients(t *testing.T) {
	// 160 px: the window of σ = 8 (2σ = 16, truncated at 48 px) stays
	// inside the image around the centre.
	const size = 160
	ramp := image.NewGray(image.Rect(0, 0, size, size))
	flat := image.NewGray(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			ramp.SetGray(x, y, color.Gray{uint8(x)})
			flat.SetGray(x, y, color.Gray{90})
		}
	}
	fr, ff := Compute(ramp), Compute(flat)
	if len(fr.F) != NumFeatures || NumFeatures != 24 {
		t.Fatalf("%d feature planes, %d names", len(fr.F), NumFeatures)
	}
	i := size/2*size + size/2
	for k, s := range Scales {
		r := int(math.Ceil(3 * 2 * s))
		var sum, m2 float64
		for d := -r; d <= r; d++ {
			w := math.Exp(-float64(d*d) / (2 * 4 * s * s))
			sum += w
			m2 += w * float64(d*d)
		}
		sd := math.Sqrt(m2/sum) / 255
		want := math.Sqrt((1.0 / 255) / (sd + NormEps))
		if got := float64(fr.F[16+2*k][i]); math.Abs(got-want) > 1e-3*want {
			t.Errorf("σ = %v: normalised L gradient %v, want %v", s, got, want)
		}
		if got := fr.F[17+2*k][i]; got != 0 {
			t.Errorf("σ = %v: colour gradient %v on a grey image", s, got)
		}
	}
	for j, p := range ff.F {
		for _, v := range p {
			if v != 0 {
				t.Fatalf("feature %s = %v on a flat image", FeatureNames[j], v)
			}
		}
	}
	for v, want := range map[int]string{1: "version 1 (12 features", 2: "version 2 (18 features"} {
		m := *Default()
		m.Version = v
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "refit it with `densify decompose fit`") {
			t.Errorf("version %d: %v", v, err)
		}
	}
}

// TestFitRecoversParameters draws soft labels from a known logistic model
// and checks that Fit recovers its weights.
func TestFitRecoversParameters(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	d := NumFeatures
	truth := make([]float64, d+1)
	truth[0] = -1
	truth[1], truth[5] = 1.5, -0.7
	s := &Sample{}
	for i := 0; i < 20000; i++ {
		eta := truth[0]
		for j := 0; j < d; j++ {
			x := rng.NormFloat64()
			s.X = append(s.X, x)
			eta += truth[j+1] * x
		}
		p := 1 / (1 + math.Exp(-eta))
		// soft label: the mean of 4 Bernoulli draws (like 4 annotators)
		y := 0.0
		for k := 0; k < 4; k++ {
			if rng.Float64() < p {
				y += 0.25
			}
		}
		s.Y = append(s.Y, y)
	}
	m, err := Fit(s, 1, 1e-6, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j <= d; j++ {
		// features are standard normal, so θ_j/Std_j ≈ θ_j
		got := m.Theta[j]
		if j > 0 {
			got /= m.Std[j-1]
		} else {
			for k := 0; k < d; k++ {
				got -= m.Theta[k+1] / m.Std[k] * m.Mean[k]
			}
		}
		if math.Abs(got-truth[j]) > 0.08 {
			t.Errorf("θ_%d = %.3f, want %.3f", j, got, truth[j])
		}
	}
}

func TestThinAndMatch(t *testing.T) {
	// a vertical ridge 3 px wide centred on column 4 of a 9×5 map
	w, h := 9, 5
	p := make([]float32, w*h)
	for y := 0; y < h; y++ {
		p[y*w+3], p[y*w+4], p[y*w+5] = 0.5, 0.9, 0.5
	}
	th := Thin(p, w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if want := x == 4; (th[y*w+x] > 0) != want {
				t.Fatalf("Thin kept (%d,%d)=%v", x, y, th[y*w+x])
			}
		}
	}
	// annotator boundary on column 6: within tolerance 2, not within 1
	b := make([]bool, w*h)
	for y := 0; y < h; y++ {
		b[y*w+6] = true
	}
	anns := []bsds.Annotation{{W: w, H: h, Boundary: b}}
	for _, c := range []struct {
		tol  float64
		want float64
	}{{2, 1}, {1, 0}} {
		cs := Match(p, w, h, anns, []float64{0.5}, c.tol)
		_, best := cs.Best()
		if cs.Pred[0] != h || best.P != c.want || best.R != c.want {
			t.Errorf("tol %v: %+v pred %d", c.tol, best, cs.Pred[0])
		}
	}
}

func TestSoftLabels(t *testing.T) {
	w, h := 5, 1
	a := bsds.Annotation{W: w, H: h, Boundary: []bool{false, false, true, false, false}}
	b := bsds.Annotation{W: w, H: h, Boundary: make([]bool, 5)}
	y := SoftLabels([]bsds.Annotation{a, b}, 1)
	want := []float32{0, 0.5, 0.5, 0.5, 0}
	for i := range want {
		if y[i] != want[i] {
			t.Fatalf("soft labels %v, want %v", y, want)
		}
	}
}

// TestStepEdgeProbability: a vertical step edge gets a higher probability on
// the edge than in the flat parts.
func TestStepEdgeProbability(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 30, 20))
	for y := 0; y < 20; y++ {
		for x := 0; x < 30; x++ {
			v := uint8(30)
			if x >= 15 {
				v = 220
			}
			img.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	w, _, p := Default().Map(img)
	if !(p[10*w+15] > 0.15 && p[10*w+2] < 0.02) {
		t.Fatalf("edge %.3f, flat %.3f", p[10*w+15], p[10*w+2])
	}
}

// TestRealValQuality checks the embedded model on five val images:
// the pooled best F at 4 px tolerance is well above chance.
func TestRealValQuality(t *testing.T) {
	root := testutil.BSDSDev()
	items, err := bsds.List(filepath.Join(root, "images", "val"), filepath.Join(root, "groundTruth", "val"))
	if err != nil {
		t.Skipf("BSDS-500 not found: %v", err)
	}
	_, best, err := Default().EvalSplit(items[:5], 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if best.F < 0.5 {
		t.Fatalf("best F %.3f on 5 val images", best.F)
	}
}

// TestQuadraticLogit checks the quadratic form by hand on d = 24 features
// with three non-zero weights: θ_0 = −1, θ_2 (z_1) = 0.5, and the products
// z_0·z_0 (the first product weight, index 1+d) = 2 and z_0·z_1 (the
// second, index 2+d) = −3. With Mean 0 and Std 2 a pixel with f_0 = 1,
// f_1 = 4 has z = (0.5, 2, 0, …), so the logit is
// −1 + 0.5·2 + 2·0.25 − 3·0.5·2 = −2.5. A Theta of the linear length is
// refused for a quadratic model.
func TestQuadraticLogit(t *testing.T) {
	d := NumFeatures
	m := &Model{Version: ModelVersion, Features: FeatureNames, Mean: make([]float64, d), Std: make([]float64, d),
		Theta: make([]float64, NumWeights(d, true)), Quadratic: true}
	for j := range d {
		m.Std[j] = 2
	}
	m.Theta[0], m.Theta[2], m.Theta[1+d], m.Theta[2+d] = -1, 0.5, 2, -3
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	f := &Features{W: 1, H: 1, F: make([][]float32, d)}
	for j := range d {
		f.F[j] = []float32{0}
	}
	f.F[0][0], f.F[1][0] = 1, 4
	want := 1 / (1 + math.Exp(2.5))
	if p := m.Probability(f); math.Abs(float64(p[0])-want) > 1e-6 {
		t.Fatalf("p = %v, want σ(−2.5) = %v", p[0], want)
	}
	if len(appendDesign(nil, make([]float64, d), true)) != NumWeights(d, true)-1 {
		t.Fatal("design row and Theta lengths differ")
	}
	m.Theta = m.Theta[:d+1]
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "want 325 weights") {
		t.Fatalf("short Theta: %v", err)
	}
}

// TestFitRecoversQuadratic draws soft labels from a model with an
// interaction (η = −1 + z_0 + 1.5·z_0·z_1 on standard normal features) and
// checks that the quadratic fit recovers it and the linear one cannot: the
// quadratic model's logits match the truth, the linear one's are off by
// the interaction.
func TestFitRecoversQuadratic(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	d := NumFeatures
	truth := func(x []float64) float64 { return -1 + x[0] + 1.5*x[0]*x[1] }
	s := &Sample{}
	for i := 0; i < 20000; i++ {
		x := make([]float64, d)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		s.X = append(s.X, x...)
		p := 1 / (1 + math.Exp(-truth(x)))
		y := 0.0
		for k := 0; k < 4; k++ {
			if rng.Float64() < p {
				y += 0.25
			}
		}
		s.Y = append(s.Y, y)
	}
	q, err := Fit(s, 1, 1, true, "test")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Fit(s, 1, 1, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	// mean absolute logit error on fresh points
	var eq, el float64
	z := make([]float64, d)
	for i := 0; i < 2000; i++ {
		x := make([]float64, d)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		for j := range z {
			z[j] = (x[j] - q.Mean[j]) / q.Std[j]
		}
		eq += math.Abs(q.logit(z)-truth(x)) / 2000
		el += math.Abs(l.logit(z)-truth(x)) / 2000
	}
	if eq > 0.25 || el < 0.8 {
		t.Fatalf("mean |logit error|: quadratic %.3f (want ≤ 0.25), linear %.3f (want ≥ 0.8)", eq, el)
	}
}
