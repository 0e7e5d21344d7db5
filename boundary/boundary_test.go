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

// The contrast-normalised gradients on a grey ramp L = x/255 (64×64): in the
// interior |∇(G_σ∗L)| = 1/255 per pixel and the local standard deviation in
// the window of 2σ is (1/255)·√(Σ_i k_i i²) over the discrete, truncated
// kernel k; the colour's gradient is 0. A flat image gives 0 everywhere, and
// a model of version 1 (12 features) is refused with the advice to refit.
func TestNormalisedGradients(t *testing.T) {
	ramp := image.NewGray(image.Rect(0, 0, 64, 64))
	flat := image.NewGray(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			ramp.SetGray(x, y, color.Gray{uint8(x)})
			flat.SetGray(x, y, color.Gray{90})
		}
	}
	fr, ff := Compute(ramp), Compute(flat)
	if len(fr.F) != NumFeatures || NumFeatures != 18 {
		t.Fatalf("%d feature planes, %d names", len(fr.F), NumFeatures)
	}
	i := 32*64 + 32
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
		if got := float64(fr.F[12+2*k][i]); math.Abs(got-want) > 1e-3*want {
			t.Errorf("σ = %v: normalised L gradient %v, want %v", s, got, want)
		}
		if got := fr.F[13+2*k][i]; got != 0 {
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
	m := *Default()
	m.Version = 1
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "refit it with `densify decompose fit`") {
		t.Errorf("version 1: %v", err)
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
	m, err := Fit(s, 1, 1e-6, "test")
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
	root := filepath.Join(testutil.RepoRoot(), "..", "shared", "data", "bsds500-dev")
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
