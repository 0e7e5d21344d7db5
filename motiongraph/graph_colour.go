package motiongraph

import (
	"image"
	"image/color"
	"math"
)

// patchColour returns the mean RGB colour (components in [0,1]) of the
// (2r+1)×(2r+1) pixel patch centred on the pixel nearest to (x, y), clipped
// to the image. Fast paths for the decoders' YCbCr (JPEG) and RGBA types.
func patchColour(img image.Image, x, y float64, r int) [3]float32 {
	b := img.Bounds()
	cx := int(math.Round(x)) + b.Min.X
	cy := int(math.Round(y)) + b.Min.Y
	var sr, sg, sb float64
	n := 0
	for py := max(cy-r, b.Min.Y); py <= min(cy+r, b.Max.Y-1); py++ {
		for px := max(cx-r, b.Min.X); px <= min(cx+r, b.Max.X-1); px++ {
			var rr, gg, bb uint8
			switch im := img.(type) {
			case *image.YCbCr:
				yi := im.YOffset(px, py)
				ci := im.COffset(px, py)
				rr, gg, bb = color.YCbCrToRGB(im.Y[yi], im.Cb[ci], im.Cr[ci])
			case *image.RGBA:
				o := im.PixOffset(px, py)
				rr, gg, bb = im.Pix[o], im.Pix[o+1], im.Pix[o+2]
			case *image.NRGBA:
				o := im.PixOffset(px, py)
				rr, gg, bb = im.Pix[o], im.Pix[o+1], im.Pix[o+2]
			default:
				c := color.RGBAModel.Convert(im.At(px, py)).(color.RGBA)
				rr, gg, bb = c.R, c.G, c.B
			}
			sr += float64(rr)
			sg += float64(gg)
			sb += float64(bb)
			n++
		}
	}
	if n == 0 {
		return [3]float32{}
	}
	k := 1 / (255 * float64(n))
	return [3]float32{float32(sr * k), float32(sg * k), float32(sb * k)}
}
