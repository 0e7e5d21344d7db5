package train

import (
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/trajectory"
)

// binaryModel trains a binary model for one epoch on three synthetic 48×32
// frames and returns the folder, the frames and the checkpoint.
func binaryModel(t *testing.T) (dir string, frames []string, ckpt string) {
	dir = t.TempDir()
	set, frames := synthSet(t, dir, 48, 32, 3, testOptions())
	out := filepath.Join(dir, "model")
	mustRun(t, tinyConfig(1), []string{set}, out)
	return dir, frames, filepath.Join(out, "model.ckpt")
}

func TestPredictWritesMasksOfFrameSize(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)

	odd := filepath.Join(dir, "odd.png")
	testutil.WritePNG(t, odd, synthFrameOfSize(t, 50, 35))
	inputs := []string{frames[0], odd}
	for _, scale := range []float64{0, 0.5} {
		masks := filepath.Join(dir, "masks", fmt.Sprint(scale))
		if err := Predict(ckpt, inputs, masks, PredictOptions{Prob: true, Overlay: true, Scale: scale, Threads: 2}); err != nil {
			t.Fatal(err)
		}
		for i, size := range [][2]int{{48, 32}, {50, 35}} {
			name := []string{"00000.png", "00001.png"}[i]
			for _, sub := range []string{"", "prob", "overlay"} {
				img, err := dataset.ReadImage(filepath.Join(masks, sub, name))
				if err != nil {
					t.Fatal(err)
				}
				if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
					t.Errorf("scale %g: %s/%s is %dx%d, want %dx%d", scale, sub, name, b.Dx(), b.Dy(), size[0], size[1])
				}
				if sub == "" {
					g, ok := img.(*image.Gray)
					if !ok {
						t.Fatalf("binary mask is %T, want grey", img)
					}
					for _, v := range g.Pix {
						if v != 0 && v != 255 {
							t.Fatalf("mask value %d, want 0 or 255", v)
						}
					}
				}
			}
		}
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(masks), ".*tmp*")); len(m) > 0 {
			t.Errorf("temporary folders left: %v", m)
		}
	}

	if err := Predict(ckpt, inputs, filepath.Join(dir, "x"), PredictOptions{Preset: "unet-paper"}); err == nil || !strings.Contains(err.Error(), "unet-paper") {
		t.Errorf("preset mismatch: %v", err)
	}
	// A frame that cannot be read: no partial output.
	bad := filepath.Join(dir, "bad.png")
	os.WriteFile(bad, []byte("not an image"), 0o644)
	if err := Predict(ckpt, []string{frames[0], bad}, filepath.Join(dir, "y"), PredictOptions{}); err == nil {
		t.Error("unreadable frame accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "y", "00000.png")); err == nil {
		t.Error("partial output after a failed prediction")
	}
}

// stripes is a refine.Cutter whose cut is every other column of the box.
type stripes struct{ calls int }

func (c *stripes) Cut(img image.Image, roi image.Rectangle, tri []uint8, scale float64, it int) ([]bool, bool, error) {
	c.calls++
	fg := make([]bool, len(tri))
	for i := range fg {
		fg[i] = (i%roi.Dx())%2 == 0
	}
	return fg, true, nil
}

// With a Cutter, Predict writes refine.Mask of the network's mask (the same
// as computed here from the unrefined run) and leaves the probability maps
// as they were.
func TestPredictRefines(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	plain, refined := filepath.Join(dir, "plain"), filepath.Join(dir, "refined")
	if err := Predict(ckpt, frames, plain, PredictOptions{Prob: true, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	o := refine.DefaultOptions()
	o.Grow = o.Band // let the stripes reach the whole band
	cut := &stripes{}
	if err := Predict(ckpt, frames, refined, PredictOptions{Prob: true, Threads: 2, Refine: refine.TrimapCut{Cutter: cut, Options: o}}); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		name := fmt.Sprintf("%05d.png", i)
		img, err := dataset.ReadImage(f)
		if err != nil {
			t.Fatal(err)
		}
		net := readGray(t, filepath.Join(plain, name))
		want, _, err := refine.Mask(img, net, o, &stripes{})
		if err != nil {
			t.Fatal(err)
		}
		got := readGray(t, filepath.Join(refined, name))
		for j := range want {
			if got[j] != 255*want[j] {
				t.Fatalf("frame %d pixel %d: %d, want %d", i, j, got[j], 255*want[j])
			}
		}
		if p, q := readGray(t, filepath.Join(plain, "prob", name)), readGray(t, filepath.Join(refined, "prob", name)); string(p) != string(q) {
			t.Errorf("frame %d: refinement changed the probability map", i)
		}
	}
	t.Logf("%d cuts over %d frames", cut.calls, len(frames))
	if err := Predict(ckpt, frames, filepath.Join(dir, "x"), PredictOptions{Refine: refine.TrimapCut{Cutter: cut, Options: refine.Options{}}}); err == nil || !strings.Contains(err.Error(), "refine:") {
		t.Errorf("invalid refine options: %v", err)
	}
}

// recorder is a Refiner that keeps what it is given and returns the
// mask's complement.
type recorder struct {
	masks [][]uint8
	probs [][]float32
}

func (r *recorder) Validate() error { return nil }

func (r *recorder) Refine(img image.Image, mask []uint8, prob []float32) ([]uint8, refine.Stats, error) {
	r.masks = append(r.masks, append([]uint8(nil), mask...))
	r.probs = append(r.probs, append([]float32(nil), prob...))
	out := make([]uint8, len(mask))
	for i, v := range mask {
		out[i] = 1 - v
	}
	return out, refine.Stats{Refined: true}, nil
}

// A Refiner gets, per frame, the network's mask and its probabilities (the
// ones written to prob/, there rounded to 1/255; the mask is their
// threshold at ½), and what it returns is the mask written.
func TestPredictHandsProbabilitiesToRefiner(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	r := &recorder{}
	out := filepath.Join(dir, "rec")
	if err := Predict(ckpt, frames, out, PredictOptions{Prob: true, Threads: 2, Refine: r}); err != nil {
		t.Fatal(err)
	}
	if len(r.probs) != len(frames) {
		t.Fatalf("%d frames refined, want %d", len(r.probs), len(frames))
	}
	for i := range frames {
		name := fmt.Sprintf("%05d.png", i)
		pm, err := dataset.ReadImage(filepath.Join(out, "prob", name))
		if err != nil {
			t.Fatal(err)
		}
		mm, err := dataset.ReadImage(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		pp, mp := pm.(*image.Gray).Pix, mm.(*image.Gray).Pix
		for j, p := range r.probs[i] {
			if math.Abs(float64(p)*255-float64(pp[j])) > 0.5+1e-3 {
				t.Fatalf("frame %d pixel %d: refiner got p = %v, prob map %d/255", i, j, p, pp[j])
			}
			if (p > 0.5) != (r.masks[i][j] == 1) || mp[j] != 255*(1-r.masks[i][j]) {
				t.Fatalf("frame %d pixel %d: p %v, mask %d, written %d", i, j, p, r.masks[i][j], mp[j])
			}
		}
	}
}

// readGray returns the pixels of a grey PNG (a mask or probability map).
func readGray(t *testing.T, path string) []uint8 {
	t.Helper()
	m, err := dataset.ReadImage(path)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*image.Gray).Pix
}

// stillFlow is a refine.Flow for a static scene: zero flow everywhere.
type stillFlow struct{ calls atomic.Int64 } // the fusion computes flows concurrently

func (f *stillFlow) Flow(a, b image.Image) (*trajectory.FlowField, error) {
	f.calls.Add(1)
	return trajectory.NewFlowField(a.Bounds().Dx(), a.Bounds().Dy()), nil
}

// With temporal fusion (radius 1, a static scene) every probability map
// written is the weighted mean of the network's maps of the frame and its
// neighbours (weights 1 and ½; refine.Temporal), and the mask thresholds it.
func TestPredictFusesTemporally(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	plain, fused := filepath.Join(dir, "plain"), filepath.Join(dir, "fused")
	if err := Predict(ckpt, frames, plain, PredictOptions{Prob: true, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	flow := &stillFlow{}
	var po PredictOptions
	if err := po.SetTemporal(1, flow, false); err != nil {
		t.Fatal(err)
	}
	po.Prob, po.Threads = true, 2
	if err := Predict(ckpt, frames, fused, po); err != nil {
		t.Fatal(err)
	}
	n := len(frames)
	if n < 3 {
		t.Fatalf("need 3 frames, have %d", n)
	}
	if want := 2 * (n - 1); int(flow.calls.Load()) != want {
		t.Errorf("%d flows for %d frames, want %d (each once)", flow.calls.Load(), n, want)
	}
	probs := make([][]uint8, n)
	for i := range frames {
		probs[i] = readGray(t, filepath.Join(plain, "prob", fmt.Sprintf("%05d.png", i)))
	}
	changed := 0
	for i := range frames {
		name := fmt.Sprintf("%05d.png", i)
		got, mask := readGray(t, filepath.Join(fused, "prob", name)), readGray(t, filepath.Join(fused, name))
		for j := range got {
			num, den := float64(probs[i][j]), 1.0
			for _, s := range []int{i - 1, i + 1} {
				if s >= 0 && s < n {
					num += 0.5 * float64(probs[s][j])
					den += 0.5
				}
			}
			want := num / den // ×255, from maps rounded to 1/255
			if math.Abs(float64(got[j])-want) > 1 {
				t.Fatalf("frame %d pixel %d: fused %d, want %.2f", i, j, got[j], want)
			}
			if got[j] != probs[i][j] {
				changed++
			}
			if math.Abs(want-127.5) > 1.5 && (mask[j] == 255) != (want > 127.5) {
				t.Fatalf("frame %d pixel %d: mask %d for fused probability %.1f/255", i, j, mask[j], want)
			}
		}
	}
	if changed == 0 {
		t.Error("fusion changed no probability (the frames' maps are all equal?)")
	}
	if err := po.SetTemporal(2, nil, false); err == nil || !strings.Contains(err.Error(), "optical flow") {
		t.Errorf("fusion without a flow: %v", err)
	}
	if err := po.SetTemporal(-1, flow, false); err == nil {
		t.Error("negative radius accepted")
	}
}

func TestPredictMultiLabelPaletted(t *testing.T) {
	dir := t.TempDir()
	opt := testOptions()
	opt.Multi = true
	set, frames := synthSet(t, dir, 48, 32, 3, opt)
	out := filepath.Join(dir, "model")
	s := mustRun(t, tinyConfig(1), []string{set}, out)
	if s.Options.Model.Classes < 2 || s.Options.Mode != "multi" {
		t.Fatalf("multi-label set trained as %+v", s.Options)
	}
	masks := filepath.Join(dir, "masks")
	// Refinement is for binary masks: a multi-label model's are kept, with a note.
	var note strings.Builder
	cut := &stripes{}
	if err := Predict(filepath.Join(out, "model.ckpt"), frames[:1], masks, PredictOptions{Refine: refine.TrimapCut{Cutter: cut, Options: refine.DefaultOptions()}, Progress: &note}); err != nil {
		t.Fatal(err)
	}
	if cut.calls != 0 || !strings.Contains(note.String(), "refinement works on binary masks") {
		t.Errorf("multi-label model: %d cuts, note %q", cut.calls, note.String())
	}
	img, err := dataset.ReadImage(filepath.Join(masks, "00000.png"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := img.(*image.Paletted)
	if !ok {
		t.Fatalf("multi-label mask is %T, want paletted", img)
	}
	for _, v := range p.Pix {
		if int(v) >= s.Options.Model.Classes {
			t.Fatalf("class %d ≥ %d", v, s.Options.Model.Classes)
		}
	}
}

// Prior-shift correction: binary odds divided by s_1; multi-label
// posteriors divided by s_c and renormalised.
func TestDecidePriorShift(t *testing.T) {
	// p = 0.75 → odds 3; s_1 = 4 → odds 3/4 → p = 3/7 (background);
	// p = 0.9 → odds 9 → 9/4 → p = 9/13.
	labels, prob := decide([]float32{0.75, 0.9}, 2, 1, []float64{1, 4})
	if labels[0] != 0 || labels[1] != 1 || math.Abs(float64(prob[0])-3.0/7) > 1e-6 || math.Abs(float64(prob[1])-9.0/13) > 1e-6 {
		t.Errorf("binary: labels %v prob %v", labels, prob)
	}
	if labels, _ := decide([]float32{0.8}, 1, 1, nil); labels[0] != 1 {
		t.Error("no correction: 0.8 is foreground")
	}
	// three classes, one pixel: (0.2, 0.5, 0.3) with s = (1, 5, 1) →
	// (0.2, 0.1, 0.3)/0.6: class 2 wins; foreground probability 1 − 0.2/0.6.
	labels, prob = decide([]float32{0.2, 0.5, 0.3}, 1, 3, []float64{1, 5, 1})
	if labels[0] != 2 || math.Abs(float64(prob[0])-(1-0.2/0.6)) > 1e-6 {
		t.Errorf("multi: label %d prob %v", labels[0], prob[0])
	}
}

func TestMirrorAveragingHandComputed(t *testing.T) {
	// Two planes of width 3, two rows each.
	in := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	want := []float32{3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10}
	got := mirrorPlanes(in, 3)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("mirrorPlanes = %v, want %v", got, want)
		}
	}
	// A batch of two rows of width 2: the frame's (0.2, 0.6) and its
	// mirror's (0.4, 1.0), which flipped back is (1.0, 0.4).
	avg := averageMirrored([]float32{0.2, 0.6, 0.4, 1.0}, 2)
	if math.Abs(float64(avg[0])-0.6) > 1e-6 || math.Abs(float64(avg[1])-0.5) > 1e-6 {
		t.Fatalf("averageMirrored = %v, want [0.6 0.5]", avg)
	}
}

// With Mirror the prediction of a mirrored frame is the mirror of the frame's
// prediction, which a single pass of the network does not guarantee.
func TestPredictMirrorIsEquivariant(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	img, err := dataset.ReadImage(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	mir := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			mir.Set(b.Max.X-1-(x-b.Min.X), y, img.At(x, y))
		}
	}
	mirPath := filepath.Join(dir, "mirror.png")
	testutil.WritePNG(t, mirPath, mir)
	W := b.Dx()
	gap := func(flip bool) (worst int) {
		out := filepath.Join(dir, fmt.Sprint("flip-", flip))
		if err := Predict(ckpt, []string{frames[0], mirPath}, out, PredictOptions{Prob: true, Mirror: flip, Threads: 2}); err != nil {
			t.Fatal(err)
		}
		p, q := readGray(t, filepath.Join(out, "prob", "00000.png")), readGray(t, filepath.Join(out, "prob", "00001.png"))
		for i := range p {
			y, x := i/W, i%W
			worst = max(worst, absInt(int(p[i])-int(q[y*W+W-1-x])))
		}
		return worst
	}
	if g := gap(false); g < 2 {
		t.Fatalf("the network alone is mirror-symmetric to %d/255 on this frame: the test cannot tell", g)
	}
	if g := gap(true); g > 1 {
		t.Errorf("with Mirror, prob(mirror) and mirror(prob) differ by %d/255", g)
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Predict replaces its output folder as a whole: the masks of an earlier,
// longer sequence go, a folder holding anything else is refused before any
// work, and the temporaries a killed run left beside it are removed.
func TestPredictReplacesItsFolder(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	masks := filepath.Join(dir, "masks")
	os.MkdirAll(filepath.Join(masks, "prob"), 0o755)
	for i := range 8 {
		testutil.WritePNG(t, filepath.Join(masks, fmt.Sprintf("%05d.png", i)), image.NewGray(image.Rect(0, 0, 4, 4)))
		testutil.WritePNG(t, filepath.Join(masks, "prob", fmt.Sprintf("%05d.png", i)), image.NewGray(image.Rect(0, 0, 4, 4)))
	}
	stale := filepath.Join(dir, ".masks.tmp4242")
	os.MkdirAll(filepath.Join(stale, "prob"), 0o755)
	if err := Predict(ckpt, frames[:2], masks, PredictOptions{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(masks, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(masks, p)
			got = append(got, rel)
		}
		return nil
	})
	if want := []string{"00000.png", "00001.png"}; !slices.Equal(got, want) {
		t.Errorf("masks: %v, want %v", got, want)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary kept: %v", err)
	}
	os.WriteFile(filepath.Join(masks, "notes.txt"), []byte("mine"), 0o644)
	if err := Predict(ckpt, frames[:1], masks, PredictOptions{Threads: 2}); err == nil || !strings.Contains(err.Error(), "notes.txt, which densify did not write there") {
		t.Errorf("foreign file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(masks, "00001.png")); err != nil {
		t.Errorf("a refused run changed the folder: %v", err)
	}
}

// failing is a Refiner that fails on its n-th frame (0-based).
type failing struct{ n, calls int }

func (f *failing) Validate() error { return nil }

func (f *failing) Refine(img image.Image, mask []uint8, prob []float32) ([]uint8, refine.Stats, error) {
	f.calls++
	if f.calls-1 == f.n {
		return nil, refine.Stats{}, fmt.Errorf("no cut")
	}
	return mask, refine.Stats{}, nil
}

// The refinement runs beside the network; when it fails on a frame,
// Predict returns that frame's error, stops refining, and leaves no output
// folder and no temporary one.
func TestPredictStopsAtARefinementError(t *testing.T) {
	dir, frames, ckpt := binaryModel(t)
	out := filepath.Join(dir, "masks")
	r := &failing{n: 1}
	err := Predict(ckpt, frames, out, PredictOptions{Threads: 2, Refine: r})
	if err == nil || !strings.Contains(err.Error(), frames[1]) || !strings.Contains(err.Error(), "no cut") {
		t.Fatalf("got %v, want frame %s's refinement error", err, frames[1])
	}
	if r.calls != 2 {
		t.Errorf("%d frames refined, want 2 (none after the failure)", r.calls)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "masks*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
