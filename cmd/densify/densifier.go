package main

import (
	"context"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/train"
)

// unetDensifier is the pipeline.Densifier of the composition root: the
// libtorch U-Net of package train (ACCV'20 U-Net trained on the sparse labels
// with the prepared loss weights). pipeline itself links no libtorch.
type unetDensifier struct{}

func (unetDensifier) Name() string { return "unet" }

// unetTrainConfig maps the pipeline's training options onto train.Config
// (zero values keep train.DefaultConfig).
func unetTrainConfig(o pipeline.TrainOptions, uniform, resume bool) train.Config {
	cfg := train.DefaultConfig()
	if o.Preset != "" {
		cfg.Preset = o.Preset
	}
	if o.Epochs > 0 {
		cfg.Epochs = o.Epochs
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
	cfg.Variant, cfg.Resume = train.VariantHard, resume
	if uniform {
		cfg.Variant = train.VariantUniform
	}
	return cfg
}

func (unetDensifier) Train(ctx context.Context, req pipeline.TrainRequest) (*pipeline.TrainResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg := unetTrainConfig(req.Options, req.Uniform, req.Resume)
	cfg.Joint = true // one model over the given sets (the pipeline passes one set per sequence)
	sum, err := train.Run(ctx, cfg, req.Sets, req.Out, req.Progress)
	if err != nil {
		return nil, err
	}
	return &pipeline.TrainResult{Checkpoint: sum.Checkpoint, Epochs: sum.Epochs, FinalLoss: sum.FinalLoss}, nil
}

func (unetDensifier) Predict(ctx context.Context, req pipeline.PredictRequest) error {
	o := req.Options
	return train.Predict(req.Checkpoint, req.Frames, req.Out, train.PredictOptions{
		Prob: o.ProbMaps, Overlay: o.Overlays, Preset: o.Preset, Device: o.Device, Threads: o.Threads,
		Progress: req.Progress})
}
