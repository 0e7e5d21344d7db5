package refine

import (
	"errors"
	"image"
)

// Refiner refines one frame's binary mask: mask (W·H values, non-zero =
// object) is the network's decision, prob (W·H values in [0, 1]) its
// foreground probability, of which mask is the threshold at ½. It returns
// the refined mask (0/1) and what changed; the inputs are not modified.
type Refiner interface {
	Refine(img image.Image, mask []uint8, prob []float32) ([]uint8, Stats, error)
	// Validate checks the settings before any frame is refined.
	Validate() error
}

// TrimapCut is the refinement "grabcut": Mask with Cutter and Options (the
// probabilities are not used beyond the mask).
type TrimapCut struct {
	Cutter  Cutter
	Options Options
}

// ProbCut is the refinement "graphcut": GraphCut with Options on the
// network's probabilities (the mask is their threshold and not used).
type ProbCut struct{ Options CutOptions }

var (
	_ Refiner = TrimapCut{}
	_ Refiner = ProbCut{}
)

func (t TrimapCut) Refine(img image.Image, mask []uint8, _ []float32) ([]uint8, Stats, error) {
	return Mask(img, mask, t.Options, t.Cutter)
}

func (t TrimapCut) Validate() error {
	if t.Cutter == nil {
		return errors.New("refine: no graph cut (Cutter) given")
	}
	return t.Options.Validate()
}

func (p ProbCut) Refine(img image.Image, _ []uint8, prob []float32) ([]uint8, Stats, error) {
	return GraphCut(img, prob, p.Options)
}

func (p ProbCut) Validate() error { return p.Options.Validate() }
