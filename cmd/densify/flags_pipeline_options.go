package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/models"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/unet"
	"github.com/densify/densify/video"
)

// options validates the flags and returns the pipeline options with the
// native implementations of f and its streams.
func (p *pipelineFlags) options(f *Factory, root string) (pipeline.Options, error) {
	if p.out == "" {
		return p.opt, errors.New("--out is required")
	}
	o, err := p.upstreamOptions(f, root)
	if err == nil {
		err = p.startingWeights(&o)
	}
	o.Train.Overlays = !p.noOverlay
	budget := p.stepBudget
	if o.Train.Rounds > 0 {
		ps := p.pseudo
		o.Train.Pseudo = &ps
	}
	o.Train.StepBudget = &budget
	cut := p.cut
	o.Train.Cut = &cut
	return o, err
}

// The values of --init that name no checkpoint.
const (
	initAuto = "auto" // the preset's default starting weights, if it has some
	initNone = "none" // a random initialisation
)

// startingWeights resolves --init into o: none, auto, the name of starting
// weights embedded for the preset, or a checkpoint file (checkInit).
// Without --rounds, a training from starting weights has no self-training
// round (pipeline.DefaultRoundsFromStartingWeights).
func (p *pipelineFlags) startingWeights(o *pipeline.Options) error {
	preset := o.Train.Preset
	embedded := models.StartingWeightsNames(preset)
	name := p.init
	if name == initAuto {
		name = initNone
		if slices.Contains(embedded, models.DefaultStartingWeights) {
			name = models.DefaultStartingWeights
		}
	}
	switch {
	case name == initNone || name == "":
	case slices.Contains(embedded, name):
		b, err := models.StartingWeights(preset, name)
		if err != nil {
			return err
		}
		o.StartingWeights = &pipeline.StartingWeights{Name: preset + "-" + name, Data: b}
	default:
		path, err := checkInit(p.init, preset)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("%w (and not auto, none or the name of starting weights embedded for %s: %s)", err, preset, namesOrNone(embedded))
			}
			return err
		}
		o.Train.Init = path
	}
	if (o.Train.Init != "" || o.StartingWeights != nil) && !p.roundsSet() {
		o.Train.Rounds = pipeline.DefaultRoundsFromStartingWeights
	}
	return nil
}

// namesOrNone joins names, or says there are none.
func namesOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkInit checks --init before any stage runs: a readable checkpoint of
// the preset the sequences train, returned as an absolute path (the
// training stage runs in another folder); empty stays empty.
func checkInit(path, preset string) (string, error) {
	if path == "" {
		return "", nil
	}
	h, err := unet.ReadCheckpointHeader(path)
	if err != nil {
		return "", fmt.Errorf("--init: %w", err)
	}
	if h.Config.Name != preset {
		return "", fmt.Errorf("--init %s: a checkpoint of preset %s, but the sequences train preset %s (--preset)", path, h.Config.Name, preset)
	}
	return filepath.Abs(path)
}

// upstreamOptions validates the flags bound by bindUpstream (and --tracks).
func (p *pipelineFlags) upstreamOptions(f *Factory, root string) (pipeline.Options, error) {
	o := p.opt
	m, err := video.ParseMethod(p.flow)
	if err != nil {
		return o, err
	}
	o.Flow, o.FlowTracker, o.Densifier = string(m), f.Tracker, f.Densifier
	o.Log, o.Progress = f.IO.ErrOut, f.IO.ErrOut
	if err := o.Tracker.Validate(); err != nil {
		return o, err
	}
	if err := logit.CheckBeta(p.beta); err != nil {
		return o, err
	}
	o.Segment.Graph, o.Segment.MinClusterSize = p.graph.params(p.beta), p.minCluster
	o.Segment.BackgroundSplit = p.backgroundSplit
	if p.model != "" {
		if o.Segment.Model, o.CostModels, err = loadCostModels(p.model); err != nil {
			return o, err
		}
		o.CostModelSource = p.model
	}
	o.Sparsify.Beta = p.beta
	if !(p.threshold > 0 && p.threshold < 1) {
		return o, fmt.Errorf("--threshold %g must lie in (0,1)", p.threshold)
	}
	o.Eval.Threshold, o.Eval.EvalFrames = p.threshold, p.evalFrames
	o.Sequences = p.sequences
	if o.Shard, err = pipeline.ParseShard(p.shard, f.getenv); err != nil {
		return o, err
	}
	if p.quiet {
		o.Log = io.Discard
	}
	if !o.Shard.Active() {
		if hint := pipeline.ShardHint(f.getenv); hint != "" {
			fmt.Fprintln(o.Log, hint)
		}
	}
	if p.tracks != "" {
		seqs, err := pipeline.SelectSequences(root, o)
		if err != nil {
			return o, err
		}
		if len(seqs) != 1 {
			return o, fmt.Errorf("--tracks gives the trajectories of one sequence, but %s has %d", root, len(seqs))
		}
		if _, err := os.Stat(p.tracks); err != nil {
			return o, err
		}
		tr := p.tracks
		o.TracksFor = func(string) string { return tr }
	}
	return o, nil
}

// loadCostModels loads --cost-model: one model (a JSON file or a named
// model), or a folder of <sequence>.json, one per sequence (the folds of
// a leave-one-sequence-out fit), returned by sequence name.
func loadCostModels(path string) (*motiongraph.CostModel, map[string]*motiongraph.CostModel, error) {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		m, err := motiongraph.LoadCostModel(path)
		return m, nil, err
	}
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("--cost-model %s: a folder without <sequence>.json cost models", path)
	}
	models := make(map[string]*motiongraph.CostModel, len(files))
	for _, f := range files {
		m, err := motiongraph.LoadCostModel(f)
		if err != nil {
			return nil, nil, err
		}
		models[strings.TrimSuffix(filepath.Base(f), ".json")] = m
	}
	return nil, models, nil
}
