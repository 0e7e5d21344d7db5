package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/train"
	"github.com/densify/densify/trajectory"
)

// unetDensifier is the pipeline.Densifier that the composition root hands
// the pipeline: package train's libtorch U-Net (ACCV'20 U-Net trained on
// the sparse labels with the loss weights of the variant). pipeline itself
// links no libtorch, and train does not import the pipeline. Cutter is the
// graph cut behind TrainOptions.Refine "grabcut" (NewFactory passes
// video.GrabCut); without one that refinement is refused ("graphcut" is
// pure Go and needs none). Flow is the optical flow of
// TrainOptions.Temporal (NewFactory passes video.DenseFlow); without one a
// radius > 0 is refused.
type unetDensifier struct {
	Cutter refine.Cutter
	Flow   refine.Flow
}

var _ pipeline.Densifier = unetDensifier{}

func (unetDensifier) Name() string { return "unet" }

// unetRequestConfig maps one training request onto train.Config: its
// options (unetTrainConfig), the hard examples' factor and φ, the
// checkpoint it starts from (a round's previous model, or the first
// training's starting weights) and a round's pseudo-labels.
func unetRequestConfig(req pipeline.TrainRequest) (train.Config, error) {
	cfg, err := unetTrainConfig(req.Options, req.Variant, req.Resume)
	if err != nil {
		return cfg, err
	}
	cfg.HardFactor, cfg.HardPhi = req.Factor, req.Phi
	cfg.Init = req.Init
	if len(req.Pseudo) > 0 {
		cfg.Pseudo = req.Pseudo
		cfg.PseudoOptions, cfg.PseudoWeight = req.Options.PseudoOrDefault(), req.Options.PseudoWeight
	}
	cfg.Joint = true // one model over the given sets (the pipeline passes one set per sequence)
	return cfg, nil
}

// unetTrainConfig maps the pipeline's training options onto train.Config
// (zero values keep train.DefaultConfig).
func unetTrainConfig(o pipeline.TrainOptions, variant string, resume bool) (train.Config, error) {
	cfg := train.DefaultConfig()
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
	cfg.Average = o.Average
	cfg.KeepEpochs = 1 // the pipeline resumes a killed training only; model.ckpt's average keeps what it reads
	if o.Schedule != "" {
		s, err := train.ParseSchedule(o.Schedule)
		if err != nil {
			return cfg, err
		}
		cfg.Schedule = s
	}
	if o.BatchSize > 0 {
		cfg.Batch = o.BatchSize
	}
	if o.Device != "" {
		cfg.Device = o.Device
	}
	cfg.Scale, cfg.Seed, cfg.Threads, cfg.NoFlip = o.Scale, o.Seed, o.Threads, o.NoFlip
	cfg.CRFWeight = o.CRFWeight
	cfg.Resume = resume
	if variant != "" {
		v, err := train.ParseVariant(variant)
		if err != nil {
			return cfg, err
		}
		cfg.Variant = v
	}
	return cfg, nil
}

func (unetDensifier) Train(ctx context.Context, req pipeline.TrainRequest) (*pipeline.TrainResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := unetRequestConfig(req)
	if err != nil {
		return nil, err
	}
	sum, err := train.Run(ctx, cfg, req.Sets, req.Out, req.Progress)
	if err != nil {
		return nil, err
	}
	return &pipeline.TrainResult{Checkpoint: sum.Checkpoint, Epochs: sum.Epochs, FinalLoss: sum.FinalLoss}, nil
}

// unetPredictOptions maps the pipeline's prediction options onto
// train.PredictOptions, with the refinement named by o.Refine (the graph
// cut with o's settings, or GrabCut with c); the temporal fusion is set
// apart, as it needs the flows.
func unetPredictOptions(o pipeline.TrainOptions, c refine.Cutter) (train.PredictOptions, error) {
	po := train.PredictOptions{
		Prob: o.ProbMaps, Overlay: o.Overlays, Preset: o.Preset, Device: o.Device, Threads: o.Threads, PriorShift: o.PriorShift,
		Mirror: o.Mirror}
	return po, setRefine(&po, o.Refine, o.CutOrDefault(), c)
}

func (d unetDensifier) Predict(ctx context.Context, req pipeline.PredictRequest) error {
	o := req.Options
	po, err := unetPredictOptions(o, d.Cutter)
	if err != nil {
		return err
	}
	po.Progress = req.Progress
	flow := d.Flow
	if o.Temporal > 0 {
		flow, _ = storedFlow(flow, req.Flows, req.Frames, false) // without the store, the flows are computed
	}
	if err := po.SetTemporal(o.Temporal, flow, o.ComposeFlows); err != nil {
		return err
	}
	return train.Predict(req.Checkpoint, req.Frames, req.Out, po)
}

// describedFlow is a flow that says which fields it computes (video.DenseFlow).
type describedFlow interface {
	refine.Flow
	Description() string
}

// storedFlow is f reading the fields of the flow store in dir (the
// tracker's) when the store was made by the same flow for these frames;
// otherwise f itself, with the reason the store is not read (nil when f
// describes no fields or dir is ""). With keep, f also writes the fields it
// computes into the store, and a dir without a store becomes one: a cache
// of the flows for the next prediction of the same frames.
func storedFlow(f refine.Flow, dir string, frames []string, keep bool) (refine.Flow, error) {
	df, ok := f.(describedFlow)
	if !ok || dir == "" || len(frames) == 0 {
		return f, nil
	}
	w, h, err := dataset.ImageSize(frames[0])
	if err != nil {
		return f, err
	}
	m, err := trajectory.NewFlowManifest(frames, df.Description(), w, h)
	if err != nil {
		return f, err
	}
	store, err := trajectory.OpenFlowStore(dir, m)
	if keep && errors.Is(err, fs.ErrNotExist) {
		store, err = trajectory.CreateFlowStore(dir, m)
	}
	if err != nil {
		return f, err
	}
	return refine.StoredFlow{Store: store, Compute: f, Keep: keep}, nil
}

// setRefine sets o.Refine for a refinement named as in
// pipeline.RefineMethods: "graphcut" is refine.ProbCut with cut (which
// train.PredictOptions.Validate checks), "grabcut" refine.TrimapCut with c and
// refine.DefaultOptions (an error when c is nil); "none" and "" clear it.
func setRefine(o *train.PredictOptions, method string, cut refine.CutOptions, c refine.Cutter) error {
	if err := pipeline.CheckRefine(method); err != nil {
		return err
	}
	switch method {
	case "", "none":
		o.Refine = nil
	case "graphcut":
		o.Refine = refine.ProbCut{Options: cut}
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
