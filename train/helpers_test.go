package train

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/synth"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/unet"
)

// synthSet renders a synthetic sequence, derives its ground-truth tracks with
// a deterministic uncertainty (every 5th track 0.9, others 0.05, so every
// segment is uncertain and the 0.9 tracks are hard) and writes a prepared
// set. It returns the set folder and the frame paths.
func synthSet(t testing.TB, dir string, w, h, frames int, opt trainset.Options) (string, []string) {
	t.Helper()
	p := synth.DefaultParams()
	p.Width, p.Height, p.Frames, p.Objects = w, h, frames, 1
	seq, err := synth.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	fdir := filepath.Join(dir, "frames")
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for f, img := range seq.Frames {
		path := filepath.Join(fdir, fmt.Sprintf("%05d.png", f))
		testutil.WritePNG(t, path, img)
		paths = append(paths, path)
	}
	tracks := seq.GroundTruthTracks(3)
	u := make([]float64, len(tracks.Tracks))
	for i := range u {
		u[i] = 0.05
		if i%5 == 0 {
			u[i] = 0.9
		}
	}
	frame := func(f int) (image.Image, error) { return seq.Frames[f], nil }
	set, err := trainset.Prepare(trainset.Input{Tracks: tracks, Uncertainty: u, Width: w, Height: h, Frame: frame}, opt)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "set")
	if err := set.Write(out, func(f int) string { return paths[f] }, dataset.ReadImage, nil); err != nil {
		t.Fatal(err)
	}
	return out, paths
}

// testOptions: small clean-up thresholds suited to 48×32 frames.
func testOptions() trainset.Options {
	o := trainset.DefaultOptions()
	o.MinSegment = 2
	o.IsolatedRadius = 6
	o.BorderStep = 6
	o.BorderInsets = []int{2}
	o.BorderMargin = 3
	return o
}

// tinyConfig: a width-4, depth-2 U-Net at full scale, 2 threads, no flips unless asked.
func tinyConfig(epochs int) Config {
	c := DefaultConfig()
	c.Model = &unet.Config{Name: "tiny", BaseWidth: 4, Depth: 2, Edges: true, Classes: 1}
	c.Epochs = epochs
	c.Scale = 1
	c.Threads = 2
	c.LR = 1e-2
	return c
}

func mustRun(t testing.TB, cfg Config, sets []string, out string) *Summary {
	t.Helper()
	s, err := Run(context.Background(), cfg, sets, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func synthFrameOfSize(t testing.TB, w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	return img
}

// setVersion rewrites the format version of the prepared set's manifest
// from the current one to v, as a set of an earlier densify has it.
func setVersion(t testing.TB, set string, v int) {
	t.Helper()
	p := filepath.Join(set, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cur := fmt.Sprintf(`"version": %d`, trainset.FormatVersion)
	old := strings.Replace(string(b), cur, fmt.Sprintf(`"version": %d`, v), 1)
	if old == string(b) {
		t.Fatalf("manifest has no %s", cur)
	}
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
}
