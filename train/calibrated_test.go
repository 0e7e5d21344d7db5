package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/uncertainty"
)

// The synthetic set's trajectories have u = 0.05 (γ = ln 19) or u = 0.9
// (γ = −ln 9, the hard examples); added border and far-background points
// have γ = +∞. calibratedWeights loads the set under wt and returns, for
// every labelled pixel of every frame, its base weight, its hard flag, its
// u and the weight the variant gave it.
type pixel struct {
	base, u, w, gamma, mu float32
	hard                  bool
	class                 int16
}

func calibratedWeights(t *testing.T, set string, wt weighting) []pixel {
	t.Helper()
	d, err := loadSets([]string{set}, 1, wt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := trainset.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) *npy.Array {
		a, err := npy.Read(filepath.Join(set, rel))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var out []pixel
	for _, s := range d.Samples {
		for _, mf := range m.Frames {
			if mf.Frame != s.frame {
				continue
			}
			l, base, hard, u := read(mf.Labels), read(mf.Weights), read(mf.Hard), read(mf.U)
			gamma, mu := read(mf.Gamma), read(mf.Mu)
			for i, c := range l.Int16 {
				if c >= 0 {
					out = append(out, pixel{base: base.F32[i], u: u.F32[i], w: s.Weights[i], hard: hard.U8[i] == 1, gamma: gamma.F32[i], mu: mu.F32[i], class: c})
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no labelled pixel")
	}
	return out
}

// Calibrated confidence, w = w_b · max(0, 1 − 2σ(−γ/T)), by hand at T = 45:
// γ = ln 19 gives 1 − 2σ(−ln19/45), γ = −ln 9 gives u_T > ½ and weight 0,
// γ = +∞ keeps w_b. At T = 1 it is the uncalibrated 1 − 2u.
func TestCalibratedConfidenceHandComputed(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	sigma := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for _, T := range []float64{45, 1} {
		seen := map[float32]int{}
		for _, p := range calibratedWeights(t, set, weighting{Variant: VariantConfidence, Phi: -1, Temperature: T}) {
			var c float64
			switch p.u {
			case 0: // an added point
				c = 1
			case float32(0.05):
				c = 1 - 2*sigma(-math.Log(19)/T)
			case float32(0.9):
				c = 0
			default:
				t.Fatalf("u %v: not one of the synthetic set's", p.u)
			}
			want := float64(p.base) * c
			if math.Abs(float64(p.w)-want) > 1e-5*max(1, want) {
				t.Fatalf("T %v, u %v, w_b %v: weight %v, want %v", T, p.u, p.base, p.w, want)
			}
			seen[p.u]++
		}
		if len(seen) != 3 {
			t.Errorf("T %v: pixels of u %v; want added points, 0.05 and 0.9", T, seen)
		}
	}
}

// Pruning drops the labels of the trajectories below the q-quantile of γ:
// a fifth of the trajectories have γ = −ln 9, so q = 0.25 drops exactly
// those, and q = 0.1 drops none (the quantile is −ln 9 itself; ties are
// kept).
func TestPruneDropsTheMostUncertain(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	m, err := trainset.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	g, err := npy.Read(filepath.Join(set, m.TrajectoryGamma))
	if err != nil {
		t.Fatal(err)
	}
	neg := 0
	for _, x := range g.F32 {
		if x < 0 {
			neg++
		}
	}
	if frac := float64(neg) / float64(len(g.F32)); !(frac > 0.1 && frac < 0.25) {
		t.Fatalf("%d of %d trajectories with γ < 0: the test needs a share in (0.1, 0.25)", neg, len(g.F32))
	}
	// Relabel every other uncertain pixel (u = 0.9) of the first frame as
	// object, so that the drops are counted in both classes.
	lp := filepath.Join(set, m.Frames[0].Labels)
	la, ua := readNpy(t, lp), readNpy(t, filepath.Join(set, m.Frames[0].U))
	k := 0
	for i, l := range la.Int16 {
		if l == 0 && ua.F32[i] == float32(0.9) {
			if k%2 == 0 {
				la.Int16[i] = 1
			}
			k++
		}
	}
	if err := npy.Write(lp, la); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q     float64
		drops bool
	}{{0.25, true}, {0.1, false}} {
		dropped := 0
		var labelled, byClass [2]int
		wt := weighting{Variant: VariantPrune, Phi: -1, Prune: c.q}
		for _, p := range calibratedWeights(t, set, wt) {
			want := p.base
			labelled[p.class]++
			if c.drops && p.u == float32(0.9) {
				want = 0
				dropped++
				byClass[p.class]++
			}
			if p.w != want {
				t.Fatalf("q %v, u %v: weight %v, want %v", c.q, p.u, p.w, want)
			}
		}
		if c.drops && dropped == 0 {
			t.Errorf("q %v dropped nothing", c.q)
		}
		if c.drops && (byClass[0] == 0 || byClass[1] == 0) {
			t.Fatalf("q %v dropped %v per class: the test needs drops in both", c.q, byClass)
		}
		// train.json reports the dropped labels per class
		d, err := loadSets([]string{set}, 1, wt)
		if err != nil {
			t.Fatal(err)
		}
		want := []ClassPruned{{0, labelled[0], byClass[0]}, {1, labelled[1], byClass[1]}}
		if got := d.pruned(); !reflect.DeepEqual(got, want) {
			t.Errorf("q %v: pruned %+v, want %+v", c.q, got, want)
		}
	}
}

// hard-right weights a hard example × factor only where 1 − P(wrong | γ,
// μ_A) ≥ MinRight under the error model. The synthetic set's hard examples
// have γ = −ln 9, slog γ = −log(1 + ln 9) ≈ −1.162: under θ = (−2, 0, 1, 0, 0)
// P(wrong) = σ(−3.162) ≈ 0.041, right with 0.959, which 0.9 passes and
// 0.99 does not. Under θ = (−2, 0, 1, 0, −2) the segment's μ_A counts too: its
// hard examples lie in a segment of μ_A ≈ 0.227, which adds 1.29 to the
// log-odds, so that P(right) ≈ 0.87 and none passes 0.9; the expected
// weights are recomputed from the set's _gamma and _mu files.
func TestHardRightKeepsProbablyRightHardExamples(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	model := func(theta ...float64) *uncertainty.ErrorModel {
		return &uncertainty.ErrorModel{Version: uncertainty.ErrorModelVersion, Features: uncertainty.ErrorFeatureNames, Theta: theta}
	}
	byGamma, withMu := model(-2, 0, 1, 0, 0), model(-2, 0, 1, 0, -2)
	for _, c := range []struct {
		model    *uncertainty.ErrorModel
		minRight float64
		weighted func(pixel) bool
	}{
		{byGamma, 0.9, func(pixel) bool { return true }},
		{byGamma, 0.99, func(pixel) bool { return false }},
		{withMu, 0.9, func(p pixel) bool { return 1-withMu.PWrong(float64(p.gamma), float64(p.mu)) >= 0.9 }},
	} {
		hard, weighted, wantWeighted := 0, 0, 0
		for _, p := range calibratedWeights(t, set, weighting{Variant: VariantHardRight, Phi: -1, MinRight: c.minRight, ErrorModel: c.model}) {
			want := p.base
			if p.hard {
				hard++
				if c.weighted(p) {
					want = float32(float64(p.base) * testOptions().Factor)
					wantWeighted++
				}
				if p.w != p.base {
					weighted++
				}
			}
			if p.w != want {
				t.Fatalf("θ %v min-right %v, hard %v γ %v μ %v: weight %v, want %v", c.model.Theta, c.minRight, p.hard, p.gamma, p.mu, p.w, want)
			}
		}
		if hard == 0 {
			t.Fatal("no hard example")
		}
		if all := c.minRight == 0.9 && c.model == byGamma; (all && weighted != hard) || (!all && weighted != 0) || weighted != wantWeighted {
			t.Errorf("θ %v min-right %v: %d of %d hard pixels weighted", c.model.Theta, c.minRight, weighted, hard)
		}
	}
}

// The calibrated variants need γ (format 4); a format-3 set trains
// confidence at T = 1 from its u but is refused for T ≠ 1 and for pruning.
func TestCalibratedVariantsNeedFormat4(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	setVersion(t, set, 3)
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantConfidence, Phi: -1, Temperature: 1}); err != nil {
		t.Fatalf("format-3 set, confidence at T = 1: %v", err)
	}
	for _, wt := range []weighting{{Variant: VariantConfidence, Phi: -1, Temperature: 45}, {Variant: VariantPrune, Phi: -1, Prune: 0.05}, {Variant: VariantHardRight, Phi: -1, MinRight: 0.9, ErrorModel: uncertainty.DefaultErrorModel()}} {
		if _, err := loadSets([]string{set}, 1, wt); err == nil || !strings.Contains(err.Error(), "run densify prepare again") {
			t.Errorf("format-3 set, %s: err = %v", wt.Variant, err)
		}
	}
}

// A gamma.npy that is not ascending (a hand edit) is refused by name.
func TestPruneRefusesUnsortedGamma(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	p := filepath.Join(set, "gamma.npy")
	if err := npy.Write(p, &npy.Array{Shape: []int{3}, F32: []float32{1, 0, 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantPrune, Phi: -1, Prune: 0.5}); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "ascending") {
		t.Fatalf("unsorted γ: err = %v", err)
	}
}

// A hard-right training records the error model it read: the embedded one
// by default, a file's with --error-model; a broken file stops it by name
// before training, and the other variants record none.
func TestHardRightRecordsItsErrorModel(t *testing.T) {
	dir := t.TempDir()
	set, _ := synthSet(t, dir, 48, 32, 2, testOptions())
	cfg := tinyConfig(1)
	cfg.Variant = VariantHardRight
	s := mustRun(t, cfg, []string{set}, filepath.Join(dir, "default"))
	if def := uncertainty.DefaultErrorModel(); s.Options.ErrorModel == nil || !slices.Equal(s.Options.ErrorModel.Theta, def.Theta) {
		t.Errorf("default: recorded %+v, want the embedded model", s.Options.ErrorModel)
	}
	mine := &uncertainty.ErrorModel{Version: uncertainty.ErrorModelVersion, Features: uncertainty.ErrorFeatureNames, Theta: []float64{-2, 0, 1, 0, 0}}
	p := filepath.Join(dir, "mine.json")
	if err := uncertainty.WriteErrorModel(p, mine); err != nil {
		t.Fatal(err)
	}
	cfg.ErrorModel = p
	if s := mustRun(t, cfg, []string{set}, filepath.Join(dir, "mine")); s.Options.ErrorModel == nil || !slices.Equal(s.Options.ErrorModel.Theta, mine.Theta) {
		t.Errorf("--error-model: recorded %+v", s.Options.ErrorModel)
	}
	if err := os.WriteFile(p, []byte("{\n\"version\": 1,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "broken")
	if _, err := Run(context.Background(), cfg, []string{set}, out, nil); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("broken error model: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "model.ckpt")); err == nil {
		t.Error("a model was written despite the broken error model")
	}
	cfg.Variant, cfg.ErrorModel = VariantUniform, ""
	if s := mustRun(t, cfg, []string{set}, filepath.Join(dir, "uniform")); s.Options.ErrorModel != nil {
		t.Errorf("uniform recorded an error model: %+v", s.Options.ErrorModel)
	}
}

func readNpy(t *testing.T, path string) *npy.Array {
	t.Helper()
	a, err := npy.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
