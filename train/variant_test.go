package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		// confidence: w_b · max(0, 1 − 2u)
		{VariantConfidence, PixelWeight{Base: 4, U: 0.25, Hard: true, Factor: 1000}, 2},
		{VariantConfidence, PixelWeight{Base: 3, U: 0}, 3},
		{VariantConfidence, PixelWeight{Base: 3, U: 0.5}, 0},
		{VariantConfidence, PixelWeight{Base: 2, U: 0.1}, float32(2 * (1 - 2*float64(float32(0.1))))},
	} {
		if got := c.v.Weight(c.p); got != c.want {
			t.Errorf("%s %+v: weight %v, want %v", c.v, c.p, got, c.want)
		}
	}
	if _, err := ParseVariant("nope"); err == nil || !strings.Contains(err.Error(), "hard, uniform, confidence") {
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
	p := filepath.Join(set, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), `"version": 3`, `"version": 1`, 1)
	if old == string(b) {
		t.Fatal("manifest has no version 3")
	}
	os.WriteFile(p, []byte(old), 0o644)
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantHard, Phi: -1}); err == nil || !strings.Contains(err.Error(), "run densify prepare again") {
		t.Fatalf("old set: err = %v", err)
	}
}

// The confidence variant needs the per-pixel uncertainty of format 3; a
// version-2 set trains the other variants but is refused for it.
func TestConfidenceNeedsFormat3(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 2, testOptions())
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantConfidence, Phi: -1}); err != nil {
		t.Fatalf("format-3 set: %v", err)
	}
	p := filepath.Join(set, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), `"version": 3`, `"version": 2`, 1)
	if old == string(b) {
		t.Fatal("manifest has no version 3")
	}
	os.WriteFile(p, []byte(old), 0o644)
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantConfidence, Phi: -1}); err == nil || !strings.Contains(err.Error(), "run densify prepare again") {
		t.Fatalf("version-2 set, confidence: err = %v", err)
	}
	if _, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1}); err != nil {
		t.Fatalf("version-2 set, uniform: %v", err)
	}
}
