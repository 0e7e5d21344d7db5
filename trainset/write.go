package trainset

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/internal/parallel"
)

// FormatVersion is the version of the prepared-set layout Write produces.
// Version 2 keeps the base weights (class balance) in _weights.npy and the
// hard-example mask apart; version 1 sets had the hard-example factor
// multiplied into _weights.npy. Version 3 adds _u.npy, the uncertainty of
// the trajectory labelling each pixel (the confidence-weighted variant), and
// _mu.npy, the mean uncertainty of its segment (hard examples for another φ).
// Version 4 adds _gamma.npy, γ of the trajectory labelling each pixel (the
// calibrated variants, u_T = σ(−γ/T)), and gamma.npy, γ of every trajectory
// of a kept segment in ascending order (the pruning variant's threshold).
const FormatVersion = 4

// Manifest describes a prepared training set (manifest.json). Paths are
// relative to the set's folder except Image, which is where the frame was read.
type Manifest struct {
	Version            int               `json:"version"`
	Mode               string            `json:"mode"` // "binary" or "multi"
	Width              int               `json:"width"`
	Height             int               `json:"height"`
	Classes            int               `json:"classes"`
	Background         int               `json:"background_cluster"`
	Options            Options           `json:"parameters"`
	Source             map[string]string `json:"source,omitempty"`
	ClassCounts        []int             `json:"class_counts"`
	HardPixels         int               `json:"hard_pixels"`
	HardTracks         int               `json:"hard_trajectories"`
	BorderPoints       int               `json:"border_points"`
	FarPoints          int               `json:"far_background_points"`
	CutPoints          int               `json:"cut_background_points,omitempty"`
	DroppedIsolated    int               `json:"dropped_isolated_points"`
	DroppedUnsupported int               `json:"dropped_unsupported_points"`
	DroppedHard        int               `json:"dropped_hard_points,omitempty"`
	// The colour check's and the steadiness test's drops (Summary's
	// ColourRejected, ColourRejectedTracks, Unsteady, UnsteadyTracks).
	DroppedColour         int       `json:"dropped_colour_points,omitempty"`
	DroppedColourTracks   int       `json:"dropped_colour_trajectories,omitempty"`
	DroppedUnsteady       int       `json:"dropped_unsteady_points,omitempty"`
	DroppedUnsteadyTracks int       `json:"dropped_unsteady_trajectories,omitempty"`
	Unexplained           int       `json:"unexplained_background_trajectories"`
	BeyondPrimary         int       `json:"primary_background_points,omitempty"`
	Segments              []Segment `json:"segments"`
	// TrajectoryGamma names the file of Set.TrajectoryGamma (version ≥ 4).
	TrajectoryGamma string          `json:"trajectory_gamma,omitempty"`
	Frames          []ManifestFrame `json:"frames"`
}

// ManifestFrame lists the files of one frame.
type ManifestFrame struct {
	Frame   int    `json:"frame"`
	Image   string `json:"image"`
	Labels  string `json:"labels"`
	Weights string `json:"weights"`
	Hard    string `json:"hard"`
	U       string `json:"uncertainty,omitempty"`         // version ≥ 3
	Mu      string `json:"segment_uncertainty,omitempty"` // version ≥ 3
	Gamma   string `json:"gamma,omitempty"`               // version ≥ 4
	Preview string `json:"preview"`
	Counts  []int  `json:"class_counts"`
	NHard   int    `json:"hard_pixels"`
}

// Write stores the set in dir: frames/NNNNN_{labels,weights,hard,u,mu,gamma}.npy
// (int16 with -1 = unlabelled, float32 base weights = class balance, uint8
// hard-example mask, float32 uncertainty u and γ of the labelling trajectory
// and float32 mean uncertainty of its segment; shape (H, W)),
// previews/NNNNN.png, gamma.npy (Set.TrajectoryGamma, float32) and
// manifest.json. framePath(f) names the image of
// frame f (recorded in the manifest and used for previews). The folder is
// built beside dir and renamed into place, so a failure leaves no partial
// set.
func (s *Set) Write(dir string, framePath func(frame int) string, readImage func(path string) (image.Image, error), source map[string]string) error {
	tmp, err := atomicfile.TempDir(dir) // (removes the temporaries of a killed run)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	m := s.manifest(source)
	for k := range s.Frames {
		m.Frames = append(m.Frames, manifestFrame(&s.Frames[k], framePath(s.Frames[k].Frame)))
	}
	if err := s.writeFrames(tmp, m.Frames, readImage); err != nil {
		return err
	}
	if err := npy.Write(filepath.Join(tmp, m.TrajectoryGamma), &npy.Array{Shape: []int{len(s.TrajectoryGamma)}, F32: orEmpty(s.TrajectoryGamma)}); err != nil {
		return err
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(tmp, "manifest.json"), append(js, '\n')); err != nil {
		return err
	}
	if err := atomicfile.ReplaceDir(tmp, dir); err != nil {
		return err
	}
	ok = true
	return nil
}

// manifest is the set's manifest without its frames: mode, size, options,
// source and the counts of Summary.
func (s *Set) manifest(source map[string]string) Manifest {
	mode := "binary"
	if s.Options.Multi {
		mode = "multi"
	}
	sum := s.Summary()
	return Manifest{Version: FormatVersion, Mode: mode, Width: s.Width, Height: s.Height, Classes: s.Classes,
		Background: s.Background, Options: s.Options, Source: source, ClassCounts: sum.ClassCounts,
		HardPixels: sum.HardPixels, HardTracks: sum.HardTracks, BorderPoints: sum.BorderPoints, FarPoints: sum.FarPoints, CutPoints: sum.CutPoints,
		DroppedIsolated: s.DroppedIsolated, DroppedUnsupported: sum.Unsupported, DroppedHard: sum.HardDropped,
		DroppedColour: sum.ColourRejected, DroppedColourTracks: sum.ColourRejectedTracks, DroppedUnsteady: sum.Unsteady, DroppedUnsteadyTracks: sum.UnsteadyTracks, Unexplained: sum.Unexplained, BeyondPrimary: sum.BeyondPrimary, Segments: s.Segments,
		TrajectoryGamma: "gamma.npy"}
}

// writeWorkers is how many frames Write writes at once (each holds one
// decoded frame and its preview while it is written).
const writeWorkers = 2

// writeFrames writes every frame (writeFrame) into dir, writeWorkers at a
// time; the error is the one of the first failing frame in set order
// (parallel.For starts no frame after a failure, so every frame before it
// was written).
func (s *Set) writeFrames(dir string, mfs []ManifestFrame, readImage func(path string) (image.Image, error)) error {
	errs := make([]error, len(s.Frames))
	parallel.For(len(s.Frames), writeWorkers, func(k int) error {
		errs[k] = s.writeFrame(dir, &s.Frames[k], mfs[k], readImage)
		return errs[k]
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// manifestFrame names the files of fr (frames/NNNNN_*.npy,
// previews/NNNNN.png) and records image, the path of its frame.
func manifestFrame(fr *Frame, image string) ManifestFrame {
	name := fmt.Sprintf("%05d", fr.Frame)
	return ManifestFrame{Frame: fr.Frame, Image: image,
		Labels: "frames/" + name + "_labels.npy", Weights: "frames/" + name + "_weights.npy",
		Hard: "frames/" + name + "_hard.npy", U: "frames/" + name + "_u.npy", Mu: "frames/" + name + "_mu.npy",
		Gamma: "frames/" + name + "_gamma.npy", Preview: "previews/" + name + ".png", Counts: fr.Counts, NHard: fr.NHard}
}

// writeFrame writes the arrays and the preview of fr into dir under the
// names of mf (zeros for a missing U or Mu, +Inf for a missing Gamma); the preview is drawn over
// readImage(mf.Image) when both are given, which must be of the set's size.
func (s *Set) writeFrame(dir string, fr *Frame, mf ManifestFrame, readImage func(path string) (image.Image, error)) error {
	shape := []int{s.Height, s.Width}
	arrays := []struct {
		rel string
		a   *npy.Array
	}{
		{mf.Labels, &npy.Array{Shape: shape, Int16: fr.Labels}},
		{mf.Weights, &npy.Array{Shape: shape, F32: fr.Weights}},
		{mf.Hard, &npy.Array{Shape: shape, U8: fr.Hard}},
		{mf.U, &npy.Array{Shape: shape, F32: orZeros(fr.U, s.Width*s.Height)}},
		{mf.Mu, &npy.Array{Shape: shape, F32: orZeros(fr.Mu, s.Width*s.Height)}},
		{mf.Gamma, &npy.Array{Shape: shape, F32: orInf(fr.Gamma, s.Width*s.Height)}},
	}
	for _, a := range arrays {
		if err := npy.Write(filepath.Join(dir, a.rel), a.a); err != nil {
			return err
		}
	}
	var bgImg image.Image
	if readImage != nil && mf.Image != "" {
		img, err := readImage(mf.Image)
		if err != nil {
			return err
		}
		if b := img.Bounds(); b.Dx() != s.Width || b.Dy() != s.Height {
			return fmt.Errorf("%s: frame is %dx%d, trajectories were prepared for %dx%d", mf.Image, b.Dx(), b.Dy(), s.Width, s.Height)
		}
		bgImg = img
	}
	return atomicfile.WritePreviewPNG(filepath.Join(dir, mf.Preview), Preview(bgImg, fr, s.Width, s.Height))
}

// orZeros is v, or n zeros when v is nil.
func orZeros(v []float32, n int) []float32 {
	if v == nil {
		return make([]float32, n)
	}
	return v
}

// orInf is v, or n times +Inf (no uncertainty: nothing to move) when v is nil.
func orInf(v []float32, n int) []float32 {
	if v != nil {
		return v
	}
	v = make([]float32, n)
	for i := range v {
		v[i] = float32(math.Inf(1))
	}
	return v
}

// orEmpty is v, or an empty slice when v is nil (npy.Array tells its type by
// the slice that is not nil).
func orEmpty(v []float32) []float32 {
	if v == nil {
		return []float32{}
	}
	return v
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("not a prepared training set: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fileerr.New(p, 0, "invalid manifest: %v", err)
	}
	if m.Width <= 0 || m.Height <= 0 || m.Classes < 2 || len(m.Frames) == 0 {
		return nil, fileerr.New(p, 0, "invalid manifest: size %dx%d, %d classes, %d frames", m.Width, m.Height, m.Classes, len(m.Frames))
	}
	if err := m.validate(); err != nil {
		return nil, fileerr.New(p, 0, "invalid manifest: %v (run densify prepare again)", err)
	}
	return &m, nil
}

// validate checks what a hand edit can break beyond the sizes: the format
// version, the parameters (the hard-example factor and φ that training
// reads among them), the counts and that every file lies in the set.
func (m *Manifest) validate() error {
	if m.Version < 1 || m.Version > FormatVersion {
		return fmt.Errorf("version %d: this densify reads prepared sets of versions 1 to %d", m.Version, FormatVersion)
	}
	if m.Mode != "binary" && m.Mode != "multi" {
		return fmt.Errorf("unknown mode %q (binary or multi)", m.Mode)
	}
	if err := m.Options.Validate(); err != nil {
		return fmt.Errorf("parameters: %w", err)
	}
	if m.Width > math.MaxInt32/m.Height {
		return fmt.Errorf("size %dx%d", m.Width, m.Height)
	}
	for c, n := range m.ClassCounts {
		if n < 0 {
			return fmt.Errorf("class %d has %d labelled pixels", c, n)
		}
	}
	if m.TrajectoryGamma != "" && !filepath.IsLocal(m.TrajectoryGamma) {
		return fmt.Errorf("%q is not a file of the set", m.TrajectoryGamma)
	}
	for _, mf := range m.Frames {
		for _, f := range []string{mf.Labels, mf.Weights, mf.Hard, mf.U, mf.Mu, mf.Gamma} {
			if f != "" && !filepath.IsLocal(f) {
				return fmt.Errorf("frame %d: %q is not a file of the set", mf.Frame, f)
			}
		}
		if mf.Labels == "" || mf.Weights == "" || mf.Hard == "" {
			return fmt.Errorf("frame %d: labels, weights and hard-example files are required", mf.Frame)
		}
	}
	return nil
}

// CheckSet checks that dir holds a prepared set that loads, without
// reading its arrays: a valid manifest (ReadManifest) and, for every
// frame, its .npy files with the manifest's shape and all their data. A set
// damaged after it was written fails here.
func CheckSet(dir string) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	if m.TrajectoryGamma != "" {
		p := filepath.Join(dir, m.TrajectoryGamma)
		shape, err := npy.ReadShape(p)
		if err != nil {
			return err
		}
		if len(shape) != 1 {
			return fileerr.New(p, 0, "npy: shape %v, want one γ per trajectory", shape)
		}
	}
	for _, mf := range m.Frames {
		for _, f := range []string{mf.Labels, mf.Weights, mf.Hard, mf.U, mf.Mu, mf.Gamma} {
			if f == "" {
				continue
			}
			p := filepath.Join(dir, f)
			shape, err := npy.ReadShape(p)
			if err != nil {
				return err
			}
			if len(shape) != 2 || shape[0] != m.Height || shape[1] != m.Width {
				return fileerr.New(p, 0, "npy: shape %v, the manifest says %dx%d", shape, m.Width, m.Height)
			}
		}
	}
	return nil
}

// palette colours classes in previews (class 0 = background, blue).
var palette = []color.RGBA{{40, 110, 255, 255}, {255, 200, 0, 255}, {0, 220, 120, 255}, {230, 60, 230, 255}, {0, 230, 230, 255}, {255, 120, 60, 255}, {160, 255, 60, 255}, {150, 120, 255, 255}}

// Preview draws the labelled pixels of fr as 3×3 dots over the darkened
// frame (class colours; hard examples as red 5×5 squares with the class colour inside).
func Preview(frame image.Image, fr *Frame, W, H int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			c := color.RGBA{0, 0, 0, 255}
			if frame != nil {
				r, g, b, _ := frame.At(frame.Bounds().Min.X+x, frame.Bounds().Min.Y+y).RGBA()
				c = color.RGBA{uint8(r >> 9), uint8(g >> 9), uint8(b >> 9), 255}
			}
			out.SetRGBA(x, y, c)
		}
	}
	dot := func(x, y, r int, c color.RGBA) {
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				if x+dx >= 0 && y+dy >= 0 && x+dx < W && y+dy < H {
					out.SetRGBA(x+dx, y+dy, c)
				}
			}
		}
	}
	for i, l := range fr.Labels {
		if l >= 0 && fr.Hard[i] == 1 {
			dot(i%W, i/W, 2, color.RGBA{255, 0, 0, 255})
		}
	}
	for i, l := range fr.Labels {
		if l >= 0 {
			dot(i%W, i/W, 1, palette[int(l)%len(palette)])
		}
	}
	return out
}
