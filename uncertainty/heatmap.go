package uncertainty

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"sort"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/palette/moreland"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/sparse"
)

// colorLUT maps u ∈ [0,1] to 256 colours of Moreland's smooth blue–red
// diverging map (blue = certain, light grey = u ½, red = uncertain), so the
// decision point u = ½ (γ = 0) is the neutral colour.
var colorLUT = func() [256]color.RGBA {
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	var lut [256]color.RGBA
	for i := range lut {
		c, err := cm.At(float64(i) / 255)
		if err != nil {
			panic(err) // in range by construction
		}
		r, g, b, _ := c.RGBA()
		lut[i] = color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255}
	}
	return lut
}()

// UncertaintyColor returns the heat-map colour of u (clamped to [0,1]).
func UncertaintyColor(u float64) color.RGBA {
	i := int(u*255 + 0.5)
	if i < 0 || u != u {
		i = 0
	}
	if i > 255 {
		i = 255
	}
	return colorLUT[i]
}

const barWidth = 70 // colour bar strip on the right of every heat map

// Heatmap draws frame f of the sequence: the image as dimmed grey, every
// trajectory alive in f as a disc of radius 2 coloured by its uncertainty
// u[i] (most uncertain drawn last, on top), and a colour bar with ticks
// 0, 0.5, 1 on the right.
func Heatmap(img image.Image, ts *sparse.TrackSet, u []float64, f int) (*image.RGBA, error) {
	if len(u) != len(ts.Tracks) {
		return nil, fmt.Errorf("heatmap: %d uncertainties for %d trajectories", len(u), len(ts.Tracks))
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w+barWidth, h))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			g := color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			v := uint8(40 + int(g)*45/100) // dimmed, so the colours stand out
			out.SetRGBA(x, y, color.RGBA{R: v, G: v, B: v, A: 255})
		}
	}
	idx := make([]int, 0, len(ts.Tracks))
	pts := make([]sparse.Point, len(ts.Tracks))
	for i := range ts.Tracks {
		if p, ok := ts.Tracks[i].At(f); ok {
			pts[i] = p
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return u[idx[a]] < u[idx[b]] })
	for _, i := range idx {
		c := UncertaintyColor(u[i])
		cx, cy := int(pts[i].X+0.5), int(pts[i].Y+0.5)
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				if dx*dx+dy*dy > 5 {
					continue
				}
				if x, y := cx+dx, cy+dy; x >= 0 && y >= 0 && x < w && y < h {
					out.SetRGBA(x, y, c)
				}
			}
		}
	}
	// colour bar: u = 1 at the top
	top, bottom := 15, h-15
	if bottom-top < 20 {
		top, bottom = 0, h
	}
	x0 := w + 10
	for y := top; y < bottom; y++ {
		c := UncertaintyColor(1 - float64(y-top)/float64(bottom-top-1))
		for x := x0; x < x0+16; x++ {
			out.SetRGBA(x, y, c)
		}
	}
	d := &font.Drawer{Dst: out, Src: image.Black, Face: basicfont.Face7x13}
	for _, t := range []struct {
		s string
		v float64
	}{{"1", 1}, {"0.5", 0.5}, {"0", 0}} {
		y := top + int((1-t.v)*float64(bottom-top-1))
		for x := x0 + 16; x < x0+20; x++ {
			out.SetRGBA(x, y, color.RGBA{A: 255})
		}
		d.Dot = fixed.P(x0+22, y+4)
		d.DrawString(t.s)
	}
	d.Dot = fixed.P(w+4, h-2)
	if h > 30 {
		d.DrawString("u(v)")
	}
	return out, nil
}

// WritePNG encodes img atomically as PNG.
func WritePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}
