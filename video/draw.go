package video

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/densify/densify/trajectory"
)

// DrawTracks returns a copy of frame (dimmed to 60 %) with the points of
// every trajectory alive in frame f drawn as 3×3 dots. Colours: by label
// when any label is non-zero, otherwise by trajectory length (red = short,
// yellow, green, cyan, blue = long, relative to the sequence length).
func DrawTracks(frame image.Image, ts *trajectory.TrackSet, f int) *image.RGBA {
	b := frame.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), frame, b.Min, draw.Src)
	for i := 0; i < len(out.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = uint8(float64(out.Pix[i+c]) * 0.6)
		}
	}
	labelled := false
	for _, tk := range ts.Tracks {
		if tk.Label != 0 {
			labelled = true
			break
		}
	}
	n := max(ts.Frames, 2)
	for _, tk := range ts.Tracks {
		p, ok := tk.At(f)
		if !ok {
			continue
		}
		var col color.RGBA
		if labelled {
			col = hueColour(math.Mod(float64(tk.Label)*0.618034, 1))
		} else {
			r := float64(len(tk.Points)-1) / float64(n-1)
			col = hueColour(0.66 * math.Min(1, r))
		}
		x, y := p.Pixel()
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if image.Pt(x+dx, y+dy).In(out.Bounds()) {
					out.SetRGBA(x+dx, y+dy, col)
				}
			}
		}
	}
	return out
}

// hueColour maps h ∈ [0, 1) to a saturated colour of that hue.
func hueColour(h float64) color.RGBA {
	h6 := h * 6
	i := int(h6) % 6
	fr := h6 - math.Floor(h6)
	q, t := uint8(255*(1-fr)), uint8(255*fr)
	switch i {
	case 0:
		return color.RGBA{255, t, 0, 255}
	case 1:
		return color.RGBA{q, 255, 0, 255}
	case 2:
		return color.RGBA{0, 255, t, 255}
	case 3:
		return color.RGBA{0, q, 255, 255}
	case 4:
		return color.RGBA{t, 0, 255, 255}
	}
	return color.RGBA{255, 0, q, 255}
}
