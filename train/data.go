package train

import (
	"fmt"
	"image"
	"math"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/uncertainty"
	"github.com/densify/densify/unet"
)

// sample is one training frame at training resolution (after the input scale).
type sample struct {
	set, frame int    // index of the set in the list, frame number in its manifest
	W, H       int    // training resolution
	RGB        []byte // 3·W·H, planar R, G, B (bytes keep a long sequence small)
	Labels     []int16
	Weights    []float32 // loss weights of the variant (Variant.Weight), 0 where unlabelled
	Hard       []uint8
	SumW       float64 // Σ weights
	// Edges is the frame's Sobel edge map (unet.SobelPlanes, W·H) when the
	// model has the edge channel (setEdges), else nil.
	Edges []float32
	// classW, classN: Σ base weight and labelled pixels per class at the
	// set's resolution (trainData.PriorShift); prunedN: of which VariantPrune
	// drops the labels (nil for other variants)
	classW, classN, prunedN []float64
}

// dataset is every training frame of one model.
type trainData struct {
	Mode     string // "binary" or "multi"
	Classes  int    // output channels: 1 (binary) or K
	Samples  []*sample
	Labelled int // labelled pixels at training resolution over all frames
	Hard     int
	Pseudo   int // of which labelled by the self-training round (weighting.Pseudo)
	// classW and classN sum the base weights (class balance) and count the
	// labelled pixels of every class at the sets' resolution (PriorShift).
	classW, classN []float64
	// prunedN counts, per class at the sets' resolution, the labelled
	// pixels whose labels VariantPrune drops (nil for other variants).
	prunedN []float64
}

// PriorShift is the factor by which the class balance multiplies the odds of
// every class against the background (class 0): s_c = w̄_c / w̄_0 with w̄_c
// the mean base weight of the labelled pixels of class c. A network trained
// with Σ w ℓ / Σ w on these weights estimates the posterior of a training
// distribution in which class c is s_c times as frequent relative to the
// background; dividing its odds by s_c undoes that prior shift (Saerens,
// Latinne, Decaestecker, Neural Computation 2002; "logit adjustment", Menon
// et al., ICLR 2021). Classes without labelled pixels get 1. Binary sets
// give [1, s_1].
func (d *trainData) PriorShift() []float64 {
	out := make([]float64, len(d.classN))
	for c := range out {
		out[c] = 1
		if d.classN[c] > 0 && d.classN[0] > 0 && d.classW[0] > 0 {
			out[c] = (d.classW[c] / d.classN[c]) / (d.classW[0] / d.classN[0])
		}
	}
	return out
}

// loadSets reads the prepared sets (trainset.Set.Write layout) and builds the
// training samples at scale, with the loss weights of variant v.
func loadSets(dirs []string, scale float64, wt weighting) (*trainData, error) {
	v := wt.Variant
	d := &trainData{}
	for si, dir := range dirs {
		m, err := trainset.ReadManifest(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		if m.Version < 2 {
			return nil, fmt.Errorf("%s: prepared set of format version %d, which has the hard-example factor in its weights; this densify needs version ≥ 2 (base weights and hard mask apart): run densify prepare again", dir, m.Version)
		}
		if (v.NeedsUncertainty() || wt.redraw()) && m.Version < 3 {
			return nil, fmt.Errorf("%s: prepared set of format version %d has no per-pixel uncertainty, which the %s variant needs (version %d): run densify prepare again", dir, m.Version, v, trainset.FormatVersion)
		}
		if wt.needsGamma() && m.Version < 4 {
			return nil, fmt.Errorf("%s: prepared set of format version %d has no per-pixel γ, which the %s variant needs at temperature %g (version %d): run densify prepare again", dir, m.Version, v, wt.Temperature, trainset.FormatVersion)
		}
		if v == VariantPrune {
			if wt.pruneBelow, err = pruneThreshold(dir, m, wt.Prune); err != nil {
				return nil, err
			}
		}
		switch m.Mode {
		case "binary", "multi":
		default:
			return nil, fmt.Errorf("%s: unknown mode %q in manifest.json (binary or multi)", dir, m.Mode)
		}
		if d.Mode == "" {
			d.Mode = m.Mode
		} else if d.Mode != m.Mode {
			return nil, fmt.Errorf("%s: %s set cannot be trained jointly with %s sets", dir, m.Mode, d.Mode)
		}
		classes := 1
		if m.Mode == "multi" {
			classes = m.Classes
		}
		d.Classes = max(d.Classes, classes)
		var setSamples []*sample
		for _, mf := range m.Frames {
			s, err := loadFrame(dir, m, mf, scale, wt)
			if err != nil {
				return nil, err
			}
			s.set = si
			setSamples = append(setSamples, s)
		}
		if si < len(wt.Pseudo) {
			n, err := addPseudo(setSamples, m, wt.Pseudo[si], wt.PseudoOptions, wt.PseudoWeight)
			if err != nil {
				return nil, err
			}
			d.Pseudo += n
		}
		for _, s := range setSamples {
			d.classW = addPerClass(d.classW, s.classW)
			d.classN = addPerClass(d.classN, s.classN)
			d.prunedN = addPerClass(d.prunedN, s.prunedN)
			if s.SumW == 0 {
				continue // a frame without labelled pixel contributes nothing
			}
			for i, l := range s.Labels {
				if l >= 0 {
					d.Labelled++
					if s.Hard[i] == 1 {
						d.Hard++
					}
				}
			}
			d.Samples = append(d.Samples, s)
		}
	}
	if len(d.Samples) == 0 {
		return nil, fmt.Errorf("%v: the prepared set has no labelled pixel with a positive weight: nothing to train on", dirs)
	}
	var present []int
	for c, n := range d.classN {
		if n > 0 {
			present = append(present, c)
		}
	}
	if len(present) < 2 {
		what := "every labelled pixel is background (class 0): there is no moving object to learn"
		if len(present) == 1 && present[0] != 0 {
			what = fmt.Sprintf("every labelled pixel is of class %d: there is no background to learn", present[0])
		}
		return nil, fmt.Errorf("%v: %s; a model needs two classes (densify prepare warns when it writes such a set, e.g. when --min-segment drops every segment but the background)", dirs, what)
	}
	return d, nil
}

// addPseudo adds the self-training labels of folder dir
// (trainset.ReadPseudoLabels) to the samples of the set of manifest m, at
// their training resolution (the label at the centre of each training
// pixel), where the set leaves a pixel unlabelled. The n_c pseudo-labelled
// pixels of class c each weigh λ·S_c / n_c, S_c being the total weight of
// the set's own labels of class c, so that each class's pseudo-labels
// together weigh λ times its sparse labels. It returns the number of
// pseudo-labelled pixels.
func addPseudo(samples []*sample, m *trainset.Manifest, dir string, o trainset.PseudoOptions, lambda float64) (int, error) {
	if m.Mode != "binary" {
		return 0, fmt.Errorf("%s: self-training labels are binary masks, but the set is %s", dir, m.Mode)
	}
	W, H := m.Width, m.Height
	var sparse, count [2]float64
	pseudo := make([][]int16, len(samples))
	for k, s := range samples {
		full, err := trainset.ReadPseudoLabels(dir, s.frame, W, H, o)
		if err != nil {
			return 0, err
		}
		p := make([]int16, s.W*s.H)
		for ty := 0; ty < s.H; ty++ {
			y := min(H-1, int((float64(ty)+0.5)*float64(H)/float64(s.H)))
			for tx := 0; tx < s.W; tx++ {
				x := min(W-1, int((float64(tx)+0.5)*float64(W)/float64(s.W)))
				j := ty*s.W + tx
				p[j] = trainset.Unlabelled
				if l := s.Labels[j]; l >= 0 {
					if l < 2 {
						sparse[l] += float64(s.Weights[j])
					}
					continue
				}
				if c := full[y*W+x]; c >= 0 {
					p[j] = c
					count[c]++
				}
			}
		}
		pseudo[k] = p
	}
	var w [2]float32
	for c := range w {
		if count[c] > 0 {
			w[c] = float32(lambda * sparse[c] / count[c])
		}
	}
	n := 0
	for k, s := range samples {
		for j, c := range pseudo[k] {
			if c < 0 || w[c] <= 0 {
				continue
			}
			s.Labels[j], s.Weights[j] = c, w[c]
			s.SumW += float64(w[c])
			n++
		}
	}
	return n, nil
}

// weighting selects the loss weights: the variant and, for VariantHard and
// VariantHardRight, an optional factor (> 0) and φ (≥ 0) replacing the
// set's; the temperature, pruned fraction and minimum probability of being
// right of the calibrated variants (Config.Temperature, Prune, MinRight);
// and, set per prepared set by loadSets, the γ below which VariantPrune
// drops a label.
type weighting struct {
	Variant     Variant
	Factor      float64
	Phi         float64
	Temperature float64
	Prune       float64
	MinRight    float64
	ErrorModel  *uncertainty.ErrorModel // VariantHardRight
	pruneBelow  float32
	// the self-training labels (Config.Pseudo, PseudoOptions, PseudoWeight)
	Pseudo        []string
	PseudoOptions trainset.PseudoOptions
	PseudoWeight  float64
}

// redraw reports whether the hard examples are redrawn for another φ.
func (w weighting) redraw() bool {
	return (w.Variant == VariantHard || w.Variant == VariantHardRight) && w.Phi >= 0
}

// needsGamma reports whether the weights read γ (_gamma.npy, format ≥ 4).
func (w weighting) needsGamma() bool { return w.Variant.NeedsGamma(w.Temperature) }

// pruneThreshold is the γ below which VariantPrune drops the labels of the
// set in dir: the ⌊q·n⌋-th smallest of the n values of its gamma.npy
// (ascending), −∞ (nothing dropped) when ⌊q·n⌋ = 0.
func pruneThreshold(dir string, m *trainset.Manifest, q float64) (float32, error) {
	if m.TrajectoryGamma == "" {
		return 0, fmt.Errorf("%s: manifest.json names no trajectory γ file (gamma.npy): run densify prepare again", dir)
	}
	p := filepath.Join(dir, m.TrajectoryGamma)
	a, err := npy.Read(p)
	if err != nil {
		return 0, err
	}
	if a.F32 == nil || len(a.Shape) != 1 {
		return 0, fmt.Errorf("%s: want a float32 vector of γ, one per trajectory", p)
	}
	g := a.F32
	for i, x := range g {
		if math.IsNaN(float64(x)) || (i > 0 && x < g[i-1]) {
			return 0, fmt.Errorf("%s: γ must be ascending numbers; entry %d is %v after %v", p, i, x, g[max(i-1, 0)])
		}
	}
	k := int(q * float64(len(g)))
	if k == 0 {
		return float32(math.Inf(-1)), nil
	}
	return g[k], nil
}

// readFrameArray reads the per-pixel array rel of the prepared set in dir,
// which must have the W×H frame size of its manifest; it returns the
// array and its path.
func readFrameArray(dir, rel string, W, H int) (*npy.Array, string, error) {
	p := filepath.Join(dir, rel)
	a, err := npy.Read(p)
	if err != nil {
		return nil, p, err
	}
	if len(a.Shape) != 2 || a.Shape[0] != H || a.Shape[1] != W {
		return nil, p, fmt.Errorf("%s: array of shape %v, but the manifest says frames are %dx%d (shape [%d %d])", p, a.Shape, W, H, H, W)
	}
	return a, p, nil
}

func loadFrame(dir string, m *trainset.Manifest, mf trainset.ManifestFrame, scale float64, wt weighting) (*sample, error) {
	v := wt.Variant
	W, H := m.Width, m.Height
	read := func(rel string) (*npy.Array, string, error) { return readFrameArray(dir, rel, W, H) }
	la, lp, err := read(mf.Labels)
	if err != nil {
		return nil, err
	}
	wa, wp, err := read(mf.Weights)
	if err != nil {
		return nil, err
	}
	ha, hp, err := read(mf.Hard)
	if err != nil {
		return nil, err
	}
	if la.Int16 == nil {
		return nil, fmt.Errorf("%s: labels must be int16", lp)
	}
	if wa.F32 == nil {
		return nil, fmt.Errorf("%s: weights must be float32", wp)
	}
	if ha.U8 == nil {
		return nil, fmt.Errorf("%s: hard mask must be uint8", hp)
	}
	// readF32 reads a per-pixel float32 array that the manifest names rel,
	// every value of which must pass ok (want says what passes).
	readF32 := func(rel, what, want string, ok func(float32) bool) ([]float32, error) {
		if rel == "" {
			return nil, fmt.Errorf("%s: manifest.json lists no %s file for frame %d", dir, what, mf.Frame)
		}
		ua, up, err := read(rel)
		if err != nil {
			return nil, err
		}
		if ua.F32 == nil {
			return nil, fmt.Errorf("%s: %s must be float32", up, what)
		}
		for i, x := range ua.F32 {
			if !ok(x) {
				return nil, fmt.Errorf("%s: pixel (%d,%d) has %s %v, want %s", up, i%W, i/W, what, x, want)
			}
		}
		return ua.F32, nil
	}
	readU := func(rel, what string) ([]float32, error) {
		return readF32(rel, what, "a value in [0,1]", func(x float32) bool { return x >= 0 && x <= 1 })
	}
	var u, mu, gamma []float32
	if v.NeedsUncertainty() || wt.redraw() {
		if u, err = readU(mf.U, "uncertainty"); err != nil {
			return nil, err
		}
	}
	if wt.needsGamma() {
		if gamma, err = readF32(mf.Gamma, "γ", "a number or ±inf", func(x float32) bool { return x == x }); err != nil {
			return nil, err
		}
	}
	if wt.redraw() || v == VariantHardRight {
		if mu, err = readU(mf.Mu, "segment uncertainty"); err != nil {
			return nil, err
		}
	}
	if wt.redraw() {
		// the hard examples of trainset.Prepare for φ = wt.Phi
		for i := range ha.U8 {
			ha.U8[i] = 0
			if la.Int16[i] >= 0 && uncertainty.HardExample(float64(u[i]), float64(mu[i]), wt.Phi) {
				ha.U8[i] = 1
			}
		}
	}
	factor := m.Options.Factor
	if wt.Factor > 0 {
		factor = wt.Factor
	}
	classes := m.Classes
	if m.Mode == "binary" {
		classes = 2
	}
	weights := make([]float32, W*H)
	classW, classN := make([]float64, classes), make([]float64, classes)
	var prunedN []float64
	if v == VariantPrune {
		prunedN = make([]float64, classes)
	}
	for i, l := range la.Int16 {
		w := wa.F32[i]
		if l < 0 {
			continue
		}
		if int(l) >= classes {
			return nil, fmt.Errorf("%s: pixel (%d,%d) has class %d, but the set has %d classes", lp, i%W, i/W, l, classes)
		}
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) || w < 0 {
			return nil, fmt.Errorf("%s: pixel (%d,%d) has weight %v, want a finite value ≥ 0", wp, i%W, i/W, w)
		}
		classW[l] += float64(w)
		classN[l]++
		pw := PixelWeight{Base: w, Hard: ha.U8[i] == 1, Factor: factor}
		if u != nil {
			pw.U, pw.UT = u[i], u[i]
		}
		if gamma != nil {
			if wt.Temperature > 0 {
				pw.UT = float32(uncertainty.TemperedU(float64(gamma[i]), wt.Temperature))
			}
			pw.Pruned = gamma[i] < wt.pruneBelow
			if prunedN != nil && pw.Pruned {
				prunedN[l]++
			}
			if wt.ErrorModel != nil && pw.Hard { // Weight reads Right at hard examples only
				pw.Right = 1-wt.ErrorModel.PWrong(float64(gamma[i]), float64(mu[i])) >= wt.MinRight
			}
		}
		weights[i] = v.Weight(pw)
	}
	img, err := dataset.ReadImage(mf.Image)
	if err != nil {
		return nil, fmt.Errorf("%s: frame %d: %w", dir, mf.Frame, err)
	}
	if b := img.Bounds(); b.Dx() != W || b.Dy() != H {
		return nil, fmt.Errorf("%s: frame is %dx%d but the labels of %s are %dx%d", mf.Image, b.Dx(), b.Dy(), lp, W, H)
	}
	w2, h2 := scaledSize(W, H, scale)
	s := &sample{frame: mf.Frame, W: w2, H: h2, classW: classW, classN: classN, prunedN: prunedN}
	s.RGB = resizeRGB(img, w2, h2)
	s.Labels, s.Weights, s.Hard = scaleLabels(la.Int16, weights, ha.U8, W, H, w2, h2)
	for _, w := range s.Weights {
		s.SumW += float64(w)
	}
	return s, nil
}

// scaledSize is the training resolution of a W×H frame at scale s:
// round(W·s) × round(H·s), at least 1.
func scaledSize(W, H int, s float64) (int, int) {
	if s == 1 {
		return W, H
	}
	return max(1, int(math.Round(float64(W)*s))), max(1, int(math.Round(float64(H)*s)))
}

// resizeRGB resamples img to w×h by bilinear interpolation with pixel centres
// aligned (source coordinate x_s = (x + ½)·W/w − ½, clamped to the image), the
// convention of libtorch's upsample_bilinear2d with align_corners = false. At
// scale ½ this is the exact mean of each 2×2 block. The result is planar RGB.
func resizeRGB(img image.Image, w, h int) []byte {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	src := make([]float32, 3*W*H)
	at := rgbaAt(img)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r, g, bl := at(b.Min.X+x, b.Min.Y+y)
			src[y*W+x] = float32(r >> 8)
			src[W*H+y*W+x] = float32(g >> 8)
			src[2*W*H+y*W+x] = float32(bl >> 8)
		}
	}
	out := make([]byte, 3*w*h)
	if w == W && h == H {
		for i, v := range src {
			out[i] = byte(v)
		}
		return out
	}
	coord := func(o, n, N int) (int, int, float32) {
		s := (float64(o)+0.5)*float64(N)/float64(n) - 0.5
		s = math.Max(0, math.Min(s, float64(N-1)))
		i0 := int(s)
		i1 := min(i0+1, N-1)
		return i0, i1, float32(s - float64(i0))
	}
	for y := 0; y < h; y++ {
		y0, y1, fy := coord(y, h, H)
		for x := 0; x < w; x++ {
			x0, x1, fx := coord(x, w, W)
			for c := 0; c < 3; c++ {
				p := src[c*W*H:]
				v := (1-fy)*((1-fx)*p[y0*W+x0]+fx*p[y0*W+x1]) + fy*((1-fx)*p[y1*W+x0]+fx*p[y1*W+x1])
				out[c*w*h+y*w+x] = byte(math.Round(float64(v)))
			}
		}
	}
	return out
}

// rgbaAt returns img.At(x, y).RGBA() without alpha, through the concrete
// pixel accessor of the common decoder outputs (JPEG: *image.YCbCr, PNG:
// *image.RGBA, *image.NRGBA, *image.Gray): the same values, without boxing
// every pixel's colour in an interface (an allocation per pixel, ≈ 10 ms for
// a 854×480 frame).
func rgbaAt(img image.Image) func(x, y int) (r, g, b uint32) {
	switch m := img.(type) {
	case *image.YCbCr:
		return func(x, y int) (uint32, uint32, uint32) { r, g, b, _ := m.YCbCrAt(x, y).RGBA(); return r, g, b }
	case *image.RGBA:
		return func(x, y int) (uint32, uint32, uint32) { r, g, b, _ := m.RGBAAt(x, y).RGBA(); return r, g, b }
	case *image.NRGBA:
		return func(x, y int) (uint32, uint32, uint32) { r, g, b, _ := m.NRGBAAt(x, y).RGBA(); return r, g, b }
	case *image.Gray:
		return func(x, y int) (uint32, uint32, uint32) { r, g, b, _ := m.GrayAt(x, y).RGBA(); return r, g, b }
	}
	return func(x, y int) (uint32, uint32, uint32) { r, g, b, _ := img.At(x, y).RGBA(); return r, g, b }
}

// scaleLabels maps sparse labels and weights from W×H to w×h. Every labelled
// pixel (x, y) goes to the pixel (⌊(x+½)·w/W⌋, ⌊(y+½)·h/H⌋) that contains its
// centre, so no label vanishes by falling between sample points (nearest
// neighbour sampling of a sparse map would drop most of them). When several
// labelled pixels land on one pixel, the one with the largest weight wins (its
// label, weight and hard flag; ties keep the first in raster order): a hard
// example is never hidden behind an easy one. Upscaling (w > W) keeps the
// labels sparse, one target pixel per source pixel.
func scaleLabels(labels []int16, weights []float32, hard []uint8, W, H, w, h int) ([]int16, []float32, []uint8) {
	if w == W && h == H {
		return labels, weights, hard
	}
	ol := make([]int16, w*h)
	ow := make([]float32, w*h)
	oh := make([]uint8, w*h)
	for i := range ol {
		ol[i] = trainset.Unlabelled
	}
	for y := 0; y < H; y++ {
		ty := min(h-1, int((float64(y)+0.5)*float64(h)/float64(H)))
		for x := 0; x < W; x++ {
			i := y*W + x
			if labels[i] < 0 || weights[i] <= 0 {
				continue
			}
			tx := min(w-1, int((float64(x)+0.5)*float64(w)/float64(W)))
			j := ty*w + tx
			if ol[j] < 0 || weights[i] > ow[j] {
				ol[j], ow[j], oh[j] = labels[i], weights[i], hard[i]
			}
		}
	}
	return ol, ow, oh
}

// batch is the input of one optimisation step: N samples of one size, flipped
// or not, as flat tensors' data.
type batch struct {
	N, C, W, H int
	X          []float32 // N·C·H·W: RGB in [0, 1], then the edge map when the samples have one (C = 4)
	Target     []float32 // N·H·W: class index (0 for unlabelled pixels, whose weight is 0)
	Weight     []float32 // N·H·W
	SumW       float64
}

// makeBatch stacks samples (all of one size), mirroring those with flip[i].
func makeBatch(ss []*sample, flip []bool) *batch { return new(batch).fill(ss, flip) }

// fill is makeBatch into b, reusing b's buffers when they are large enough
// (the trainer keeps one batch for all steps, so that a step allocates no Go
// memory of the frames' size), and returns b. Every element is written.
func (b *batch) fill(ss []*sample, flip []bool) *batch {
	W, H := ss[0].W, ss[0].H
	px := len(ss) * W * H
	grow := func(buf []float32, size int) []float32 {
		if cap(buf) < size {
			return make([]float32, size)
		}
		return buf[:size]
	}
	C := 3
	if ss[0].Edges != nil {
		C = 4
	}
	b.N, b.C, b.W, b.H, b.SumW = len(ss), C, W, H, 0
	b.X, b.Target, b.Weight = grow(b.X, C*px), grow(b.Target, px), grow(b.Weight, px)
	for n, s := range ss {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				sx := x
				if flip[n] {
					sx = W - 1 - x
				}
				si, di := y*W+sx, n*W*H+y*W+x
				for c := 0; c < 3; c++ {
					b.X[(n*C+c)*W*H+y*W+x] = float32(s.RGB[c*W*H+si]) / 255
				}
				if C == 4 {
					b.X[(n*C+3)*W*H+y*W+x] = s.Edges[si]
				}
				b.Target[di], b.Weight[di] = 0, 0
				if l := s.Labels[si]; l >= 0 {
					b.Target[di] = float32(l)
					b.Weight[di] = s.Weights[si]
				}
			}
		}
		b.SumW += s.SumW
	}
	return b
}

// setEdges computes every sample's edge map once (unet.SobelPlanes of its
// RGB): the model's fourth input channel, which Forward would otherwise
// recompute at every step (≈ 2.5 % of a step at 854×480). A mirrored sample
// gets the mirrored map (see unet's package doc). It costs 4 bytes per pixel
// and frame.
func setEdges(ss []*sample) error {
	var rgb []float32
	for _, s := range ss {
		rgb = unitRGB(rgb, s.RGB)
		e, err := unet.SobelPlanes(rgb, s.W, s.H)
		if err != nil {
			return fmt.Errorf("train: edge map of frame %d: %w", s.frame, err)
		}
		s.Edges = e
	}
	return nil
}

// unitRGB writes the 8-bit planes of resizeRGB as values in [0, 1] (v/255,
// the network's input scale) into dst, grown when too short, and returns it:
// the one conversion of frames for prediction and for the cached edge maps,
// so that both see the same values (makeBatch applies the same v/255 pixel
// by pixel while it mirrors).
func unitRGB(dst []float32, rgb []byte) []float32 {
	if cap(dst) < len(rgb) {
		dst = make([]float32, len(rgb))
	}
	dst = dst[:len(rgb)]
	for i, v := range rgb {
		dst[i] = float32(v) / 255
	}
	return dst
}

// addPerClass adds the per-class values v into sum, growing sum to v's
// classes; a nil sum stays nil for an empty v.
func addPerClass(sum, v []float64) []float64 {
	if len(sum) < len(v) {
		sum = append(sum, make([]float64, len(v)-len(sum))...)
	}
	for c, x := range v {
		sum[c] += x
	}
	return sum
}

// ClassPruned is one class of a pruned training set: its labelled pixels
// and those whose labels VariantPrune drops.
type ClassPruned struct {
	Class    int `json:"class"`
	Labelled int `json:"labelled_pixels"`
	Dropped  int `json:"dropped_pixels"`
}

// pruned lists ClassPruned per class (nil unless VariantPrune).
func (d *trainData) pruned() []ClassPruned {
	if d.prunedN == nil {
		return nil
	}
	out := make([]ClassPruned, len(d.classN))
	for c := range out {
		out[c] = ClassPruned{Class: c, Labelled: int(d.classN[c])}
		if c < len(d.prunedN) {
			out[c].Dropped = int(d.prunedN[c])
		}
	}
	return out
}
