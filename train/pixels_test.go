package train

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// rgbaAt must give exactly img.At(x, y).RGBA() for every image type it has a
// fast path for (and the fallback), including non-opaque NRGBA, whose RGBA()
// premultiplies, and YCbCr with 4:2:0 chroma and an offset rectangle.
func TestRGBAAtMatchesAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := image.Rect(3, 5, 40, 31)
	fill := func(pix []uint8) {
		for i := range pix {
			pix[i] = uint8(rng.IntN(256))
		}
	}
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	fill(ycc.Y)
	fill(ycc.Cb)
	fill(ycc.Cr)
	rgba := image.NewRGBA(r)
	fill(rgba.Pix)
	nrgba := image.NewNRGBA(r)
	fill(nrgba.Pix)
	gray := image.NewGray(r)
	fill(gray.Pix)
	pal := image.NewPaletted(r, color.Palette{color.RGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 50, 128}})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(rng.IntN(2))
	}
	for _, img := range []image.Image{ycc, rgba, nrgba, gray, pal} {
		at := rgbaAt(img)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				wr, wg, wb, _ := img.At(x, y).RGBA()
				if gr, gg, gb := at(x, y); gr != wr || gg != wg || gb != wb {
					t.Fatalf("%T at (%d,%d): %d %d %d, At().RGBA() gives %d %d %d", img, x, y, gr, gg, gb, wr, wg, wb)
				}
			}
		}
	}
}
