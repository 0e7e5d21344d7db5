package uncertainty

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/densify/densify/internal/atomicfile"
)

var curveColors = []color.Color{
	color.RGBA{R: 214, G: 39, B: 40, A: 255},  // proposed: red
	color.RGBA{R: 31, G: 119, B: 180, A: 255}, // likelihood: blue
	color.RGBA{R: 90, G: 90, B: 90, A: 255},   // random: grey
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
	color.RGBA{R: 255, G: 127, B: 14, A: 255},
	color.RGBA{R: 23, G: 190, B: 207, A: 255},
	color.RGBA{R: 140, G: 86, B: 75, A: 255},
	color.RGBA{R: 227, G: 119, B: 194, A: 255},
	color.RGBA{R: 188, G: 189, B: 34, A: 255},
}

// curveStyle is the colour and dash pattern of the k-th curve: the ten
// colours of curveColors, then the same colours again with a longer dash
// each round, so no two curves of a plot look alike (a decomposition plot
// has nine orderings).
func curveStyle(k int) (color.Color, []vg.Length) {
	col := curveColors[k%len(curveColors)]
	round := k / len(curveColors)
	if round == 0 {
		return col, nil
	}
	return col, []vg.Length{vg.Points(float64(2 + 2*round)), vg.Points(2)}
}

// PlotCurves draws VI (metric "vi") or RI (metric "ri") against the density
// (fraction of trajectories kept, 1 − removed) for every curve, like
// Kardoost & Keuper (UAI 2021) Figs. 3–4, and writes it atomically as PNG (or SVG/PDF by the extension
// of path).
func PlotCurves(curves []Curve, metric, title, path string) error {
	return PlotCurvesOf(curves, metric, title, "trajectories", path)
}

// PlotCurvesOf is PlotCurves with the name of the ranked items on the x axis
// ("density (fraction of <items> kept)").
func PlotCurvesOf(curves []Curve, metric, title, items, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "density (fraction of " + items + " kept)"
	switch metric {
	case "vi":
		p.Y.Label.Text = "variation of information (nats)"
	case "ri":
		p.Y.Label.Text = "Rand index"
	default:
		return fmt.Errorf("plot: unknown metric %q", metric)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, c := range curves {
		pts := make(plotter.XYs, len(c.Removed))
		for i := range c.Removed {
			pts[i].X = 1 - c.Removed[i]
			if metric == "vi" {
				pts[i].Y = c.VI[i]
			} else {
				pts[i].Y = c.RI[i]
			}
			lo, hi = math.Min(lo, pts[i].Y), math.Max(hi, pts[i].Y)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", c.Name, err)
		}
		col, dashes := curveStyle(k)
		line.Color, points.Color = col, col
		line.Dashes = dashes
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		auc := c.AUCVI
		if metric == "ri" {
			auc = c.AUCRI
		}
		p.Legend.Add(fmt.Sprintf("%s (AUC %.4f)", c.Name, auc), line, points)
	}
	p.X.Min, p.X.Max = 0, 1
	if hi >= lo { // leave a free band at the top for the legend
		span := math.Max(hi-lo, 1e-3)
		band := 0.45 + 0.1*float64(max(0, len(curves)-4)) // room for one legend line per curve
		p.Y.Min, p.Y.Max = math.Max(0, lo-0.05*span), hi+band*span
	}
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, formatOf(path))
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := wt.WriteTo(w); return err })
}

func formatOf(path string) string {
	for i := len(path) - 1; i >= 0 && path[i] != '/'; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return "png"
}
