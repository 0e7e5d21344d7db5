package trainset

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/internal/atomicfile"
)

// One row of six pixels, the mask's foreground on the first three. By
// hand: τ = 0.9 keeps foreground where p ≥ 0.9 and background where
// p ≤ 0.1; a band of 1.5 px also drops the pixels next to the boundary
// (distance 1), keeping those at distance ≥ 2.
func TestPseudoLabelsByHand(t *testing.T) {
	mask := []bool{true, true, true, false, false, false}
	prob := []float32{0.95, 0.9, 0.85, 0.05, 0.5, 0.1}
	for _, c := range []struct {
		band float64
		want []int16
	}{
		{0, []int16{1, 1, -1, 0, -1, 0}},
		{1.5, []int16{1, 1, -1, -1, -1, 0}},
		{2.5, []int16{1, -1, -1, -1, -1, 0}},
	} {
		got := PseudoLabels(mask, prob, 6, 1, PseudoOptions{Confidence: 0.9, Band: c.band})
		if !slices.Equal(got, c.want) {
			t.Errorf("band %g: %v, want %v", c.band, got, c.want)
		}
	}
	// τ = 0: the mask alone, whatever the probabilities (none given), the
	// band as before.
	for _, c := range []struct {
		band float64
		want []int16
	}{
		{0, []int16{1, 1, 1, 0, 0, 0}},
		{1.5, []int16{1, 1, -1, -1, 0, 0}},
	} {
		if got := PseudoLabels(mask, nil, 6, 1, PseudoOptions{Band: c.band}); !slices.Equal(got, c.want) {
			t.Errorf("τ 0, band %g: %v, want %v", c.band, got, c.want)
		}
	}
	// KeepCut: the cut's overrulings are labels too. Eight pixels, the
	// mask's foreground on the first four: 0.3 (the cut added it) and 0.7
	// (the cut took it) are kept, 0.6 and 0.4 (the cut agreed, unsure) stay
	// open, 0.5 is neither above nor below ½.
	mask8 := []bool{true, true, true, true, false, false, false, false}
	prob8 := []float32{0.95, 0.6, 0.3, 0.5, 0.05, 0.4, 0.7, 0.5}
	want8 := []int16{1, -1, 1, -1, 0, -1, 0, -1}
	if got := PseudoLabels(mask8, prob8, 8, 1, PseudoOptions{Confidence: 0.9, KeepCut: true}); !slices.Equal(got, want8) {
		t.Errorf("keep cut: %v, want %v", got, want8)
	}
	if got := PseudoLabels(mask8, prob8, 8, 1, PseudoOptions{Confidence: 0.9}); !slices.Equal(got, []int16{1, -1, -1, -1, 0, -1, -1, -1}) {
		t.Errorf("without keep cut: %v", got)
	}
	for _, o := range []PseudoOptions{{Confidence: 0.5}, {Confidence: 0.3}, {Confidence: 1}, {Confidence: -1}, {Confidence: 0.9, Band: -1}} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	for _, o := range []PseudoOptions{DefaultPseudoOptions(), {Confidence: 0, Band: 5}} {
		if err := o.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// The files predict writes (a mask PNG in the DAVIS palette, its prob/ map)
// read back as the labels of the arrays they hold; a missing probability
// map or a mask of another size is an error naming the file.
func TestReadPseudoLabelsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const W, H = 4, 3
	pal := color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{128, 0, 0, 255}}
	m := image.NewPaletted(image.Rect(0, 0, W, H), pal)
	p := image.NewGray(image.Rect(0, 0, W, H))
	mask := make([]bool, W*H)
	prob := make([]float32, W*H)
	for i := range mask {
		mask[i] = i%W < 2
		if mask[i] {
			m.Pix[i] = 1
		}
		p.Pix[i] = uint8(i * 20)
		prob[i] = float32(i*20) / 255
	}
	if err := os.MkdirAll(filepath.Join(dir, "prob"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WritePNG(filepath.Join(dir, "00002.png"), m); err != nil {
		t.Fatal(err)
	}
	o := PseudoOptions{Confidence: 0.6}
	if _, err := ReadPseudoLabels(dir, 2, W, H, o); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "prob", "00002.png")) {
		t.Errorf("missing probability map: %v", err)
	}
	// τ = 0 reads the mask alone
	if got, err := ReadPseudoLabels(dir, 2, W, H, PseudoOptions{}); err != nil || !slices.Equal(got, []int16{1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}) {
		t.Errorf("τ 0 without a probability map: %v, %v", got, err)
	}
	if err := atomicfile.WritePNG(filepath.Join(dir, "prob", "00002.png"), p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPseudoLabels(dir, 2, W, H, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := PseudoLabels(mask, prob, W, H, o); !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	// by hand: p = 20i/255; foreground (x < 2) needs p ≥ 0.6 (i ≥ 8), background p ≤ 0.4 (i ≤ 5)
	if want := []int16{-1, -1, 0, 0, -1, -1, -1, -1, 1, 1, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("read %v, want %v by hand", got, want)
	}
	if _, err := ReadPseudoLabels(dir, 2, W+1, H, o); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "00002.png")) || !strings.Contains(err.Error(), "4x3") {
		t.Errorf("mask of another size: %v", err)
	}
}
