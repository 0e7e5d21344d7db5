package refine

import (
	"strings"
	"testing"
)

// The two refinements dispatch to GraphCut (on the probabilities) and Mask
// (on the mask), and validate their settings and the Cutter.
func TestRefiners(t *testing.T) {
	img, prob, _ := haloFrame()
	mask := make([]uint8, len(prob))
	for i, p := range prob {
		if p > 0.5 {
			mask[i] = 1
		}
	}
	want, _, err := GraphCut(img, prob, DefaultCutOptions())
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := ProbCut{DefaultCutOptions()}.Refine(img, mask, prob)
	if err != nil || !st.Refined || string(got) != string(want) {
		t.Errorf("ProbCut: refined %v, err %v, same as GraphCut %v", st.Refined, err, string(got) == string(want))
	}
	o := Options{Core: 0.5, Band: 0.08, Grow: 0.016, Scale: 1, Iterations: 1}
	want, _, err = Mask(img, mask, o, &fakeCut{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err = TrimapCut{&fakeCut{}, o}.Refine(img, mask, prob)
	if err != nil || string(got) != string(want) {
		t.Errorf("TrimapCut: err %v, same as Mask %v", err, string(got) == string(want))
	}
	if err := (TrimapCut{nil, DefaultOptions()}).Validate(); err == nil || !strings.Contains(err.Error(), "no graph cut") {
		t.Errorf("TrimapCut without a Cutter: %v", err)
	}
	if err := (TrimapCut{&fakeCut{}, Options{}}).Validate(); err == nil || !strings.Contains(err.Error(), "band") {
		t.Errorf("TrimapCut with zero options: %v", err)
	}
	if err := (ProbCut{CutOptions{}}).Validate(); err == nil || !strings.Contains(err.Error(), "components") {
		t.Errorf("ProbCut with zero options: %v", err)
	}
}
