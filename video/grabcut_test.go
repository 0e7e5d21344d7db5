package video

import (
	"image"
	"image/color"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/morph"
	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/refine"
)

// haloScene is a reddish disc of radius 25 at (80, 60) on a noisy blue-green
// background (160×120, diagonal 200), with the disc's mask and a mask grown by
// a halo of 8 px, as the U-Net paints it around an object.
func haloScene() (img *image.RGBA, disc, halo []uint8) {
	const W, H = 160, 120
	r := rand.New(rand.NewSource(5))
	img = image.NewRGBA(image.Rect(0, 0, W, H))
	disc, halo = make([]uint8, W*H), make([]uint8, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			d2 := (x-80)*(x-80) + (y-60)*(y-60)
			n := uint8(r.Intn(30))
			c := color.RGBA{20 + n, 90 + n, 150 + n, 255}
			if d2 <= 25*25 {
				c = color.RGBA{200 + n/2, 60 + n, 40 + n, 255}
				disc[y*W+x] = 1
			}
			if d2 <= 33*33 {
				halo[y*W+x] = 1
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img, disc, halo
}

func iou(a, b []uint8) float64 {
	var i, u int
	for k := range a {
		if a[k] != 0 && b[k] != 0 {
			i++
		}
		if a[k] != 0 || b[k] != 0 {
			u++
		}
	}
	return float64(i) / float64(u)
}

// GrabCut through refine.Mask takes back a halo of background colour around
// an object (IoU with the object 0.57 before), with the default settings
// (half resolution), and gives the same mask on a second run.
func TestGrabCutRemovesHalo(t *testing.T) {
	img, disc, halo := haloScene()
	before := iou(halo, disc)
	out, st, err := refine.Mask(img, halo, refine.DefaultOptions(), GrabCut{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	after := iou(out, disc)
	if !st.Refined || before > 0.6 || after < 0.85 {
		t.Fatalf("refined %v: IoU with the object %.3f before, %.3f after; want ≤ 0.6 → ≥ 0.85", st.Refined, before, after)
	}
	again, _, err := refine.Mask(img, halo, refine.DefaultOptions(), GrabCut{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i] != again[i] {
			t.Fatalf("second run differs at pixel %d", i)
		}
	}
	t.Logf("IoU %.3f → %.3f, %d → %d pixels", before, after, st.Before, st.After)
}

// Too few pixels of a side for the colour models: the cut declines (no
// OpenCV assertion, which would abort the process) and the mask is kept.
func TestGrabCutDeclinesTinySides(t *testing.T) {
	img, _, _ := haloScene()
	m := make([]uint8, 160*120)
	m[60*160+80], m[60*160+81] = 1, 1
	out, st, err := refine.Mask(img, m, refine.DefaultOptions(), GrabCut{})
	if err != nil || st.Refined || st.After != 2 || out[60*160+81] != 1 {
		t.Fatalf("refined %v, %d pixels, err %v; want the 2-pixel mask kept", st.Refined, st.After, err)
	}
	if _, _, err := (GrabCut{}).Cut(img, image.Rect(0, 0, 2, 2), []uint8{0, 1, 2, 7}, 1, 1); err == nil {
		t.Error("trimap value 7 accepted")
	}
}

// davisHalo is frame 0 of a DAVIS dev sequence and its annotation, as a mask
// and grown by a halo of r px (what the U-Net paints around an object).
func davisHalo(tb testing.TB, seq string, r float64) (img image.Image, object, halo []uint8) {
	img, err := dataset.ReadImage(davisFrames(tb, seq, 1)[0])
	if err != nil {
		tb.Fatal(err)
	}
	gt, err := dataset.ReadImage(filepath.Join(testutil.DAVISDev(tb), "Annotations", "480p", seq, "00000.png"))
	if err != nil {
		tb.Fatal(err)
	}
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	in := make([]bool, W*H)
	object, halo = make([]uint8, W*H), make([]uint8, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			if r, _, _, _ := gt.At(x, y).RGBA(); r > 0x7fff {
				in[y*W+x], object[y*W+x] = true, 1
			}
		}
	}
	for i, d2 := range morph.SquaredDistance(in, W, H, true) {
		if d2 <= r*r {
			halo[i] = 1
		}
	}
	return img, object, halo
}

// On a real frame (DAVIS car-shadow, the car with a 30 px halo, IoU 0.55),
// the default refinement takes most of the halo back.
func TestGrabCutRemovesHaloOnDAVIS(t *testing.T) {
	img, car, halo := davisHalo(t, "car-shadow", 30)
	out, st, err := refine.Mask(img, halo, refine.DefaultOptions(), GrabCut{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	before, after := iou(halo, car), iou(out, car)
	t.Logf("IoU with the car %.3f → %.3f (%d → %d pixels)", before, after, st.Before, st.After)
	if !st.Refined || after < before+0.2 {
		t.Fatalf("IoU %.3f → %.3f, want a gain of at least 0.2", before, after)
	}
}
