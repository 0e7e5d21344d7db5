package motiongraph

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testModel() *CostModel {
	return &CostModel{Version: 1, Features: FeatureNames, Params: DefaultFeatureParams(),
		Mean:  []float64{0, 1, 0, 0, 0, 0, 0},
		Std:   []float64{1, 2, 1, 1, 1, 1, 1},
		Theta: []float64{0.5, 1, -2, 0, 0, 0, 0, 0}}
}

func TestCostHandComputed(t *testing.T) {
	m := testModel()
	f := []float64{1, 2, 7, 7, 7, 7, 7} // logit = 0.5 + 1·1 − 2·(2−1)/2 = 0.5
	if got := m.Logit(f); math.Abs(got-0.5) > 1e-12 {
		t.Fatalf("logit %v, want 0.5", got)
	}
	p := 1 / (1 + math.Exp(-0.5)) // 0.6224593312
	if got := m.CutProb(f); math.Abs(got-0.6224593312018546) > 1e-12 || math.Abs(got-p) > 1e-15 {
		t.Fatalf("p %v", got)
	}
	// β = 0.5: c = log((1−p)/p) = −logit(p) = −0.5
	if got := m.Cost(f, 0.5); math.Abs(got+0.5) > 1e-12 {
		t.Fatalf("cost %v, want −0.5", got)
	}
	// β = 0.25: c = −0.5 + log(0.75/0.25) = −0.5 + log 3
	if got := m.Cost(f, 0.25); math.Abs(got-(-0.5+math.Log(3))) > 1e-12 {
		t.Fatalf("cost β=0.25 %v", got)
	}
}

func TestDefaultModelAndRoundTrip(t *testing.T) {
	m := DefaultCostModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := WriteCostModel(path, m); err != nil {
		t.Fatal(err)
	}
	m2, err := LoadCostModel(path)
	if err != nil {
		t.Fatal(err)
	}
	f := []float64{1, 0.3, 2, 0.1, 2, 0.5, 0.2, 0.4, 1.5, 0.7, 2.2}
	if m.Cost(f, 0.5) != m2.Cost(f, 0.5) {
		t.Fatal("round trip changed the model")
	}
	// the embedded models by name: davis (the default, every feature) and
	// synthetic (the first seven: a prefix, the rest is not read)
	for _, name := range CostModelNames {
		nm, err := LoadCostModel(name)
		if err != nil || nm.Validate() != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	d, _ := NamedCostModel("davis")
	syn, _ := NamedCostModel("synthetic")
	if len(d.Features) != NumFeatures || len(syn.Features) != 7 || d.Cost(f, 0.5) != m.Cost(f, 0.5) {
		t.Fatalf("davis has %d features, synthetic %d; default is davis: %v", len(d.Features), len(syn.Features), d.Cost(f, 0.5) == m.Cost(f, 0.5))
	}
	g := append([]float64(nil), f...)
	g[9], g[10] = 100, -100 // features the synthetic model does not use
	if syn.Cost(f, 0.5) != syn.Cost(g, 0.5) {
		t.Fatal("the synthetic model reads features beyond its seven")
	}
	if _, ok := NamedCostModel("nonsense"); ok {
		t.Fatal("unknown name accepted")
	}
}

func TestCostModelErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"version\": 1,\n  \"theta\": [1,, 2]\n}\n"), 0o644)
	_, err := LoadCostModel(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.json:3:") {
		t.Fatalf("want file:line error, got %v", err)
	}
	m := testModel()
	m.Std[2] = 0
	if m.Validate() == nil {
		t.Fatal("zero std accepted")
	}
	m = testModel()
	m.Theta = m.Theta[:3]
	if m.Validate() == nil {
		t.Fatal("short theta accepted")
	}
	m = testModel()
	m.Theta[1] = math.NaN()
	if m.Validate() == nil {
		t.Fatal("NaN theta accepted")
	}
	for _, v := range []int{0, 2, -1} {
		m = testModel()
		m.Version = v
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("model version %d: this densify reads version 1", v)) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	if WriteCostModel(filepath.Join(dir, "x.json"), m) == nil {
		t.Fatal("invalid model written")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Fatal("partial output")
	}
}
