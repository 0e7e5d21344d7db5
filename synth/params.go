// Package synth generates synthetic motion segmentation sequences with exact
// ground truth: the embedded default data of densify (make demo, tests, cost
// fitting). Pure Go, deterministic given a seed.
//
// # Scene model
//
// A scene is a stack of layers, back to front. Every layer has a shape and a
// texture in its own local coordinates and, at every time t (in frames), an
// affine map A_t: local → image (x = A_t u). Layers are composed
// hierarchically:
//
//	background:   A_t = C_t                         (camera: zoom z_t about the image centre c, pan t_t)
//	object body:  A_t = C_t ∘ T(C_τ⁻¹ p_τ) ∘ R(θ_τ) ∘ S(s_τ),  τ = τ(t)
//	walker torso: A_t = C_t ∘ T(w₀ + (s·u·(t − t_m), h(t))) ∘ R(λ)
//	limb:         A_t = A_t(parent) ∘ T(j) ∘ R(φ_t)
//
// with C_t(w) = z_t (w − c) + c + t_t, p_t the planned image-space path of an
// object (straight lines through the image centre region, so that objects
// cross and occlude each other), θ a slow rotation, s a small scale
// oscillation, j a joint on the parent and φ_t a joint angle. τ(t) = t for
// every object but object 2, which is parked: τ(t) = t_s + ramp(t − t_s)
// stays constant until t_s (30–40 % of the sequence), so the object stands
// still in the world and moves exactly as the background, then accelerates
// to its speed (similar motion of object and background for a while).
//
// Object 1 is a walker (walker.go): torso, head, two legs (thigh, shin) and
// two arms (upper arm, forearm), walking horizontally at u px per frame in
// the world with a stance/swing gait, so that each foot rests on the ground
// (moves exactly as the background) during 75 % of its cycle while the
// torso moves on. Limbs are capsules 6–8.5 px wide at 240 px, thin but wide
// enough to be tracked on an 8 px grid; the far arm and leg are behind the
// torso, the near ones in front of it, so limbs uncover the background and
// the torso as they swing (disocclusions). These are the cases where
// Kardoost & Keuper (UAI 2021) find motion segmentation uncertain.
//
// A frame f is rendered by inverse mapping: pixel x shows the front-most
// layer L whose shape contains A_t(L)⁻¹ x, with colour texture_L(A_t(L)⁻¹ x)
// sampled bilinearly, averaged over the exposure t ∈ [f − Blur/2, f + Blur/2]
// (motion blur, 1 + ⌈8·Blur⌉ samples), times a global illumination gain g_f,
// plus Gaussian noise. The region map is that of the instant t = f with hard
// edges, so it is exact: region(x) is the object index of the front-most
// layer (0 = background).
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
	Objects       int // number of moving objects (1..MaxObjects); object 1 is a walker, object 2 parked at first
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
// ground truth every 5 frames, motion blur of half a frame: small enough for
// make demo on 2 CPU cores.
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
