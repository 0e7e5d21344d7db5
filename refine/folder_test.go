package refine

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// Two frames of haloFrame with their maps saved as densify predict --prob
// writes them (grey, probability × 255): CutFolder writes, per frame, the
// mask GraphCut gives on those maps (0/255), which takes the halo back;
// it replaces an earlier output folder as a whole; a missing map or a map
// of another size fails, naming the file, and leaves the earlier output
// as it was.
func TestCutFolder(t *testing.T) {
	dir := t.TempDir()
	img, prob, disk := haloFrame()
	b := img.Bounds()
	frames := []string{filepath.Join(dir, "00000.png"), filepath.Join(dir, "00001.png")}
	probDir := filepath.Join(dir, "prob")
	if err := os.Mkdir(probDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pm := image.NewGray(b)
	q := make([]float32, len(prob)) // the map as read back: quantised to 1/255
	for i, p := range prob {
		pm.Pix[i] = uint8(p*255 + 0.5)
		q[i] = float32(pm.Pix[i]) / 255
	}
	for i, f := range frames {
		testutil.WritePNG(t, f, img)
		testutil.WritePNG(t, filepath.Join(probDir, fmt.Sprintf("%05d.png", i)), pm)
	}
	out := filepath.Join(dir, "masks")
	if err := os.MkdirAll(filepath.Join(out, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	var calls []int
	st, err := CutFolder(frames, probDir, out, DefaultCutOptions(), 2, func(done, total int) {
		if total != 2 {
			t.Errorf("progress total %d", total)
		}
		calls = append(calls, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := GraphCut(img, q, DefaultCutOptions())
	if err != nil {
		t.Fatal(err)
	}
	if st.Frames != 2 || st.Refined != 2 || st.Before != 2*countOnes(thresholdMap(q)) || st.After != 2*countOnes(want) || len(calls) != 2 || calls[1] != 2 {
		t.Fatalf("stats %+v, progress %v", st, calls)
	}
	for i := range frames {
		f, err := os.Open(filepath.Join(out, fmt.Sprintf("%05d.png", i)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		g, ok := m.(*image.Gray)
		if !ok || g.Bounds() != b {
			t.Fatalf("mask %d: %T %v", i, m, m.Bounds())
		}
		got := make([]uint8, len(g.Pix))
		for j, v := range g.Pix {
			if v != 0 && v != 255 {
				t.Fatalf("mask %d: grey value %d, want 0 or 255", i, v)
			}
			got[j] = v / 255
			if got[j] != want[j] {
				t.Fatalf("mask %d differs from GraphCut at pixel %d", i, j)
			}
		}
		if iou(got, disk) < 0.9 {
			t.Fatalf("mask %d: IoU with the disk %.3f", i, iou(got, disk))
		}
	}
	if _, err := os.Stat(filepath.Join(out, "stale")); !os.IsNotExist(err) {
		t.Errorf("the earlier output folder was not replaced: %v", err)
	}

	// A missing map, then a map of another size: errors naming the file,
	// the output of the run before untouched.
	before, _ := os.ReadFile(filepath.Join(out, "00001.png"))
	missing := filepath.Join(probDir, "00001.png")
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	if _, err := CutFolder(frames, probDir, out, DefaultCutOptions(), 2, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing map: %v", err)
	}
	testutil.WritePNG(t, missing, image.NewGray(image.Rect(0, 0, 60, 45)))
	if _, err := CutFolder(frames, probDir, out, DefaultCutOptions(), 2, nil); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "60x45") {
		t.Errorf("small map: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "00001.png")); string(after) != string(before) {
		t.Error("a failed run changed the output of the run before")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("the failed runs left files beside the output: %v", ents)
	}
}

func thresholdMap(p []float32) []uint8 {
	m := make([]uint8, len(p))
	for i, v := range p {
		if v > 0.5 {
			m[i] = 1
		}
	}
	return m
}
