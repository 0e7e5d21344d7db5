package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/video"
)

// options validates the flags and returns the pipeline options with the
// native implementations of f and its streams.
func (p *pipelineFlags) options(f *Factory, root string) (pipeline.Options, error) {
	if p.out == "" {
		return p.opt, errors.New("--out is required")
	}
	o, err := p.upstreamOptions(f, root)
	o.Train.Overlays = !p.noOverlay
	budget := p.stepBudget
	o.Train.StepBudget = &budget
	return o, err
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
		if o.Segment.Model, err = motiongraph.LoadCostModel(p.model); err != nil {
			return o, err
		}
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
