package train

import (
	"context"
	"fmt"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
)

// Densifier is the pipeline.Densifier that cmd/densify hands the pipeline:
// this package's libtorch U-Net (ACCV'20 U-Net trained on the sparse labels
// with the loss weights of the variant). pipeline itself links no libtorch.
// Cutter is the graph cut behind TrainOptions.Refine "grabcut" (cmd/densify
// passes video.GrabCut); without one that refinement is refused ("graphcut"
// is pure Go and needs none). Flow is the optical flow of
// TrainOptions.Temporal (cmd/densify passes video.DenseFlow); without one a
// radius > 0 is refused.
type Densifier struct {
	Cutter refine.Cutter
	Flow   refine.Flow
}

var _ pipeline.Densifier = Densifier{}

func (Densifier) Name() string { return "unet" }

// unetTrainConfig maps the pipeline's training options onto Config
// (zero values keep DefaultConfig).
func unetTrainConfig(o pipeline.TrainOptions, variant string, resume bool) (Config, error) {
	cfg := DefaultConfig()
	if o.Preset != "" {
		cfg.Preset = o.Preset
	}
	if o.Epochs > 0 {
		cfg.Epochs = o.Epochs
	}
	if o.StepBudget != nil {
		cfg.StepBudget = *o.StepBudget
	}
	if o.LR > 0 {
		cfg.LR = o.LR
	}
	if o.BatchSize > 0 {
		cfg.Batch = o.BatchSize
	}
	if o.Device != "" {
		cfg.Device = o.Device
	}
	cfg.Scale, cfg.Seed, cfg.Threads, cfg.NoFlip = o.Scale, o.Seed, o.Threads, o.NoFlip
	cfg.Resume = resume
	if variant != "" {
		v, err := ParseVariant(variant)
		if err != nil {
			return cfg, err
		}
		cfg.Variant = v
	}
	return cfg, nil
}

func (Densifier) Train(ctx context.Context, req pipeline.TrainRequest) (*pipeline.TrainResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := unetTrainConfig(req.Options, req.Variant, req.Resume)
	if err != nil {
		return nil, err
	}
	cfg.HardFactor, cfg.HardPhi = req.Factor, req.Phi
	cfg.Joint = true // one model over the given sets (the pipeline passes one set per sequence)
	sum, err := Run(ctx, cfg, req.Sets, req.Out, req.Progress)
	if err != nil {
		return nil, err
	}
	return &pipeline.TrainResult{Checkpoint: sum.Checkpoint, Epochs: sum.Epochs, FinalLoss: sum.FinalLoss}, nil
}

func (d Densifier) Predict(ctx context.Context, req pipeline.PredictRequest) error {
	o := req.Options
	po := PredictOptions{
		Prob: o.ProbMaps, Overlay: o.Overlays, Preset: o.Preset, Device: o.Device, Threads: o.Threads, PriorShift: o.PriorShift,
		Mirror: o.Mirror, Progress: req.Progress}
	if err := po.SetRefine(o.Refine, d.Cutter); err != nil {
		return err
	}
	if err := po.SetTemporal(o.Temporal, d.Flow); err != nil {
		return err
	}
	return Predict(req.Checkpoint, req.Frames, req.Out, po)
}

// SetRefine sets Refine for a refinement named as in pipeline.RefineMethods:
// "graphcut" is refine.ProbCut with refine.DefaultCutOptions, "grabcut"
// refine.TrimapCut with c and refine.DefaultOptions (an error when c is
// nil); "none" and "" clear it.
func (o *PredictOptions) SetRefine(method string, c refine.Cutter) error {
	if err := pipeline.CheckRefine(method); err != nil {
		return err
	}
	switch method {
	case "", "none":
		o.Refine = nil
	case "graphcut":
		o.Refine = refine.ProbCut{Options: refine.DefaultCutOptions()}
	case "grabcut":
		if c == nil {
			return fmt.Errorf("predict: refinement %q needs a graph cut, and this densifier has none", method)
		}
		o.Refine = refine.TrimapCut{Cutter: c, Options: refine.DefaultOptions()}
	default:
		return fmt.Errorf("predict: refinement %q is not implemented by this densifier", method)
	}
	return nil
}

// SetTemporal sets Temporal and TemporalOptions for a fusion radius as in
// pipeline.TrainOptions.Temporal: 0 clears them; K > 0 fuses K frames on each
// side along f with refine.DefaultTemporalOptions' consistency test (an
// error when f is nil).
func (o *PredictOptions) SetTemporal(radius int, f refine.Flow) error {
	to := refine.DefaultTemporalOptions()
	to.Radius = radius
	if err := to.Validate(); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	if radius == 0 {
		o.Temporal, o.TemporalOptions = nil, refine.TemporalOptions{}
		return nil
	}
	if f == nil {
		return fmt.Errorf("predict: temporal fusion needs an optical flow, and this densifier has none")
	}
	o.Temporal, o.TemporalOptions = f, to
	return nil
}
