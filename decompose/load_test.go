package decompose

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/npy"
)

// TestLoadRoundTrip decomposes an image with RunImage and checks that Load
// of its output folder gives the labels, the multicut energy and every
// per-pixel measure of Decompose on the same image, bit for bit, and that
// bad stored arrays are refused with the file named.
func TestLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	img := twoRegions(24, 16)
	path := filepath.Join(dir, "a.png")
	if err := atomicfile.WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Graph.MinSize = 5
	out := filepath.Join(dir, "out")
	if _, err := RunImage(ImageOptions{Image: path, Out: out, Options: opt}); err != nil {
		t.Fatal(err)
	}
	want, err := Decompose(img, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(out, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.W != want.W || got.H != want.H || !slices.Equal(got.Labels, want.Labels) || got.Energy != want.Energy {
		t.Fatalf("loaded %d×%d, energy %v, labels equal %v; want %d×%d, energy %v", got.W, got.H, got.Energy,
			slices.Equal(got.Labels, want.Labels), want.W, want.H, want.Energy)
	}
	for name, p := range map[string][2][]float64{
		"γ": {got.Uncertainty.Gamma, want.Uncertainty.Gamma}, "u": {got.Uncertainty.U, want.Uncertainty.U},
		"likelihood": {got.Uncertainty.ULik, want.Uncertainty.ULik}, "Γ": {got.GammaLayered, want.GammaLayered},
		"γ₁": {got.GammaSingle, want.GammaSingle}} {
		if !slices.Equal(p[0], p[1]) {
			t.Errorf("loaded %s differs from Decompose's", name)
		}
	}
	if multi := len(slices.Compact(slices.Sorted(slices.Values(got.Labels)))); multi < 2 {
		t.Fatalf("%d segments: the test image should give two", multi)
	}
	// a label that is not an integer, then arrays of different shapes
	lp := filepath.Join(out, "labels.npy")
	l, err := npy.Read(lp)
	if err != nil {
		t.Fatal(err)
	}
	l.F32[7] = 0.5
	if err := npy.Write(lp, l); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out, opt); err == nil || !strings.Contains(err.Error(), lp+": pixel 7 has label 0.5") {
		t.Fatalf("non-integer label: err %v", err)
	}
	l.F32[7], l.Shape = 0, []int{l.Shape[1], l.Shape[0]}
	if err := npy.Write(lp, l); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out, opt); err == nil || !strings.Contains(err.Error(), "one H×W shape") {
		t.Fatalf("transposed labels: err %v", err)
	}
	os.Remove(filepath.Join(out, "boundary.npy"))
	if _, err := Load(out, opt); err == nil {
		t.Fatalf("missing boundary.npy: no error")
	}
}

// A dataset run reuses an image's summary.json only when it was evaluated
// with every ordering of Orderings and the current measures: one written
// before the oracle ordering existed, or with the segment floor of
// MeasuresVersion 1 (or without a version), is done again.
func TestLoadDoneNeedsEveryOrdering(t *testing.T) {
	dir := t.TempDir()
	o := ImageOptions{Image: filepath.Join(dir, "a.jpg"), GT: filepath.Join(dir, "a.mat"), Out: dir, Options: DefaultOptions()}
	s := ImageSummary{Image: o.Image, GT: o.GT, Options: o.Options, Evaluation: &Evaluation{VIAUC: map[string]float64{}}, Measures: MeasuresVersion}
	s.Options.Sparsify.defaults()
	for _, name := range Orderings {
		s.Evaluation.VIAUC[name] = 0.5
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), &s); err != nil {
		t.Fatal(err)
	}
	if got, ok := loadDone(o); got == nil || !ok {
		t.Fatalf("a complete summary was not reused")
	}
	for _, v := range []int{0, 1} {
		old := s
		old.Measures = v
		if err := writeJSON(filepath.Join(dir, "summary.json"), &old); err != nil {
			t.Fatal(err)
		}
		if got, ok := loadDone(o); got != nil || ok {
			t.Fatalf("a summary of measures version %d was reused", v)
		}
	}
	delete(s.Evaluation.VIAUC, Oracle)
	if err := writeJSON(filepath.Join(dir, "summary.json"), &s); err != nil {
		t.Fatal(err)
	}
	if got, ok := loadDone(o); got != nil || ok {
		t.Fatalf("a summary without the %s ordering was reused", Oracle)
	}
}
