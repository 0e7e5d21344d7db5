package uncertainty

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"sort"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/palette/moreland"

	"github.com/densify/densify/trajectory"
)

// colorLUT maps t ∈ [0,1] to 256 colours of Moreland's smooth diverging
// map (blue → light grey → red, perceptually ordered). Its low end is a
// saturated blue rather than black, so the many certain trajectories (u = 0)
// stay visible on the dimmed frame.
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

// HeatmapMax is the uncertainty drawn with the top colour. A multicut that is
// locally optimal for single-node moves has u ≤ ½ everywhere (γ ≥ 0), so the
// colour scale spans [0, ½]; larger values are clamped.
const HeatmapMax = 0.5

// UncertaintyColor returns the heat-map colour of u ∈ [0, HeatmapMax] (clamped).
func UncertaintyColor(u float64) color.RGBA {
	i := int(u/HeatmapMax*255 + 0.5)
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
// trajectory alive in f as a 3×3 dot coloured by its uncertainty
// u[i] (most uncertain drawn last, on top), and a colour bar with ticks
// 0, 0.25, ≥0.5 on the right, labelled "u(v)".
func Heatmap(img image.Image, ts *trajectory.TrackSet, u []float64, f int) (*image.RGBA, error) {
	return HeatmapLabelled(img, ts, u, f, "u(v)")
}

// HeatmapLabelled is Heatmap with the colour bar labelled label (e.g. the
// calibrated u_T of HeatmapValues).
func HeatmapLabelled(img image.Image, ts *trajectory.TrackSet, u []float64, f int, label string) (*image.RGBA, error) {
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
	pts := make([]trajectory.Point, len(ts.Tracks))
	for i := range ts.Tracks {
		if p, ok := ts.Tracks[i].At(f); ok {
			pts[i] = p
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return u[idx[a]] < u[idx[b]] })
	for _, i := range idx {
		c := UncertaintyColor(u[i])
		cx, cy := pts[i].Pixel()
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx*dx+dy*dy > 2 {
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
		c := UncertaintyColor(HeatmapMax * (1 - float64(y-top)/float64(bottom-top-1)))
		for x := x0; x < x0+16; x++ {
			out.SetRGBA(x, y, c)
		}
	}
	d := &font.Drawer{Dst: out, Src: image.Black, Face: basicfont.Face7x13}
	for _, t := range []struct {
		s string
		v float64
	}{{">=.5", 1}, {".25", 0.5}, {"0", 0}} {
		y := top + int((1-t.v)*float64(bottom-top-1))
		for x := x0 + 16; x < x0+19; x++ {
			out.SetRGBA(x, y, color.RGBA{A: 255})
		}
		d.Dot = fixed.P(x0+23, y+4)
		d.DrawString(t.s)
	}
	d.Dot = fixed.P(w+4, h-2)
	if h > 30 {
		d.DrawString(label)
	}
	return out, nil
}

// HeatmapValues are the values a heat map colours and its colour bar's
// label: the calibrated uncertainty u_T = σ(−γ/T) (TemperedU) for T > 0 and
// T ≠ 1, else u = σ(−γ) itself. At T = 1 almost every trajectory has u below
// 10⁻³⁰ and the map is uniformly blue; u_T at the fitted temperature is the
// probability that the trajectory's label is wrong, and the wrong ones stand
// out.
func HeatmapValues(r *Result, T float64) ([]float64, string) {
	if !(T > 0) || T == 1 {
		return r.U, "u(v)"
	}
	ut := make([]float64, len(r.Gamma))
	for i, g := range r.Gamma {
		ut[i] = TemperedU(g, T)
	}
	return ut, fmt.Sprintf("u_T, T=%g", T)
}
