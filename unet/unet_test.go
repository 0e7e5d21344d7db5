package unet

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/models"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

func tiny(name string, width, depth, classes int) Config {
	return Config{Name: name, BaseWidth: width, Depth: depth, Edges: true, Classes: classes}
}

func randImage(rng *rand.Rand, n, h, w int) []float32 {
	v := make([]float32, n*3*h*w)
	for i := range v {
		v[i] = rng.Float32()
	}
	return v
}

func TestForwardShapeOddSizes(t *testing.T) {
	ManualSeed(1)
	for _, classes := range []int{1, 3} {
		m, err := New(tiny("t", 4, 4, classes), gotch.CPU)
		if err != nil {
			t.Fatal(err)
		}
		err = Run(func(s *Scope) error {
			x, err := Tensor(s, randImage(rand.New(rand.NewSource(1)), 2, 67, 95), []int64{2, 3, 67, 95}, gotch.CPU)
			if err != nil {
				return err
			}
			y, err := m.Forward(s, x, true)
			if err != nil {
				return err
			}
			got := y.MustSize()
			want := []int64{2, int64(classes), 67, 95}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("classes=%d: output shape %v, want %v", classes, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestForwardRejectsBadInput(t *testing.T) {
	m, err := New(tiny("t", 2, 4, 1), gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range [][]int64{{1, 1, 32, 32}, {1, 3, 15, 40}, {3, 32, 32}} {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		err := Run(func(s *Scope) error {
			x, err := Tensor(s, make([]float32, n), shape, gotch.CPU)
			if err != nil {
				return err
			}
			_, err = m.Forward(s, x, false)
			return err
		})
		if err == nil {
			t.Errorf("shape %v accepted", shape)
		}
	}
}

// With Config.Edges, an input of RGB plus the edge map from SobelPlanes must
// give exactly the logits of plain RGB (Forward computing the edges itself):
// training passes the cached map, prediction plain RGB. A model without edges
// rejects four channels.
func TestForwardPrecomputedEdges(t *testing.T) {
	ManualSeed(1)
	m, err := New(tiny("t", 4, 2, 1), gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	const h, w = 37, 45
	rgb := randImage(rand.New(rand.NewSource(3)), 1, h, w)
	e, err := SobelPlanes(rgb, w, h)
	if err != nil {
		t.Fatal(err)
	}
	logits := func(x []float32, c int64) []float32 { return evalOutput(t, m, x, []int64{1, c, h, w}) }
	a, b := logits(rgb, 3), logits(append(append([]float32(nil), rgb...), e...), 4)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("logit %d: %v from RGB, %v from RGB + cached edges", i, a[i], b[i])
		}
	}
	if _, err := SobelPlanes(rgb[:10], w, h); err == nil {
		t.Error("SobelPlanes accepted 10 values for a 45×37 image")
	}
	plain, err := New(Config{Name: "p", BaseWidth: 4, Depth: 2, Classes: 1}, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	err = Run(func(s *Scope) error {
		x, err := Tensor(s, make([]float32, 4*h*w), []int64{1, 4, h, w}, gotch.CPU)
		if err != nil {
			return err
		}
		_, err = plain.Forward(s, x, false)
		return err
	})
	if err == nil {
		t.Error("a model without the edge channel accepted 4 input channels")
	}
}

// A vertical 0→1 step: |G_x| = 1+2+1 = 4 on the two columns beside the step, G_y = 0
// everywhere (replicated borders), so E = 4/(4√2) = 1/√2 there and 0 elsewhere.
func TestSobelStepEdge(t *testing.T) {
	const h, w = 5, 6
	img := make([]float32, 3*h*w)
	for c := 0; c < 3; c++ {
		for y := 0; y < h; y++ {
			for x := 3; x < w; x++ {
				img[c*h*w+y*w+x] = 1
			}
		}
	}
	err := Run(func(s *Scope) error {
		x, err := Tensor(s, img, []int64{1, 3, h, w}, gotch.CPU)
		if err != nil {
			return err
		}
		e, err := Sobel(s, x)
		if err != nil {
			return err
		}
		v, err := Float32s(e)
		if err != nil {
			return err
		}
		if len(v) != h*w {
			t.Fatalf("%d values", len(v))
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				want := 0.0
				if x == 2 || x == 3 {
					want = 1 / math.Sqrt2
				}
				if got := float64(v[y*w+x]); math.Abs(got-want) > 1e-5 {
					t.Errorf("E(%d,%d) = %g, want %g", x, y, got, want)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Independent count of the channel plan for width 64, depth 4 (milesial/Pytorch-UNet,
// bilinear): encoder (in, mid, out) and decoder blocks, then the 1×1 head.
func TestPaperPresetParameterCount(t *testing.T) {
	cfg, err := Preset("unet-paper")
	if err != nil {
		t.Fatal(err)
	}
	blocks := [][3]int64{
		{4, 64, 64}, {64, 128, 128}, {128, 256, 256}, {256, 512, 512}, {512, 512, 512},
		{1024, 512, 256}, {512, 256, 128}, {256, 128, 64}, {128, 64, 64},
	}
	var want int64
	for _, b := range blocks {
		want += 9*(b[0]*b[1]+b[1]*b[2]) + 2*(b[1]+b[2])
	}
	want += 64*1 + 1
	m, err := New(cfg, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.NumParams(); got != want {
		t.Errorf("unet-paper has %d parameters, want %d", got, want)
	}
}

func TestPresets(t *testing.T) {
	for _, n := range []string{"unet-paper", "unet-cpu"} {
		c, err := Preset(n)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != n || c.Depth != 4 || c.Classes != 1 {
			t.Errorf("%s: %+v", n, c)
		}
	}
	if _, err := Preset("unet-nope"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// bceLoss is the mean binary cross entropy with logits.
func bceLoss(s *Scope, logits, target *ts.Tensor) *ts.Tensor {
	return s.T(logits.BinaryCrossEntropyWithLogits(target, noBias, noBias, ts.ReductionMean, false))
}

// toyBatch: random-noise backgrounds with a bright 8×8 square at a random place; the
// label is the square.
func toyBatch(rng *rand.Rand, n, size int) (img, lab []float32) {
	img = make([]float32, n*3*size*size)
	lab = make([]float32, n*size*size)
	for i := 0; i < n; i++ {
		x0, y0 := rng.Intn(size-8), rng.Intn(size-8)
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				in := x >= x0 && x < x0+8 && y >= y0 && y < y0+8
				for c := 0; c < 3; c++ {
					v := 0.5 * rng.Float32()
					if in {
						v = 0.5 + 0.5*float32(c)/2
					}
					img[((i*3+c)*size+y)*size+x] = v
				}
				if in {
					lab[(i*size+y)*size+x] = 1
				}
			}
		}
	}
	return img, lab
}

func trainSteps(t *testing.T, m *Model, steps int, rng *rand.Rand) (first, last float64) {
	opt, err := nn.DefaultAdamConfig().Build(m.VS, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 2, 32
	img, lab := toyBatch(rng, n, size)
	for i := 0; i < steps; i++ {
		err := Run(func(s *Scope) error {
			x, err := Tensor(s, img, []int64{n, 3, size, size}, gotch.CPU)
			if err != nil {
				return err
			}
			y, err := Tensor(s, lab, []int64{n, 1, size, size}, gotch.CPU)
			if err != nil {
				return err
			}
			logits, err := m.Forward(s, x, true)
			if err != nil {
				return err
			}
			loss := bceLoss(s, logits, y)
			if err := opt.BackwardStep(loss); err != nil {
				return err
			}
			v, err := Float32s(loss)
			if err != nil {
				return err
			}
			if i == 0 {
				first = float64(v[0])
			}
			last = float64(v[0])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return first, last
}

func TestTrainingReducesLoss(t *testing.T) {
	ManualSeed(3)
	m, err := New(tiny("t", 4, 2, 1), gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	first, last := trainSteps(t, m, 40, rand.New(rand.NewSource(3)))
	t.Logf("BCE %.4f → %.4f after 40 Adam steps", first, last)
	if !(last < 0.5*first) {
		t.Errorf("loss %.4f → %.4f: did not halve", first, last)
	}
}

func evalOutput(t *testing.T, m *Model, img []float32, shape []int64) []float32 {
	var out []float32
	err := Run(func(s *Scope) error {
		return NoGrad(func() error {
			x, err := Tensor(s, img, shape, m.Device)
			if err != nil {
				return err
			}
			y, err := m.Forward(s, x, false)
			if err != nil {
				return err
			}
			out, err = Float32s(y)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckpointRoundTrip(t *testing.T) {
	ManualSeed(5)
	cfg := tiny("t", 4, 2, 1)
	a, err := New(cfg, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	trainSteps(t, a, 3, rand.New(rand.NewSource(5))) // moves weights and BN running stats
	path := filepath.Join(t.TempDir(), "a.ckpt")
	if err := a.Save(path, map[string]int{"epoch": 7}); err != nil {
		t.Fatal(err)
	}
	ManualSeed(6)
	b, err := New(cfg, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	img := randImage(rand.New(rand.NewSource(9)), 1, 20, 23)
	shape := []int64{1, 3, 20, 23}
	ya, yb := evalOutput(t, a, img, shape), evalOutput(t, b, img, shape)
	differ := false
	for i := range ya {
		differ = differ || ya[i] != yb[i]
	}
	if !differ {
		t.Fatal("two differently seeded models agree before loading: the test cannot tell")
	}
	extra, err := b.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(extra) != `{"epoch":7}` {
		t.Errorf("extra = %s", extra)
	}
	yb = evalOutput(t, b, img, shape)
	for i := range ya {
		if ya[i] != yb[i] {
			t.Fatalf("output %d: %g before save, %g after load", i, ya[i], yb[i])
		}
	}
	c, _, err := Open(path, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if yc := evalOutput(t, c, img, shape); yc[0] != ya[0] || yc[len(yc)-1] != ya[len(ya)-1] {
		t.Error("Open gives different outputs")
	}
}

func TestCheckpointRejectsOtherPresetAndDamage(t *testing.T) {
	cpu, err := Preset("unet-cpu")
	if err != nil {
		t.Fatal(err)
	}
	paper, err := Preset("unet-paper")
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cpu, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.ckpt")
	if err := a.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	b, err := New(paper, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Load(path)
	if err == nil || !strings.Contains(err.Error(), "unet-cpu") || !strings.Contains(err.Error(), "unet-paper") {
		t.Errorf("loading a unet-cpu checkpoint into unet-paper: %v", err)
	}
	// Same name, other width: also rejected.
	other := cpu
	other.BaseWidth = 8
	c, err := New(other, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(path); err == nil {
		t.Error("width mismatch accepted")
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := map[string][]byte{
		"truncated": raw[:len(raw)-10],
		"flipped":   append(append([]byte{}, raw[:len(raw)-5]...), raw[len(raw)-5]^0xff, 0, 0, 0, 0)[:len(raw)],
		"trailing":  append(append([]byte{}, raw...), 1),
		"notckpt":   []byte("hello\n"),
	}
	for name, data := range damaged {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Load(p); err == nil {
			t.Errorf("%s checkpoint accepted", name)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

func TestTorchErrorIsOneLine(t *testing.T) {
	m, err := New(tiny("t", 2, 1, 2), gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	err = Run(func(s *Scope) error {
		x, err := Tensor(s, make([]float32, 3*8*8), []int64{1, 3, 8, 8}, gotch.CPU)
		if err != nil {
			return err
		}
		y, err := Tensor(s, make([]float32, 8*8), []int64{1, 1, 8, 8}, gotch.CPU)
		if err != nil {
			return err
		}
		logits, err := m.Forward(s, x, true)
		if err != nil {
			return err
		}
		bceLoss(s, logits, y) // 2 logit channels vs 1 target channel: libtorch throws
		return nil
	})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "libtorch: ") {
		t.Errorf("want a one-line libtorch error, got %q", err)
	}
}

// Every embedded starting weights file is a whole checkpoint of its preset:
// it loads into a fresh model of the preset (every tensor, CRC32 checked)
// and changes what the model predicts.
func TestStartingWeightsLoadIntoTheirPreset(t *testing.T) {
	n := 0
	for _, preset := range models.Names() {
		cfg, err := Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range models.StartingWeightsNames(preset) {
			n++
			b, err := models.StartingWeights(preset, name)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), preset+"-"+name+".ckpt")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := ReadCheckpointHeader(path)
			if err != nil {
				t.Fatal(err)
			}
			if !sameArchitecture(h.Config, cfg) {
				t.Fatalf("%s-%s: a checkpoint of %v", preset, name, h.Config)
			}
			ManualSeed(3)
			m, err := New(cfg, gotch.CPU)
			if err != nil {
				t.Fatal(err)
			}
			img := randImage(rand.New(rand.NewSource(4)), 1, 32, 40)
			shape := []int64{1, 3, 32, 40}
			before := evalOutput(t, m, img, shape)
			if _, err := m.Load(path); err != nil {
				t.Fatal(err)
			}
			after := evalOutput(t, m, img, shape)
			same := true
			for i := range before {
				same = same && before[i] == after[i]
			}
			if same {
				t.Errorf("%s-%s: the model predicts the same after loading", preset, name)
			}
		}
	}
	if len(models.StartingWeightsNames(models.Default)) == 0 || n == 0 {
		t.Fatalf("no starting weights embedded for %s", models.Default)
	}
	if _, err := models.StartingWeights("unet-paper", models.DefaultStartingWeights); err == nil || !strings.Contains(err.Error(), "unet-paper") {
		t.Errorf("missing starting weights: err %v", err)
	}
}
