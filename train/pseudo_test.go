package train

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/unet"
)

// pseudoW is the width of halfMaskSet's frames.
const pseudoW = 48

// halfMaskSet prepares a synthetic set of three 48×32 frames in a new
// folder dir and writes masks for it (writeHalfMasks) into dir/masks.
func halfMaskSet(t *testing.T) (dir, set, masks string) {
	t.Helper()
	dir = t.TempDir()
	const H, n = 32, 3
	set, _ = synthSet(t, dir, pseudoW, H, n, testOptions())
	masks = filepath.Join(dir, "masks")
	writeHalfMasks(t, masks, n, pseudoW, H)
	return dir, set, masks
}

// writeHalfMasks writes, for frames 0…n−1 of a W×H set, the files a
// prediction leaves: the left half foreground (255) with probability 1,
// the right half background with probability 0.
func writeHalfMasks(t *testing.T, dir string, n, W, H int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "prob"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := image.NewGray(image.Rect(0, 0, W, H))
	for i := range m.Pix {
		if i%W < W/2 {
			m.Pix[i] = 255
		}
	}
	for f := 0; f < n; f++ {
		name := filepath.Join(dir, fmt.Sprintf("%05d.png", f))
		if err := atomicfile.WritePNG(name, m); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.WritePNG(filepath.Join(dir, "prob", filepath.Base(name)), m); err != nil {
			t.Fatal(err)
		}
	}
}

// The self-training labels fill only the pixels the set leaves unlabelled,
// with the mask's class, and the pseudo-labels of each class weigh in all
// λ times the set's own labels of that class (Config.Pseudo).
func TestPseudoLabelsWeighByClass(t *testing.T) {
	_, set, masks := halfMaskSet(t)
	plain, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1})
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 2
	withP, err := loadSets([]string{set}, 1, weighting{Variant: VariantUniform, Phi: -1, Pseudo: []string{masks},
		PseudoOptions: trainset.PseudoOptions{Confidence: 0.9}, PseudoWeight: lambda})
	if err != nil {
		t.Fatal(err)
	}
	before := map[int]*sample{}
	var sparse [2]float64
	for _, s := range plain.Samples {
		before[s.frame] = s
		for j, l := range s.Labels {
			if l >= 0 {
				sparse[l] += float64(s.Weights[j])
			}
		}
	}
	var pseudo [2]float64
	weight := [2]float32{-1, -1}
	count := 0
	for _, s := range withP.Samples {
		b := before[s.frame]
		for j, l := range s.Labels {
			if b != nil && b.Labels[j] >= 0 {
				if l != b.Labels[j] || s.Weights[j] != b.Weights[j] {
					t.Fatalf("frame %d pixel %d: the set's label %d (weight %g) became %d (%g)", s.frame, j, b.Labels[j], b.Weights[j], l, s.Weights[j])
				}
				continue
			}
			if want := int16(0); j%pseudoW < pseudoW/2 {
				want = 1
				if l != want {
					t.Fatalf("frame %d pixel %d: label %d, want the mask's %d", s.frame, j, l, want)
				}
			} else if l != want {
				t.Fatalf("frame %d pixel %d: label %d, want the mask's %d", s.frame, j, l, want)
			}
			if weight[l] < 0 {
				weight[l] = s.Weights[j]
			} else if s.Weights[j] != weight[l] {
				t.Fatalf("class %d: pseudo-label weights %g and %g differ", l, weight[l], s.Weights[j])
			}
			pseudo[l] += float64(s.Weights[j])
			count++
		}
	}
	if count == 0 || count != withP.Pseudo {
		t.Fatalf("%d pseudo-labelled pixels, counted %d", count, withP.Pseudo)
	}
	for c := range pseudo {
		if math.Abs(pseudo[c]-lambda*sparse[c]) > 1e-3*sparse[c] {
			t.Errorf("class %d: pseudo-labels weigh %g in all, want λ·%g = %g", c, pseudo[c], sparse[c], lambda*sparse[c])
		}
	}
}

// Init starts from a checkpoint's weights: a round trained from the first
// model at a negligible learning rate keeps that model's weights (the
// batch-norm statistics move with the data, so they are not compared),
// while the same training from a random start does not. Self-training
// labels count in the summary, and one folder is needed per set.
func TestInitStartsFromCheckpoint(t *testing.T) {
	dir, set, masks := halfMaskSet(t)
	first := mustRun(t, tinyConfig(3), []string{set}, filepath.Join(dir, "first"))
	round := func(name string, init string) float64 {
		c := tinyConfig(1)
		c.LR, c.Seed, c.Init = 1e-9, 7, init
		c.Pseudo, c.PseudoOptions = []string{masks}, trainset.DefaultPseudoOptions()
		s := mustRun(t, c, []string{set}, filepath.Join(dir, name))
		if s.Pseudo == 0 || s.Options.PseudoOptions == nil || s.Options.PseudoWeight != DefaultPseudoWeight || (s.Options.Init != "") != (init != "") {
			t.Errorf("%s summary: %d pseudo-labelled pixels, options %+v", name, s.Pseudo, s.Options)
		}
		return weightDiff(t, first.Checkpoint, s.Checkpoint)
	}
	if d := round("warm", first.Checkpoint); d > 1e-5 {
		t.Errorf("from the first model's weights they moved by up to %g, want ≤ 1e-5", d)
	}
	if d := round("cold", ""); d < 1e-2 {
		t.Errorf("from a random start the weights differ by only %g: the test cannot tell", d)
	}
	c := tinyConfig(1)
	c.Pseudo, c.PseudoOptions = []string{masks, masks}, trainset.DefaultPseudoOptions()
	if _, err := Run(t.Context(), c, []string{set}, filepath.Join(dir, "two"), nil); err == nil || !strings.Contains(err.Error(), "one per set") {
		t.Errorf("two label folders for one set: %v", err)
	}
}

// weightDiff is the largest difference between the learnt tensors of two
// checkpoints (batch-norm running statistics left out).
func weightDiff(t *testing.T, a, b string) float64 {
	t.Helper()
	ha, ta, err := unet.ReadCheckpoint(a)
	if err != nil {
		t.Fatal(err)
	}
	_, tb, err := unet.ReadCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	d := 0.0
	for k, e := range ha.Tensors {
		if strings.Contains(e.Name, "running") || strings.Contains(e.Name, "num_batches") {
			continue
		}
		for i := range ta[k] {
			d = math.Max(d, math.Abs(float64(ta[k][i]-tb[k][i])))
		}
	}
	return d
}
