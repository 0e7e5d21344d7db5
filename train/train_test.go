package train

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

func TestLossDecreasesOnToySet(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 6, testOptions())
	cfg := tinyConfig(10)
	cfg.Variant = VariantUniform // the ×1000 hard pixels make the mean loss jumpy
	s := mustRun(t, cfg, []string{set}, filepath.Join(t.TempDir(), "out"))
	t.Logf("epoch losses %v", s.EpochLoss)
	if len(s.EpochLoss) != 10 || s.Steps != 10*3 {
		t.Fatalf("%d epochs, %d steps", len(s.EpochLoss), s.Steps)
	}
	if !(s.EpochLoss[9] < 0.6*s.EpochLoss[0]) {
		t.Errorf("loss %.4f → %.4f: did not drop below 60%%", s.EpochLoss[0], s.EpochLoss[9])
	}
}

// lossOf evaluates weightedLoss on hand-written tensors.
func lossOf(t *testing.T, logits []float32, classes int, target, weight []float32) float64 {
	t.Helper()
	n := int64(len(target))
	var sumW float64
	for _, w := range weight {
		sumW += float64(w)
	}
	return scalarOf(t, func(s *unet.Scope) (*ts.Tensor, error) {
		z, err := unet.Tensor(s, logits, []int64{1, int64(classes), 2, n / 2}, gotch.CPU)
		if err != nil {
			return nil, err
		}
		y, err := unet.Tensor(s, target, []int64{1, 1, 2, n / 2}, gotch.CPU)
		if err != nil {
			return nil, err
		}
		w, err := unet.Tensor(s, weight, []int64{1, 1, 2, n / 2}, gotch.CPU)
		if err != nil {
			return nil, err
		}
		return weightedLoss(s, z, y, w, sumW, classes)
	})
}

// scalarOf runs f in a scope and returns the one value of the tensor it
// returns; any error ends the test.
func scalarOf(t *testing.T, f func(s *unet.Scope) (*ts.Tensor, error)) float64 {
	t.Helper()
	var out float64
	err := unet.Run(func(s *unet.Scope) error {
		l, err := f(s)
		if err != nil {
			return err
		}
		v, err := unet.Float32s(l)
		if err == nil {
			out = float64(v[0])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// 2×2 binary example: logits (0, 2, −1, 3), labels (1, 0, 1, unlabelled),
// weights (1, 3, 1000, 0):
//
//	ℓ = (log 2, log(1+e²), log(1+e), ·)
//	L = (1·log 2 + 3·log(1+e²) + 1000·log(1+e)) / 1004.
func TestWeightedBCEHandComputed(t *testing.T) {
	got := lossOf(t, []float32{0, 2, -1, 3}, 1, []float32{1, 0, 1, 0}, []float32{1, 3, 1000, 0})
	want := (math.Log(2) + 3*math.Log(1+math.Exp(2)) + 1000*math.Log(1+math.E)) / 1004
	if math.Abs(got-want) > 1e-5*want {
		t.Errorf("binary loss %.7f, want %.7f", got, want)
	}
}

// 2×2, three classes. Logits per pixel (channel-major in the tensor):
//
//	p0 (1, 0, 0) label 0, w 2:   ℓ = −log(e/(e+2))
//	p1 (0, 0, 0) label 2, w 1:   ℓ = log 3
//	p2 (0, 1, 2) label 1, w 10:  ℓ = −log(e/(1+e+e²))
//	p3 (5, 5, 5) unlabelled, w 0
func TestWeightedCrossEntropyHandComputed(t *testing.T) {
	logits := []float32{
		1, 0, 0, 5, // class 0 at p0..p3
		0, 0, 1, 5, // class 1
		0, 0, 2, 5, // class 2
	}
	got := lossOf(t, logits, 3, []float32{0, 2, 1, 0}, []float32{2, 1, 10, 0})
	e := math.E
	want := (2*-math.Log(e/(e+2)) + math.Log(3) + 10*-math.Log(e/(1+e+e*e))) / 13
	if math.Abs(got-want) > 1e-5*want {
		t.Errorf("multi-label loss %.7f, want %.7f", got, want)
	}
}

func TestUniformDiffersExactlyAtHardPixels(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 4, testOptions())
	wd, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: -1})
	if err != nil {
		t.Fatal(err)
	}
	ud, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1})
	if err != nil {
		t.Fatal(err)
	}
	hard, easy := 0, 0
	for k, ws := range wd.Samples {
		us := ud.Samples[k]
		for i, w := range ws.Weights {
			u := us.Weights[i]
			if ws.Labels[i] != us.Labels[i] {
				t.Fatalf("labels differ at %d", i)
			}
			switch {
			case ws.Hard[i] == 1:
				hard++
				if w != u*1000 || u <= 0 {
					t.Fatalf("hard pixel: weighted %v, uniform %v (want ×1000)", w, u)
				}
			case w != u:
				t.Fatalf("easy pixel: weighted %v, uniform %v", w, u)
			case w > 0:
				easy++
			}
		}
	}
	if hard == 0 || easy == 0 {
		t.Fatalf("test set has %d hard and %d easy pixels: cannot tell", hard, easy)
	}
	if wd.Hard != hard {
		t.Errorf("counted %d hard pixels, data says %d", hard, wd.Hard)
	}
}

// Redrawing the hard examples from the set's per-pixel u and μ_A with the
// set's own φ gives the set's mask; φ = 1 leaves none; a factor override
// scales exactly the hard pixels.
func TestHardExamplesRedrawnForPhiAndFactor(t *testing.T) {
	opt := testOptions()
	set, _ := synthSet(t, t.TempDir(), 48, 32, 4, opt)
	base, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: -1})
	if err != nil {
		t.Fatal(err)
	}
	same, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: opt.Phi, Factor: 10})
	if err != nil {
		t.Fatal(err)
	}
	none, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: 1})
	if err != nil {
		t.Fatal(err)
	}
	if base.Hard == 0 || same.Hard != base.Hard || none.Hard != 0 {
		t.Fatalf("hard pixels: set %d, redrawn at the set's φ %d, at φ = 1 %d", base.Hard, same.Hard, none.Hard)
	}
	for k, bs := range base.Samples {
		ss, ns := same.Samples[k], none.Samples[k]
		for i, w := range bs.Weights {
			if bs.Hard[i] != ss.Hard[i] {
				t.Fatalf("hard mask differs at %d", i)
			}
			if bs.Hard[i] == 1 && (ss.Weights[i]*100 != w || ns.Weights[i]*1000 != w) {
				t.Fatalf("hard pixel: weights %v (×1000), %v (×10), %v (not hard)", w, ss.Weights[i], ns.Weights[i])
			}
		}
	}
}

// 4×4 → 2×2: every pixel lands in the 2×2 block containing its centre; the
// heavier label wins a block, and no labelled block becomes empty.
func TestScaleLabelsKeepsSparseLabels(t *testing.T) {
	const u = trainset.Unlabelled
	labels := []int16{
		1, u, u, u,
		u, 0, u, u,
		u, u, u, u,
		u, u, u, 1,
	}
	weights := []float32{
		5, 0, 0, 0,
		0, 7, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 2,
	}
	hard := make([]uint8, 16)
	hard[0] = 1
	l, w, h := scaleLabels(labels, weights, hard, 4, 4, 2, 2)
	if want := []int16{0, u, u, 1}; !reflect.DeepEqual(l, want) {
		t.Errorf("labels %v, want %v", l, want)
	}
	if want := []float32{7, 0, 0, 2}; !reflect.DeepEqual(w, want) {
		t.Errorf("weights %v, want %v", w, want)
	}
	if want := []uint8{0, 0, 0, 0}; !reflect.DeepEqual(h, want) {
		t.Errorf("hard %v, want %v", h, want)
	}
	// A 3-pixel-wide image scaled by 0.5 (→ 2): x = 0 → 0, x = 1 → ⌊1.5·2/3⌋ = 1, x = 2 → 1.
	l, _, _ = scaleLabels([]int16{1, 0, 1}, []float32{1, 2, 3}, make([]uint8, 3), 3, 1, 2, 1)
	if want := []int16{1, 1}; !reflect.DeepEqual(l, want) {
		t.Errorf("3→2: %v, want %v", l, want)
	}
}

func ckptCRCs(t *testing.T, path string) []uint32 {
	t.Helper()
	h, err := unet.ReadCheckpointHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	var c []uint32
	for _, e := range h.Tensors {
		c = append(c, e.CRC32)
	}
	return c
}

func TestDeterministicAndResumeContinuesExactly(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 5, testOptions())
	dir := t.TempDir()
	cfg := tinyConfig(3)
	a := mustRun(t, cfg, []string{set}, filepath.Join(dir, "a"))
	b := mustRun(t, cfg, []string{set}, filepath.Join(dir, "b"))
	ca, cb := ckptCRCs(t, filepath.Join(dir, "a", "model.ckpt")), ckptCRCs(t, filepath.Join(dir, "b", "model.ckpt"))
	if !reflect.DeepEqual(ca, cb) || !reflect.DeepEqual(a.EpochLoss, b.EpochLoss) {
		t.Fatalf("same seed, different results: losses %v vs %v", a.EpochLoss, b.EpochLoss)
	}
	other := cfg
	other.Seed = 2
	mustRun(t, other, []string{set}, filepath.Join(dir, "c"))
	if reflect.DeepEqual(ca, ckptCRCs(t, filepath.Join(dir, "c", "model.ckpt"))) {
		t.Fatal("seeds 1 and 2 give identical weights: the test cannot tell")
	}

	// Interrupt in the middle of epoch 3, then resume.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := cfg
	stop.OnStep = func(epoch, step int, loss float64) {
		if epoch == 3 && step == 2*3+1 {
			cancel()
		}
	}
	out := filepath.Join(dir, "r")
	if _, err := Run(ctx, stop, []string{set}, out, nil); err == nil || !errors.Is(ctx.Err(), context.Canceled) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("interrupted run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "train.json")); err == nil {
		t.Error("interrupted run wrote train.json")
	}
	res := cfg
	res.Resume = true
	r := mustRun(t, res, []string{set}, out)
	if r.ResumedAt != 2 {
		t.Errorf("resumed after epoch %d, want 2", r.ResumedAt)
	}
	if cr := ckptCRCs(t, filepath.Join(out, "model.ckpt")); !reflect.DeepEqual(ca, cr) {
		t.Error("resumed run ends with other weights than the uninterrupted one")
	}
	if !reflect.DeepEqual(a.EpochLoss, r.EpochLoss) || a.Steps != r.Steps {
		t.Errorf("losses %v (%d steps) vs resumed %v (%d steps)", a.EpochLoss, a.Steps, r.EpochLoss, r.Steps)
	}
	la, _ := readLog(filepath.Join(dir, "a", "train_log.csv"), 99)
	lr, _ := readLog(filepath.Join(out, "train_log.csv"), 99)
	if len(la) != len(lr) || len(la) != a.Steps {
		t.Fatalf("log rows %d vs %d", len(la), len(lr))
	}
	for i := range la {
		if la[i].Loss != lr[i].Loss || la[i].Step != lr[i].Step || la[i].Epoch != lr[i].Epoch {
			t.Fatalf("log row %d: %+v vs %+v", i, la[i], lr[i])
		}
	}

	// Resuming with another architecture or other options is refused.
	wide := res
	wide.Model = &unet.Config{Name: "tiny", BaseWidth: 8, Depth: 2, Edges: true, Classes: 1}
	if _, err := Run(context.Background(), wide, []string{set}, out, nil); err == nil || !strings.Contains(err.Error(), "preset") {
		t.Errorf("resume into another architecture: %v", err)
	}
	lr2 := res
	lr2.LR = 0.5
	if _, err := Run(context.Background(), lr2, []string{set}, out, nil); err == nil || !strings.Contains(err.Error(), "same options") {
		t.Errorf("resume with another learning rate: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	set, frames := synthSet(t, dir, 48, 32, 3, testOptions())
	cfg := tinyConfig(1)

	// A frame of another size than its labels.
	p := synthFrameOfSize(t, 40, 32)
	orig, _ := os.ReadFile(frames[1])
	testutil.WritePNG(t, frames[1], p)
	_, err := Run(context.Background(), cfg, []string{set}, filepath.Join(dir, "o1"), nil)
	if err == nil || !strings.Contains(err.Error(), frames[1]) || !strings.Contains(err.Error(), "40x32") {
		t.Errorf("frame/label size mismatch: %v", err)
	}
	os.WriteFile(frames[1], orig, 0o644)

	// No labelled pixel: every labels file set to −1.
	m, err := trainset.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Frames {
		path := filepath.Join(set, f.Labels)
		a, err := npy.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Int16 {
			a.Int16[i] = -1
		}
		if err := npy.Write(path, a); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Run(context.Background(), cfg, []string{set}, filepath.Join(dir, "o2"), nil)
	if err == nil || !strings.Contains(err.Error(), "no labelled pixel") {
		t.Errorf("set without labels: %v", err)
	}
	if _, err := Run(context.Background(), cfg, []string{filepath.Join(dir, "nope")}, filepath.Join(dir, "o3"), nil); err == nil {
		t.Error("missing set accepted")
	}
	bad := cfg
	bad.Epochs = 0
	if _, err := Run(context.Background(), bad, []string{set}, filepath.Join(dir, "o4"), nil); err == nil {
		t.Error("0 epochs accepted")
	}
}

func TestSetNameAndDuplicateSets(t *testing.T) {
	if got := SetName("/w/dog/prepared/"); got != "dog" {
		t.Fatalf("pipeline set named %q", got)
	}
	if got := SetName("sets/blackswan"); got != "blackswan" {
		t.Fatalf("set named %q", got)
	}
	out := t.TempDir()
	cfg := DefaultConfig()
	if _, err := Run(context.Background(), cfg, []string{"a/x", "b/x"}, out, nil); err == nil || !strings.Contains(err.Error(), "two sets are named") {
		t.Fatalf("duplicate set names: %v", err)
	}
}
