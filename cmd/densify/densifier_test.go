package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/synth"
	"github.com/densify/densify/train"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/pflag"
	"reflect"
)

// The pipeline's default flow method is video's.
func TestPipelineDefaultFlowIsVideos(t *testing.T) {
	if pipeline.DefaultFlow != string(video.DefaultMethod) {
		t.Fatalf("pipeline.DefaultFlow %q, video.DefaultMethod %q", pipeline.DefaultFlow, video.DefaultMethod)
	}
}

// TestRunWithUNet runs the pipeline with the composition root's densifier
// (libtorch U-Net) for one epoch on a tiny synthetic sequence: masks of every
// frame, dense scores, and a predict-only rerun when only the preview and
// refinement options change.
func TestRunWithUNet(t *testing.T) {
	root := t.TempDir()
	p := synth.DefaultParams()
	// Two objects: with one, the segmentation of these eight frames finds
	// no foreground, and a training set of one class is refused.
	p.Width, p.Height, p.Frames, p.Objects, p.GTEvery = 96, 72, 8, 2, 4
	s, err := synth.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(root, "tiny"); err != nil {
		t.Fatal(err)
	}
	tracks := filepath.Join(t.TempDir(), "tinyTracks8_gt.dat")
	if err := trajectory.WriteTracks(tracks, s.GroundTruthTracks(4)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	opt := pipeline.DefaultOptions()
	opt.TracksFor = func(string) string { return tracks }
	opt.Densifier = NewFactory().Densifier // refines with graphcut (the default); GrabCut behind "grabcut"
	opt.Log, opt.Progress = &log, &log
	opt.Sparsify.Seeds, opt.HeatmapEvery, opt.Prepare.MinSegment = 2, 4, 3
	opt.Train.Epochs, opt.Train.Scale, opt.Train.Threads, opt.Train.Overlays = 1, 1, 1, false
	work := t.TempDir()
	rep, err := pipeline.Run(context.Background(), root, work, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	d := rep.Sequences[0].Dense[pipeline.DefaultVariant]
	if d == nil || d.Scores == nil || d.Train == nil || d.Train.Epochs != 1 {
		t.Fatalf("dense result %+v", d)
	}
	// the default self-training round: the first round's masks come with
	// the probability maps it trains on, and the result is the round's
	for _, dir := range []string{"masks-uniform", filepath.Join("masks-uniform", "prob"), "masks-uniform-round1"} {
		if masks, _ := filepath.Glob(filepath.Join(work, "tiny", dir, "*.png")); len(masks) != 8 {
			t.Fatalf("%s: %d masks, want 8", dir, len(masks))
		}
	}
	if len(d.Rounds) != 2 || d.Masks != "masks-uniform-round1" || d.Rounds[1].Scores == nil {
		t.Fatalf("rounds %+v, masks %s", d.Rounds, d.Masks)
	}
	var round struct {
		Pseudo int `json:"pseudo_pixels"`
	}
	if b, err := os.ReadFile(filepath.Join(work, "tiny", "model-uniform-round1", "train.json")); err != nil || json.Unmarshal(b, &round) != nil || round.Pseudo == 0 {
		t.Fatalf("the round trained on %d pseudo-labelled pixels (%v)", round.Pseudo, err)
	}
	if opt.Train.Refine != "graphcut" || opt.Train.Temporal != refine.DefaultTemporalRadius || !opt.Train.Mirror {
		t.Fatalf("default refinement %q, temporal fusion %d, mirror %v", opt.Train.Refine, opt.Train.Temporal, opt.Train.Mirror)
	}
	// A change of predict's options alone predicts again and trains the
	// self-training round again on the changed masks; the first model is kept.
	half := refine.DefaultCutOptions()
	half.Scale, half.Smooth = 0.5, 10
	for _, c := range []struct {
		what   string
		change func(*pipeline.TrainOptions)
	}{
		{"the graph cut's settings", func(o *pipeline.TrainOptions) { o.Cut = &half }},
		{"the overlay, prior-shift, refinement, temporal and mirror options", func(o *pipeline.TrainOptions) {
			o.Overlays, o.Refine, o.Temporal, o.PriorShift, o.Mirror = true, "none", 0, true, false
		}},
	} {
		c.change(&opt.Train)
		if rep, err = pipeline.Run(context.Background(), root, work, opt); err != nil {
			t.Fatal(err)
		}
		for _, st := range rep.Sequences[0].Stages {
			rerun := st.Stage == "predict-uniform" || st.Stage == "eval-dense-uniform" || strings.HasSuffix(st.Stage, "-round1")
			if st.Skipped == rerun {
				t.Errorf("stage %s: skipped = %v after changing only %s", st.Stage, st.Skipped, c.what)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(work, "tiny", "masks-uniform", "overlay", "00000.png")); err != nil {
		t.Error(err)
	}
	// A densifier without a graph cut refuses the refinement by name.
	opt.Densifier, opt.Train.Refine, opt.Force = unetDensifier{}, "grabcut", true
	if _, err := pipeline.Run(context.Background(), root, t.TempDir(), opt); err == nil || !strings.Contains(err.Error(), `refinement "grabcut" needs a graph cut`) {
		t.Errorf("grabcut without a Cutter: %v", err)
	}
	// … and one without an optical flow the temporal fusion.
	opt.Densifier, opt.Train.Refine, opt.Train.Temporal = unetDensifier{}, "none", 2
	if _, err := pipeline.Run(context.Background(), root, t.TempDir(), opt); err == nil || !strings.Contains(err.Error(), "temporal fusion needs an optical flow") {
		t.Errorf("temporal fusion without a Flow: %v", err)
	}
}

// The pipeline's training defaults are the trainer's (pipeline cannot import
// train, so they are written twice).
func TestPipelineTrainingDefaultsAreTheTrainers(t *testing.T) {
	p, c := pipeline.DefaultOptions().Train, train.DefaultConfig()
	if p.Epochs != c.Epochs || p.LR != c.LR || p.BatchSize != c.Batch || p.Preset != c.Preset || p.Seed != c.Seed || p.Average != c.Average {
		t.Errorf("pipeline defaults %+v differ from train.DefaultConfig %+v", p, c)
	}
	if c.Epochs != train.DefaultEpochs || c.StepBudget != train.DefaultStepBudget || c.Average != train.DefaultAverage {
		t.Errorf("train.DefaultConfig: %d epochs, budget %d, average %d", c.Epochs, c.StepBudget, c.Average)
	}
	var f pipelineFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.bind(fs)
	if got := fs.Lookup("step-budget").DefValue; got != fmt.Sprint(train.DefaultStepBudget) {
		t.Errorf("--step-budget defaults to %s", got)
	}
}

// setRefine maps each name of pipeline.RefineMethods onto its refiner, the
// graph cut with the settings given (invalid ones are refused by the
// prediction options' check), and refuses an unknown name and "grabcut"
// without a graph cut, by name.
func TestSetRefineByName(t *testing.T) {
	var o train.PredictOptions
	cut := video.GrabCut{Seed: 1}
	if err := setRefine(&o, "graphcut", refine.DefaultCutOptions(), nil); err != nil || o.Refine != (refine.ProbCut{Options: refine.DefaultCutOptions()}) {
		t.Fatalf("graphcut: %#v, %v", o.Refine, err)
	}
	half := refine.DefaultCutOptions()
	half.Scale, half.Smooth = 0.5, 10
	if err := setRefine(&o, "graphcut", half, nil); err != nil || o.Refine != (refine.ProbCut{Options: half}) {
		t.Fatalf("graphcut at half scale: %#v, %v", o.Refine, err)
	}
	bad := refine.DefaultCutOptions()
	bad.Band = 0
	if err := setRefine(&o, "graphcut", bad, nil); err != nil {
		t.Fatalf("graphcut with band 0: %v", err)
	}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "band") {
		t.Errorf("graphcut with band 0, the options' check: %v", err)
	}
	if err := setRefine(&o, "grabcut", refine.DefaultCutOptions(), cut); err != nil || o.Refine != (refine.TrimapCut{Cutter: cut, Options: refine.DefaultOptions()}) {
		t.Fatalf("grabcut: %#v, %v", o.Refine, err)
	}
	if err := setRefine(&o, "none", refine.DefaultCutOptions(), cut); err != nil || o.Refine != nil {
		t.Fatalf("none: %#v, %v", o.Refine, err)
	}
	o.Refine = refine.ProbCut{}
	if err := setRefine(&o, "", refine.DefaultCutOptions(), cut); err != nil || o.Refine != nil {
		t.Fatalf(`"": %#v, %v`, o.Refine, err)
	}
	if err := setRefine(&o, "grabcut", refine.DefaultCutOptions(), nil); err == nil || !strings.Contains(err.Error(), `refinement "grabcut" needs a graph cut`) {
		t.Errorf("grabcut without a Cutter: %v", err)
	}
	if err := setRefine(&o, "crf", refine.DefaultCutOptions(), cut); err == nil || !strings.Contains(err.Error(), `unknown refinement "crf" (graphcut, grabcut or none)`) {
		t.Errorf("crf: %v", err)
	}
}

// The pipeline's prediction options reach the U-Net's: the graph cut with
// the run's settings (the defaults when none are given), and the switches.
func TestUnetPredictOptionsCarryTheCut(t *testing.T) {
	half := refine.DefaultCutOptions()
	half.Scale, half.Smooth = 0.5, 10
	po, err := unetPredictOptions(pipeline.TrainOptions{Refine: "graphcut", Cut: &half, Mirror: true, ProbMaps: true}, nil)
	if err != nil || po.Refine != (refine.ProbCut{Options: half}) || !po.Mirror || !po.Prob || po.Overlay {
		t.Fatalf("given cut: %+v, %v", po, err)
	}
	if po, err = unetPredictOptions(pipeline.TrainOptions{Refine: "graphcut"}, nil); err != nil || po.Refine != (refine.ProbCut{Options: refine.DefaultCutOptions()}) {
		t.Fatalf("default cut: %+v, %v", po.Refine, err)
	}
	if po, err = unetPredictOptions(pipeline.TrainOptions{Refine: "none", Cut: &half}, nil); err != nil || po.Refine != nil {
		t.Fatalf("none: %+v, %v", po.Refine, err)
	}
}

// unetTrainConfig keeps train.DefaultConfig where an option is zero (seed,
// scale, threads, the flip switch and the averaged epochs always come from
// the options, whose defaults carry train.DefaultAverage, and the pipeline
// keeps only the checkpoints it resumes and averages) and carries every set
// option and the variant over.
func TestUNetTrainConfig(t *testing.T) {
	cfg, err := unetTrainConfig(pipeline.TrainOptions{}, "", false)
	want := train.DefaultConfig()
	want.Seed, want.Average, want.KeepEpochs = 0, 0, 1
	if err != nil || !reflect.DeepEqual(cfg, want) {
		t.Fatalf("zero options: %+v, %v; want %+v", cfg, err, want)
	}
	budget := 7
	o := pipeline.TrainOptions{Preset: "unet-paper", Epochs: 3, StepBudget: &budget, LR: 0.5, BatchSize: 4, Device: "cuda",
		Scale: 0.5, Seed: 9, Threads: 2, NoFlip: true, CRFWeight: 3}
	cfg, err = unetTrainConfig(o, "uniform", true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Preset != "unet-paper" || cfg.Epochs != 3 || cfg.StepBudget != 7 || cfg.LR != 0.5 || cfg.Batch != 4 || cfg.Device != "cuda" ||
		cfg.Scale != 0.5 || cfg.Seed != 9 || cfg.Threads != 2 || !cfg.NoFlip || !cfg.Resume || cfg.Variant != train.VariantUniform || cfg.CRFWeight != 3 {
		t.Errorf("config %+v", cfg)
	}
	if _, err := unetTrainConfig(o, "no-such-variant", false); err == nil {
		t.Error("unknown variant accepted")
	}
}

// A training request's starting checkpoint reaches the trainer whether or
// not the request is a self-training round: the first training's starting
// weights (no pseudo-labels) and a round's previous model (with them).
func TestUNetRequestConfigStartsFromInit(t *testing.T) {
	first, err := unetRequestConfig(pipeline.TrainRequest{Init: "/w/starting-weights/unet-cpu-davis.ckpt", Variant: "uniform"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Init != "/w/starting-weights/unet-cpu-davis.ckpt" || len(first.Pseudo) != 0 || !first.Joint {
		t.Errorf("first training: init %q, pseudo %v, joint %v", first.Init, first.Pseudo, first.Joint)
	}
	round, err := unetRequestConfig(pipeline.TrainRequest{Init: "/w/s/model-uniform/model.ckpt", Pseudo: []string{"/w/s/masks-uniform"}, Variant: "uniform"})
	if err != nil {
		t.Fatal(err)
	}
	if round.Init != "/w/s/model-uniform/model.ckpt" || len(round.Pseudo) != 1 || round.PseudoOptions != trainset.DefaultPseudoOptions() {
		t.Errorf("round: init %q, pseudo %v, options %+v", round.Init, round.Pseudo, round.PseudoOptions)
	}
	random, err := unetRequestConfig(pipeline.TrainRequest{Variant: "uniform"})
	if err != nil || random.Init != "" {
		t.Errorf("no starting weights: init %q, %v", random.Init, err)
	}
}
