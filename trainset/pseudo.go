package trainset

import (
	"fmt"
	"image"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/morph"
)

// PseudoOptions selects the dense labels of a self-training round from the
// masks and the foreground probabilities the previous round predicted
// (pseudo-labels: Lee, ICML-W 2013; kept only where confident, as in
// Zou et al., ECCV 2018, class-balanced self-training).
type PseudoOptions struct {
	// Confidence τ ∈ (0.5, 1): a foreground pixel of the mask is kept where
	// its probability is ≥ τ, a background pixel where it is ≤ 1 − τ.
	// τ = 0 keeps every pixel of the mask outside the band, whatever its
	// probability: the refined mask alone is the label, so the round also
	// learns what the refinement added to or took from the network's map
	// (where the probability disagrees with the mask, which τ > 0.5 leaves
	// unlabelled), and no probability map is read.
	Confidence float64 `json:"confidence"`
	// Band: pixels closer than Band (pixels, Euclidean) to a pixel of the
	// other class of the mask stay unlabelled, where the refined boundary
	// is least sure.
	Band float64 `json:"band"`
	// KeepCut also keeps, with τ > 0, the pixels where the refinement
	// overruled the network: a foreground pixel of the mask with p < ½ (the
	// cut added it) and a background pixel with p > ½ (the cut took it), so
	// that only the pixels on which both agree without confidence stay
	// unlabelled.
	KeepCut bool `json:"keep_cut,omitempty"`
}

// DefaultPseudoOptions are the self-training labels' defaults: τ = 0.9 and a
// band of 5 px at the frames' resolution.
func DefaultPseudoOptions() PseudoOptions { return PseudoOptions{Confidence: 0.9, Band: 5} }

// Validate refuses a confidence other than 0 outside (0.5, 1) and a
// negative band.
func (o PseudoOptions) Validate() error {
	if !(o.Confidence == 0 || o.Confidence > 0.5 && o.Confidence < 1) {
		return fmt.Errorf("self-training confidence must be 0 (the mask alone) or in (0.5, 1), got %g", o.Confidence)
	}
	if !(o.Band >= 0 && o.Band <= 1e4) {
		return fmt.Errorf("self-training band must be in [0, 10000] px, got %g", o.Band)
	}
	return nil
}

// ReadsProb reports whether the labels read the probability maps: for
// every τ but 0 (the mask alone).
func (o PseudoOptions) ReadsProb() bool { return o.Confidence != 0 }

// PseudoLabels are the dense labels of one W×H frame from its predicted
// binary mask (true: foreground) and foreground probabilities: 1 where the
// mask is foreground, p ≥ τ and no background pixel of the mask lies within
// the band; 0 where the mask is background, p ≤ 1 − τ and no foreground
// pixel lies within the band; Unlabelled elsewhere. With KeepCut, p < ½
// also keeps a foreground pixel and p > ½ a background one. With τ = 0 the
// probabilities are not read (prob may be nil).
func PseudoLabels(mask []bool, prob []float32, W, H int, o PseudoOptions) []int16 {
	out := make([]int16, W*H)
	b2 := o.Band * o.Band
	var toBG, toFG []float64 // squared distances to the nearest background / foreground pixel
	if o.Band > 0 {
		toBG = morph.SquaredDistance(mask, W, H, false)
		toFG = morph.SquaredDistance(mask, W, H, true)
	}
	tau := float32(o.Confidence)
	for i, fg := range mask {
		out[i] = Unlabelled
		switch {
		case fg && (tau == 0 || prob[i] >= tau || o.KeepCut && prob[i] < 0.5) && (toBG == nil || toBG[i] >= b2):
			out[i] = 1
		case !fg && (tau == 0 || prob[i] <= 1-tau || o.KeepCut && prob[i] > 0.5) && (toFG == nil || toFG[i] >= b2):
			out[i] = 0
		}
	}
	return out
}

// ReadPseudoLabels reads frame's mask (dir/NNNNN.png, 0-based frame index,
// as densify predict writes it: non-zero is foreground) and, unless τ = 0,
// its probability map (dir/prob/NNNNN.png, grey ×255) and returns
// PseudoLabels; both must be W×H.
func ReadPseudoLabels(dir string, frame, W, H int, o PseudoOptions) ([]int16, error) {
	name := fmt.Sprintf("%05d.png", frame)
	mp, pp := filepath.Join(dir, name), filepath.Join(dir, "prob", name)
	mi, err := readSized(mp, W, H)
	if err != nil {
		return nil, err
	}
	mask := make([]bool, W*H)
	b := mi.Bounds()
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r, g, bl, _ := mi.At(b.Min.X+x, b.Min.Y+y).RGBA()
			mask[y*W+x] = r|g|bl != 0
		}
	}
	if !o.ReadsProb() {
		return PseudoLabels(mask, nil, W, H, o), nil
	}
	pi, err := readSized(pp, W, H)
	if err != nil {
		return nil, fmt.Errorf("%w (self-training reads the probability maps that predict writes with prob maps on)", err)
	}
	return PseudoLabels(mask, dataset.ProbabilityValues(pi), W, H, o), nil
}

// readSized reads an image that must be W×H.
func readSized(path string, W, H int) (image.Image, error) {
	img, err := dataset.ReadImage(path)
	if err != nil {
		return nil, err
	}
	if b := img.Bounds(); b.Dx() != W || b.Dy() != H {
		return nil, fmt.Errorf("%s: image is %dx%d, but the frames are %dx%d", path, b.Dx(), b.Dy(), W, H)
	}
	return img, nil
}
