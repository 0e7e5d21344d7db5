package dataset

import (
	"image"
	"image/color"
)

// MaskImage is the image of a predicted mask in the DAVIS layout, to be
// written as PNG (eval.ReadMask reads it back): binary (classes = 1) → grey
// 0/255; multi-label → paletted (Palette), value = class.
func MaskImage(labels []uint8, W, H, classes int) image.Image {
	if classes == 1 {
		g := image.NewGray(image.Rect(0, 0, W, H))
		for i, l := range labels {
			g.Pix[i] = 255 * l
		}
		return g
	}
	p := image.NewPaletted(image.Rect(0, 0, W, H), Palette(max(classes, 2)))
	copy(p.Pix, labels)
	return p
}

// Palette is the DAVIS/PASCAL VOC colour map for n labels: label i gets the
// bits of i spread over the high bits of R, G and B (0 black, 1 (128,0,0),
// 2 (0,128,0), 3 (128,128,0), 4 (0,0,128), …).
func Palette(n int) color.Palette {
	p := make(color.Palette, n)
	for i := range p {
		var r, g, b uint8
		c := i
		for j := 7; j >= 0 && c > 0; j-- {
			r |= uint8(c&1) << j
			g |= uint8((c>>1)&1) << j
			b |= uint8((c>>2)&1) << j
			c >>= 3
		}
		p[i] = color.RGBA{r, g, b, 255}
	}
	return p
}

// ProbabilityValues reads a probability map as densify predict --prob
// writes it (grey, probability × 255): each pixel's grey value
// (color.GrayModel) divided by 255, row-major over img's bounds.
func ProbabilityValues(img image.Image) []float32 {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	p := make([]float32, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			p[y*W+x] = float32(color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y) / 255
		}
	}
	return p
}
