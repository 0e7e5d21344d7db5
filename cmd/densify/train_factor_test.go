package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// With --set folders, --factor and --phi replace the set's factor and φ
// (train.json records them); without them the set's own are used and
// nothing is recorded. Before, the two flags were accepted and ignored.
func TestTrainSetTakesFactorAndPhi(t *testing.T) {
	f := newCatalogueFixture(t)
	out := t.TempDir()
	set := prepareInto(t, f, out)
	recorded := func(model string, args ...string) map[string]any {
		t.Helper()
		base := []string{"train", "--set", set, "--out", model, "--epochs", "1", "--scale", "0.25", "--threads", "1"}
		if o, err := densify(t, append(base, args...)...); err != nil {
			t.Fatalf("train %v: %v\n%s", args, err, o)
		}
		var s struct {
			Options map[string]any `json:"options"`
		}
		b, err := os.ReadFile(filepath.Join(model, "train.json"))
		if err != nil || json.Unmarshal(b, &s) != nil {
			t.Fatalf("train.json: %v", err)
		}
		return s.Options
	}
	o := recorded(filepath.Join(out, "m1"), "--factor", "10", "--phi", "0.01")
	if o["hard_factor"] != 10.0 || o["hard_phi"] != 0.01 {
		t.Errorf("--factor 10 --phi 0.01: recorded factor %v, φ %v", o["hard_factor"], o["hard_phi"])
	}
	o = recorded(filepath.Join(out, "m2"))
	if _, ok := o["hard_factor"]; ok {
		t.Errorf("no --factor: recorded %v", o["hard_factor"])
	}
	if _, ok := o["hard_phi"]; ok {
		t.Errorf("no --phi: recorded %v", o["hard_phi"])
	}
}
