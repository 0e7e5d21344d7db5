package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trainset"
)

func TestVariantWeight(t *testing.T) {
	for _, c := range []struct {
		v    Variant
		p    PixelWeight
		want float32
	}{
		{VariantHard, PixelWeight{Base: 3, Hard: true, Factor: 1000}, 3000},
		{VariantHard, PixelWeight{Base: 3, Hard: false, Factor: 1000}, 3},
		{VariantHard, PixelWeight{Base: 2, Hard: true, Factor: 0}, 2}, // no factor recorded: 1
		{VariantHard, PixelWeight{Base: 1, Hard: true, Factor: 0.1}, float32(0.1)},
		{VariantUniform, PixelWeight{Base: 3, Hard: true, Factor: 1000}, 3},
		{VariantUniform, PixelWeight{Base: 5, Hard: false, Factor: 1000}, 5},
		// confidence: w_b · max(0, 1 − 2u_T)
		{VariantConfidence, PixelWeight{Base: 4, UT: 0.25, Hard: true, Factor: 1000}, 2},
		{VariantConfidence, PixelWeight{Base: 4, U: 0.25, UT: 0}, 4}, // u_T, not u
		{VariantConfidence, PixelWeight{Base: 3, UT: 0}, 3},
		{VariantConfidence, PixelWeight{Base: 3, UT: 0.5}, 0},
		{VariantConfidence, PixelWeight{Base: 3, UT: 0.8}, 0},
		{VariantConfidence, PixelWeight{Base: 2, UT: 0.1}, float32(2 * (1 - 2*float64(float32(0.1))))},
		// prune: 0 for the most uncertain, w_b elsewhere
		{VariantPrune, PixelWeight{Base: 3, Pruned: true, Hard: true, Factor: 1000}, 0},
		{VariantPrune, PixelWeight{Base: 3, Hard: true, Factor: 1000}, 3},
		// hard-right: × factor for hard examples that are probably right
		{VariantHardRight, PixelWeight{Base: 3, Hard: true, Right: true, Factor: 1000}, 3000},
		{VariantHardRight, PixelWeight{Base: 3, Hard: true, Right: false, Factor: 1000}, 3},
		{VariantHardRight, PixelWeight{Base: 3, Hard: false, Right: true, Factor: 1000}, 3},
	} {
		if got := c.v.Weight(c.p); got != c.want {
			t.Errorf("%s %+v: weight %v, want %v", c.v, c.p, got, c.want)
		}
	}
	if _, err := ParseVariant("nope"); err == nil || !strings.Contains(err.Error(), "hard, uniform, confidence, prune, hard-right") {
		t.Errorf("unknown variant: err = %v", err)
	}
	cfg := DefaultConfig()
	cfg.Variant = "nope"
	if err := cfg.validate(); err == nil {
		t.Error("config with an unknown variant accepted")
	}
}

// A set of the old layout (factor inside _weights.npy) is refused, not
// weighted twice.
func TestOldPreparedSetRefused(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	setVersion(t, set, 1)
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: -1}); err == nil || !strings.Contains(err.Error(), "run densify prepare again") {
		t.Fatalf("old set: err = %v", err)
	}
}

// The confidence variant needs the per-pixel uncertainty of format 3; a
// version-2 set trains the other variants but is refused for it.
func TestConfidenceNeedsFormat3(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantConfidence, Phi: -1, Temperature: 1}); err != nil {
		t.Fatalf("format-4 set: %v", err)
	}
	setVersion(t, set, 2)
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantConfidence, Phi: -1, Temperature: 1}); err == nil || !strings.Contains(err.Error(), "run densify prepare again") {
		t.Fatalf("version-2 set, confidence: err = %v", err)
	}
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1}); err != nil {
		t.Fatalf("version-2 set, uniform: %v", err)
	}
}

// PriorShift: class 1 has mean base weight 3 (two pixels of weight 3), the
// background 1 → s = [1, 3]; a class without pixels gets 1.
func TestPriorShiftHandComputed(t *testing.T) {
	d := &trainData{classW: []float64{10, 6, 0}, classN: []float64{10, 2, 0}}
	if got := d.PriorShift(); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 1 {
		t.Errorf("prior shift %v, want [1 3 1]", got)
	}
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	data, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: -1})
	if err != nil {
		t.Fatal(err)
	}
	// the synthetic set's object is the minority class: balance weights > 1
	if s := data.PriorShift(); len(s) != 2 || !(s[1] > 1) {
		t.Errorf("prior shift of the synthetic set %v, want [1, >1]", s)
	}
}

// A set whose labelled pixels are all background is refused: one class
// teaches nothing.
func TestOneClassSetRefused(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	m, err := trainset.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range m.Frames {
		p := filepath.Join(set, mf.Labels)
		a, err := npy.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range a.Int16 {
			if l > 0 {
				a.Int16[i] = 0
			}
		}
		if err := npy.Write(p, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1}); err == nil || !strings.Contains(err.Error(), "every labelled pixel is background (class 0)") {
		t.Fatalf("one-class set: err = %v", err)
	}
}

// A damaged train_log.csv is refused at its line when a training resumes
// (a NaN loss made the summary unwritable, naming no file).
func TestReadLogRefusesDamage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "train_log.csv")
	for _, row := range []string{"1,3,NaN,0.5", "1,3,0.2,-Inf", "1,3,+Inf,1", "-1,3,0.2,1"} {
		os.WriteFile(p, []byte("epoch,step,loss,seconds\n1,1,0.7,0.1\n"+row+"\n"), 0o644)
		if _, err := readLog(p, 5); err == nil || !strings.Contains(err.Error(), p+":3: ") || !strings.Contains(err.Error(), "the log is damaged") {
			t.Errorf("%s: %v", row, err)
		}
	}
	os.WriteFile(p, []byte("epoch,step,loss,seconds\n1,1,0.7,0.1\n2,2,0.5,0.2\n"), 0o644)
	if rows, err := readLog(p, 1); err != nil || len(rows) != 1 {
		t.Errorf("%v %v", rows, err)
	}
}
