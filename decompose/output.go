package decompose

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"path/filepath"
	"strconv"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/uncertainty"
)

// LabelImage paints every segment in a colour derived from its label
// (a fixed hash, so equal labels always get equal colours).
func LabelImage(labels []int, w, h int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, l := range labels {
		x := uint32(l)*2654435761 + 0x9e3779b9
		x ^= x >> 15
		x *= 2246822519
		x ^= x >> 13
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = 40+uint8(x)%200, 40+uint8(x>>8)%200, 40+uint8(x>>16)%200, 255
	}
	return out
}

// HeatImage paints u per pixel with uncertainty.UncertaintyColor (blue =
// certain, red = u ≥ ½).
func HeatImage(u []float64, w, h int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, v := range u {
		c := uncertainty.UncertaintyColor(v)
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = c.R, c.G, c.B, 255
	}
	return out
}

// GrayImage paints p ∈ [0,1] as grey levels (white = 1).
func GrayImage(p []float32, w, h int) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range p {
		out.Pix[i] = uint8(min(max(v, 0), 1)*255 + 0.5)
	}
	return out
}

// RemovalFractions are the panels of the removal picture.
var RemovalFractions = []float64{0.05, 0.1, 0.2}

// RemovalPicture shows what each ordering removes first (Kardoost &
// Keuper, UAI 2021, Fig. 8): one row per ordering (proposed,
// proposed-layered, proposed-segment, likelihood, random), one panel per
// fraction in RemovalFractions; the image is dimmed to grey and the removed
// pixels are red, the decomposition's segment boundaries white.
func RemovalPicture(img image.Image, r *Result, seed int64) *image.RGBA {
	w, h := r.W, r.H
	gap := 4
	all := r.pixelScores()
	var scores [][]float64
	for _, name := range []string{"proposed", "proposed-layered", "proposed-segment", "likelihood"} {
		scores = append(scores, all[name])
	}
	scores = append(scores, uncertainty.Random(w*h, seed+1))
	out := image.NewRGBA(image.Rect(0, 0, len(RemovalFractions)*(w+gap)-gap, len(scores)*(h+gap)-gap))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	bd := img.Bounds()
	grey := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.GrayModel.Convert(img.At(bd.Min.X+x, bd.Min.Y+y)).(color.Gray)
			grey[y*w+x] = c.Y/2 + 40
		}
	}
	onB := SegmentBoundaries(r.Labels, w, h)
	for row, sc := range scores {
		for col, f := range RemovalFractions {
			rm := RemovalMask(sc, f, seed)
			ox, oy := col*(w+gap), row*(h+gap)
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					i := y*w + x
					c := color.RGBA{grey[i], grey[i], grey[i], 255}
					if onB[i] {
						c = color.RGBA{255, 255, 255, 255}
					}
					if rm[i] {
						c = color.RGBA{220, 20, 20, 255}
					}
					out.SetRGBA(ox+x, oy+y, c)
				}
			}
		}
	}
	return out
}

// ImageSummary is summary.json of one image.
type ImageSummary struct {
	Image      string   `json:"image"`
	GT         string   `json:"gt,omitempty"`
	Width      int      `json:"width"`
	Height     int      `json:"height"`
	Options    Options  `json:"options"`
	Offsets    []Offset `json:"lifted_offsets"`
	Regular    int      `json:"regular_edges"`
	Lifted     int      `json:"lifted_edges"`
	Segments   int      `json:"segments"`
	EnergyGAEC float64  `json:"energy_gaec"`
	EnergyKLj  float64  `json:"energy_klj"`
	Energy     float64  `json:"energy"`
	Uncertain  int      `json:"uncertain_pixels"` // pixels with a possible move (γ < ∞)
	MeanU      float64  `json:"mean_uncertainty"`
	Timing     Timing   `json:"timing"`
	Outputs    []string `json:"outputs"`
	// VIAUC repeats Evaluation.VIAUC (proposed, likelihood, random) at the top level.
	VIAUC       map[string]float64 `json:"vi_auc,omitempty"`
	Evaluation  *Evaluation        `json:"evaluation,omitempty"`
	VIUnit      string             `json:"vi_unit"`
	AUCRule     string             `json:"auc"`
	SparsifyRef string             `json:"sparsify_pixels,omitempty"`
	// Measures is the MeasuresVersion the orderings were computed with.
	Measures int `json:"measures_version"`
}

// MeasuresVersion numbers the definitions of the per-pixel measures and
// orderings behind an image summary, so that a dataset run does not reuse
// a summary.json computed with other definitions (loadDone): 1 (also the
// files without the field): proposed-segment floored every segment at its
// μ_A; 2: only the segments smaller than the mean (SegmentFloor).
const MeasuresVersion = 2

// ImageOptions name the inputs and outputs of RunImage.
type ImageOptions struct {
	Image      string // JPEG or PNG
	GT         string // BSDS .mat ground truth; "" = no evaluation
	Out        string // output folder
	WriteGraph bool   // also write graph.txt (multicut graph file)
	Options
}

// RunImage decomposes one image and writes into Out: labels.png,
// boundary.png, uncertainty.png, uncertainty.npy (float32 H×W, UAI'21's
// u = σ(−γ)), labels.npy (float32 H×W, the segment of every pixel, exact
// integers) and boundary.npy (float32 H×W, the boundary map), from which Load
// rebuilds the result without solving again, gamma-layered.npy (float32 H×W,
// Γ of Layered), uncertainty-segment.npy (float32 H×W, s of
// SegmentFloor: σ(−Γ), floored at μ_A in segments smaller than the mean), removal.png, summary.json, graph.txt (with WriteGraph), and with GT also
// sparsify.csv, vi.png, ri.png; summary.json then carries the region scores
// and vi_auc per ordering. Inputs are read and checked before anything is
// written; every file is written atomically.
func RunImage(o ImageOptions) (*ImageSummary, error) {
	img, err := bsds.ReadImage(o.Image)
	if err != nil {
		return nil, err
	}
	var anns []bsds.Annotation
	if o.GT != "" {
		b := img.Bounds()
		if anns, err = bsds.ReadGroundTruth(o.GT, b.Dx(), b.Dy()); err != nil {
			return nil, err
		}
	}
	r, err := Decompose(img, o.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Image, err)
	}
	s := summarize(o, r)
	if anns != nil {
		if s.Evaluation, err = Evaluate(r, anns, o.Sparsify); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Image, err)
		}
		s.VIAUC = s.Evaluation.VIAUC
	}
	return s, writeImage(o, img, r, s)
}

func summarize(o ImageOptions, r *Result) *ImageSummary {
	o.Sparsify.defaults()
	s := &ImageSummary{Image: o.Image, GT: o.GT, Width: r.W, Height: r.H, Options: o.Options,
		Offsets:  LiftedOffsets(o.Graph.Lifted, o.Graph.Radius, o.Graph.Neighbours),
		Segments: multicut.NumClusters(r.Labels), EnergyGAEC: r.EnergyGAEC, EnergyKLj: r.EnergyKLj, Energy: r.Energy,
		Timing: r.Timing, VIUnit: "nats", AUCRule: "trapezoid over the removed fraction 0…max", Measures: MeasuresVersion}
	s.Options.Sparsify = o.Sparsify
	s.Regular, s.Lifted = r.Graph.Counts()
	for _, u := range r.Uncertainty.U {
		s.MeanU += u / float64(len(r.Uncertainty.U))
	}
	for _, g := range r.Uncertainty.Gamma {
		if g < 1e308 {
			s.Uncertain++
		}
	}
	if o.GT != "" {
		s.SparsifyRef = fmt.Sprintf("pixels with x and y divisible by %d; ties (γ = +∞) in one random order", o.Sparsify.Stride)
	}
	return s
}

func writeImage(o ImageOptions, img image.Image, r *Result, s *ImageSummary) error {
	put := func(name string, f func(path string) error) error {
		p := filepath.Join(o.Out, name)
		if err := f(p); err != nil {
			return err
		}
		s.Outputs = append(s.Outputs, name)
		return nil
	}
	png := func(m image.Image) func(string) error {
		return func(p string) error { return atomicfile.WritePNG(p, m) }
	}
	u32 := make([]float32, len(r.Uncertainty.U))
	for i, v := range r.Uncertainty.U {
		u32[i] = float32(v)
	}
	steps := []struct {
		name string
		f    func(string) error
	}{
		{"labels.png", png(LabelImage(r.Labels, r.W, r.H))},
		{"boundary.png", png(GrayImage(r.Boundary, r.W, r.H))},
		{"uncertainty.png", png(HeatImage(r.Uncertainty.U, r.W, r.H))},
		{"uncertainty.npy", func(p string) error {
			return npy.Write(p, &npy.Array{Shape: []int{r.H, r.W}, F32: u32})
		}},
		{"labels.npy", func(p string) error {
			l, err := labelsF32(r.Labels)
			if err != nil {
				return err
			}
			return npy.Write(p, &npy.Array{Shape: []int{r.H, r.W}, F32: l})
		}},
		{"boundary.npy", func(p string) error {
			return npy.Write(p, &npy.Array{Shape: []int{r.H, r.W}, F32: r.Boundary})
		}},
		{"gamma-layered.npy", func(p string) error {
			return npy.Write(p, &npy.Array{Shape: []int{r.H, r.W}, F32: f32(r.GammaLayered)})
		}},
		{"uncertainty-segment.npy", func(p string) error {
			return npy.Write(p, &npy.Array{Shape: []int{r.H, r.W}, F32: f32(r.SegmentU)})
		}},
		{"removal.png", png(RemovalPicture(img, r, o.Sparsify.Seed))},
	}
	if o.WriteGraph {
		steps = append(steps, struct {
			name string
			f    func(string) error
		}{"graph.txt", func(p string) error { return multicut.WriteGraph(p, r.Graph) }})
	}
	if ev := s.Evaluation; ev != nil {
		steps = append(steps, []struct {
			name string
			f    func(string) error
		}{
			{"sparsify.csv", func(p string) error { return writeCurvesCSV(p, []string{"image"}, [][]uncertainty.Curve{ev.Curves}) }},
			{"vi.png", func(p string) error {
				return uncertainty.PlotCurvesOf(ev.Curves, "vi", "pixel sparsification: "+filepath.Base(o.Image), "pixels", p)
			}},
			{"ri.png", func(p string) error {
				return uncertainty.PlotCurvesOf(ev.Curves, "ri", "pixel sparsification: "+filepath.Base(o.Image), "pixels", p)
			}},
		}...)
	}
	for _, st := range steps {
		if err := put(st.name, st.f); err != nil {
			return err
		}
	}
	s.Outputs = append(s.Outputs, "summary.json")
	return writeJSON(filepath.Join(o.Out, "summary.json"), s)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(data, '\n'))
}

// f32 converts to float32 (±Inf stays ±Inf).
func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func ff(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }

// writeCurvesCSV writes rows "name,ordering,removed,density,vi,ri".
func writeCurvesCSV(path string, names []string, sets [][]uncertainty.Curve) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "image,ordering,removed,density,vi,ri\n"); err != nil {
			return err
		}
		for k, cs := range sets {
			for _, c := range cs {
				for i := range c.Removed {
					if _, err := fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s\n", names[k], c.Name, ff(c.Removed[i]), ff(1-c.Removed[i]), ff(c.VI[i]), ff(c.RI[i])); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}
