// Package synth generates synthetic motion segmentation sequences with exact
// ground truth: the embedded default data of densify (make demo, tests, cost
// fitting). Pure Go, deterministic given a seed.
//
// # Scene model
//
// A scene is a stack of layers, back to front. Every layer has a shape and a
// texture in its own local coordinates and, in every frame f, an affine map
// A_f: local → image (x = A_f u). Layers are composed hierarchically:
//
//	background:   A_f = C_f                         (camera: zoom z_f about the image centre c, pan t_f)
//	object body:  A_f = C_f ∘ T(C_f⁻¹ p_f) ∘ R(θ_f) ∘ S(s_f)
//	limb:         A_f = A_f(parent) ∘ T(j) ∘ R(φ_f),  φ_f = φ₀ + a·sin(2πf/T + ψ)
//
// with C_f(w) = z_f (w − c) + c + t_f, p_f the planned image-space path of the
// object (straight lines through the image centre region, so that objects
// cross and occlude each other), θ_f a slow rotation, s_f a small scale
// oscillation, j a joint on the parent and φ_f a swinging angle. Limbs are
// capsules 3–5 px wide: the thin parts where a motion segmentation errs.
//
// A frame is rendered by inverse mapping: pixel x shows the front-most layer L
// whose shape contains A_f(L)⁻¹ x, with colour texture_L(A_f(L)⁻¹ x) sampled
// bilinearly, times a global illumination gain g_f, plus Gaussian noise.
// Edges are hard (no anti-aliasing), so the region map is exact: region(x) is
// the object index of the front-most layer (0 = background).
//
// A scene point u of layer L moves to x_f = A_f(L) u: ground-truth
// trajectories follow such points while they stay visible (L front-most at
// x_f, the region map at round(x_f) equal to L's region, inside the image).
//
// # Files (FBMS layout, Ochs, Malik, Brox, TPAMI 2014)
//
//	<root>/<seq>/<seq>_0001.png …                    frames (1-based names)
//	<root>/<seq>/GroundTruth/<seq>Def.dat            written by dataset.WriteDef
//	<root>/<seq>/GroundTruth/<seq>_0001.ppm …        label images, region colours
//	<root>/<seq>/GroundTruth/<seq>_0001.pgm …        probabilities ×255 (only with SoftBoundary)
//
// Region colours (R·65536 + G·256 + B): background black, objects red, green,
// blue, yellow, magenta, cyan.
package synth

import "fmt"

// Params controls a generated sequence. All randomness derives from Seed.
type Params struct {
	Width, Height int // frame size in pixels
	Frames        int // number of frames
	Objects       int // number of moving objects (1..MaxObjects); object 1 is articulated
	Seed          int64
	// GTEvery: a ground-truth label image every GTEvery frames (frames 0,
	// GTEvery, 2·GTEvery, … 0-based). 1 = every frame.
	GTEvery int
	// Noise is the standard deviation of the additive Gaussian pixel noise
	// (grey levels, 0..255 scale).
	Noise float64
	// Illumination is the amplitude of the global gain oscillation
	// g_f = 1 + Illumination·sin(2πf/P + ψ).
	Illumination float64
	// Blur is the exposure time as a fraction of the frame interval: every
	// frame averages the scene over [f − Blur/2, f + Blur/2] (motion blur, as
	// a camera shutter open for that time). 0 renders the instant t = f.
	Blur float64
	// SoftBoundary gives pixels next to a different region probability 0.5
	// in the ground truth (a 1-px soft boundary; .pgm beside the .ppm).
	SoftBoundary bool
}

// MaxObjects is the largest supported number of objects (region colours).
const MaxObjects = 6

// DefaultParams is one sequence of 30 frames at 320×240 with two objects and
// ground truth every 5 frames: small enough for make demo on 2 CPU cores.
func DefaultParams() Params {
	return Params{
		Width: 320, Height: 240, Frames: 30, Objects: 2, Seed: 1, GTEvery: 5,
		Noise: 1.5, Illumination: 0.03, Blur: 0.5,
	}
}

// Validate reports the first out-of-range parameter.
func (p Params) Validate() error {
	switch {
	case p.Width < 32 || p.Width > 4096 || p.Height < 32 || p.Height > 4096:
		return fmt.Errorf("synth: frame size %dx%d out of range (32..4096)", p.Width, p.Height)
	case p.Frames < 2 || p.Frames > 2000:
		return fmt.Errorf("synth: %d frames out of range (2..2000)", p.Frames)
	case p.Objects < 1 || p.Objects > MaxObjects:
		return fmt.Errorf("synth: %d objects out of range (1..%d)", p.Objects, MaxObjects)
	case p.GTEvery < 1:
		return fmt.Errorf("synth: gt-every must be ≥ 1, got %d", p.GTEvery)
	case !(p.Noise >= 0 && p.Noise <= 64):
		return fmt.Errorf("synth: noise %v out of range (0..64)", p.Noise)
	case !(p.Blur >= 0 && p.Blur <= 1):
		return fmt.Errorf("synth: blur %v out of range (0..1)", p.Blur)
	case !(p.Illumination >= 0 && p.Illumination <= 0.5):
		return fmt.Errorf("synth: illumination %v out of range (0..0.5)", p.Illumination)
	}
	return nil
}

// RegionColors are the label-image colours R·65536+G·256+B of regions
// 0..MaxObjects (background first).
var RegionColors = []int{0x000000, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0xFF00FF, 0x00FFFF}
