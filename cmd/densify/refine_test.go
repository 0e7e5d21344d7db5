package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
)

// densify refine on two frames of a red disk (radius 12) whose maps paint
// a 6-px halo of the grey background (0.8 against 0.99 on the disk): the
// cut keeps the disk and takes the halo back, and the line on stdout says
// so in pixels.
func TestRefineCommand(t *testing.T) {
	dir := t.TempDir()
	seq, prob := filepath.Join(dir, "seq"), filepath.Join(dir, "prob") // made by WritePNG
	const W, H = 80, 60
	img, pm := image.NewRGBA(image.Rect(0, 0, W, H)), image.NewGray(image.Rect(0, 0, W, H))
	disk, halo := 0, 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r := math.Hypot(float64(x-40), float64(y-30))
			c, p := color.RGBA{120 + uint8((x*7+y*13)%9), 120, 120, 255}, uint8(5)
			switch {
			case r <= 12:
				c, p = color.RGBA{200, 40, 40, 255}, 252
				disk++
			case r <= 18:
				p = 204
				halo++
			}
			img.SetRGBA(x, y, c)
			pm.SetGray(x, y, color.Gray{Y: p})
		}
	}
	for i := range 2 {
		testutil.WritePNG(t, filepath.Join(seq, fmt.Sprintf("%05d.png", i)), img)
		testutil.WritePNG(t, filepath.Join(prob, fmt.Sprintf("%05d.png", i)), pm)
	}
	out := filepath.Join(dir, "masks")
	stdout, _, err := execute(t, &Factory{}, "refine", "--frames", seq, "--prob", prob, "--out", out, "--band", "0.1")
	if err != nil {
		t.Fatal(err)
	}
	var n, cut, before, after int
	if _, err := fmt.Sscanf(stdout, "%d masks → "+out+" (%d frames cut; foreground %d → %d px)", &n, &cut, &before, &after); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	if n != 2 || cut != 2 || before != 2*(disk+halo) || after < 2*disk*9/10 || after > 2*disk*11/10 {
		t.Fatalf("%d masks, %d cut, %d → %d px; want 2, 2, %d → about %d", n, cut, before, after, 2*(disk+halo), 2*disk)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 2 || !strings.HasSuffix(ents[1].Name(), "00001.png") {
		t.Fatalf("out holds %v", ents)
	}
}
