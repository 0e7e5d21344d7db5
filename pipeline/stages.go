package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/multicut"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
)

// seqRun is the state of one sequence's run.
type seqRun struct {
	ctx    context.Context
	seq    dataset.SequenceInfo
	name   string
	dir    string
	lay    Layout
	opt    *Options
	status []StageStatus

	frames []string             // frame paths
	w, h   int                  // frame size (of the first frame)
	gt     *dataset.GroundTruth // nil without ground truth
	res    *SequenceResult
	// background clusters decided by the segment stage (camera motion)
	background []int
	// the background clusters the camera motion explains (segment report)
	cameraBackground []int
}

func newSeqRun(ctx context.Context, seq dataset.SequenceInfo, work string, opt *Options) (*seqRun, error) {
	dir := filepath.Join(work, seq.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	frames, err := dataset.ListFrames(seq.FramesDir)
	if err != nil {
		return nil, err
	}
	if len(frames) < 2 {
		return nil, fmt.Errorf("%s: %d frames, need at least 2", seq.FramesDir, len(frames))
	}
	p := &seqRun{ctx: ctx, seq: seq, name: seq.Name, dir: dir, lay: Layout{Dir: dir, Name: seq.Name}, opt: opt, frames: frames,
		res: &SequenceResult{Name: seq.Name, Split: seq.Split, Frames: len(frames), FramesDir: seq.FramesDir, GT: seq.GTPath,
			Dense: map[Variant]*DenseResult{}}}
	if p.w, p.h, err = dataset.ImageSize(frames[0]); err != nil {
		return nil, err
	}
	if seq.GTPath != "" {
		if p.gt, err = dataset.LoadGroundTruth(seq.GTPath); err != nil {
			return nil, err
		}
		// Before any work: ground truth of another size would only fail at
		// the dense evaluation, after training.
		if err := dataset.CheckGroundTruthSize(p.gt, p.w, p.h, seq.FramesDir); err != nil {
			return nil, err
		}
		for _, w := range p.gt.Warnings {
			fmt.Fprintf(opt.log(), "%s: warning: %s\n", seq.Name, w)
		}
	}
	return p, nil
}

// inputsWithGT appends the ground-truth path when there is one.
func (p *seqRun) inputsWithGT(in ...string) []string {
	if p.seq.GTPath != "" {
		in = append(in, p.seq.GTPath)
	}
	return in
}

func (p *seqRun) checkCtx() error {
	if p.ctx == nil {
		return nil
	}
	return p.ctx.Err()
}

// TrackInfo summarises the tracking stage.
type TrackInfo struct {
	Tracks int    `json:"tracks"`
	Frames int    `json:"frames"`
	Source string `json:"source"` // "tracker (<flow>)" or the copied file
}

func (p *seqRun) track() error {
	src := ""
	if p.opt.TracksFor != nil {
		src = p.opt.TracksFor(p.name)
	}
	// the flow's own parameters are stamped when the tracker describes them
	// (video.Tracker does): tracks of an earlier flow configuration, or of
	// a stamp without them, are tracked again
	type params struct {
		Tracker    trajectory.TrackerOptions `json:"tracker,omitempty"`
		Flow       string                    `json:"flow,omitempty"`
		FlowParams string                    `json:"flow_params,omitempty"`
		From       string                    `json:"from,omitempty"`
	}
	st := stage{name: "track", outputs: []string{p.lay.Tracks()}}
	if src != "" {
		st.params = params{From: src}
		st.inputs = []string{src}
	} else {
		pr := params{Tracker: p.opt.Tracker, Flow: p.opt.Flow}
		if d, ok := p.opt.FlowTracker.(trajectory.FlowDescriber); ok {
			pr.FlowParams = d.FlowParams(p.opt.Flow)
		}
		st.params = pr
		st.inputs = p.frames
	}
	var info TrackInfo
	_, err := p.runStage(st, &info, func(string) (any, error) {
		var ts *trajectory.TrackSet
		var err error
		if src != "" {
			if ts, err = trajectory.ReadTracks(src); err != nil {
				return nil, err
			}
			if ts.Frames > len(p.frames) {
				return nil, fmt.Errorf("%s: %d frames but %s has %d", src, ts.Frames, p.seq.FramesDir, len(p.frames))
			}
			if err := ts.CheckBounds(src, p.w, p.h); err != nil {
				return nil, fmt.Errorf("%w (frames in %s)", err, p.seq.FramesDir)
			}
		} else {
			if p.opt.FlowTracker == nil {
				return nil, fmt.Errorf("no tracker: Options.FlowTracker is not set and no Tracks file is given")
			}
			if ts, err = p.trackFrames(); err != nil {
				return nil, err
			}
			src = fmt.Sprintf("tracker (%s)", p.opt.Flow)
		}
		if len(ts.Tracks) == 0 {
			return nil, fmt.Errorf("no trajectories in %s", p.seq.FramesDir)
		}
		if err := trajectory.WriteTracks(p.lay.Tracks(), ts); err != nil {
			return nil, err
		}
		return TrackInfo{Tracks: len(ts.Tracks), Frames: ts.Frames, Source: src}, nil
	})
	p.res.Trajectories = info.Tracks
	p.res.TrackFrames = info.Frames
	return err
}

// trackFrames runs the tracker on the sequence's frames. A tracker that
// can keep its flows (trajectory.FlowKeeper) and describes them
// (trajectory.FlowDescriber) writes them into the flows folder for the
// temporal fusion of predict, as long as they can be written.
func (p *seqRun) trackFrames() (*trajectory.TrackSet, error) {
	tr := p.opt.FlowTracker
	keeper, ok := tr.(trajectory.FlowKeeper)
	d, described := tr.(trajectory.FlowDescriber)
	if !ok || !described {
		return tr.TrackSequence(p.frames, p.opt.Tracker, p.opt.Flow, p.progressFunc("track"))
	}
	m, err := trajectory.NewFlowManifest(p.frames, trajectory.DescribeFlow(p.opt.Flow, d.FlowParams(p.opt.Flow)), p.w, p.h)
	if err != nil {
		return nil, err
	}
	// the flows are a cache: when they cannot be kept (a full disk), the
	// tracking goes on and predict computes them
	notKept := func(err error) {
		fmt.Fprintf(p.opt.log(), "%s: the tracker's flows are not kept (%v); predict computes them\n", p.name, err)
		trajectory.RemoveFlowStore(p.lay.Flows()) // a folder that is not a store stays
	}
	store, err := trajectory.CreateFlowStore(p.lay.Flows(), m)
	if err != nil {
		notKept(err)
	}
	keep := func(t int, fwd, bwd *trajectory.FlowField) error {
		if store == nil {
			return nil
		}
		if err := store.PutPair(t, fwd, bwd); err != nil {
			notKept(err)
			store = nil
		}
		return nil
	}
	ts, err := keeper.TrackSequenceKeeping(p.frames, p.opt.Tracker, p.opt.Flow, keep, p.progressFunc("track"))
	if err != nil && store != nil {
		trajectory.RemoveFlowStore(p.lay.Flows())
	}
	return ts, err
}

// dropFlows removes the tracker's flows, kept for the temporal fusion of
// predict, once the sequence's masks are predicted (a later predict
// computes the flows it needs). After a failure they stay, for the run
// that resumes it. A flows folder that holds anything else is kept, with a
// line on the log.
func (p *seqRun) dropFlows() {
	if err := trajectory.RemoveFlowStore(p.lay.Flows()); err != nil {
		fmt.Fprintf(p.opt.log(), "%s: %v; left as it is\n", p.name, err)
	}
}

// segmentOptions are the segmentation options of the sequence, the run's
// with the sequence's own cost model where Options.CostModels gives one,
// and the name of its cost model.
func (p *seqRun) segmentOptions() (motiongraph.SegmentOptions, string) {
	so, name := p.opt.Segment, p.opt.CostModelSource
	if m, ok := p.opt.CostModels[p.name]; ok {
		so.Model, name = m, filepath.Join(name, p.name+".json")
	}
	return so, name
}

// progressFunc reports the progress of a long stage (internal/progress: a
// bar on a terminal, plain lines elsewhere).
func (p *seqRun) progressFunc(what string) func(done, total int) {
	return progress.Func(p.opt.progress(), p.name+": "+what)
}

func (p *seqRun) segment() error {
	out := p.lay.LabelledTracks(p.res.TrackFrames)
	// the camera-residual format and the solver's version are parameters:
	// a segmentation whose camera.csv lacks the upper quartiles that
	// prepare uses, or that an earlier search found, is redone
	type params struct {
		Options         motiongraph.SegmentOptions `json:"options"`
		CameraResiduals int                        `json:"camera_residuals"`
		Solver          int                        `json:"solver"`
		Segment         int                        `json:"segment"`
	}
	so, model := p.segmentOptions()
	st := stage{name: "segment", params: params{so, motiongraph.CameraResidualsVersion, multicut.SolverVersion, motiongraph.SegmentVersion},
		inputs:  append([]string{p.lay.Tracks()}, p.frames...),
		outputs: []string{p.lay.Graph(), p.lay.Labels(), out, p.lay.CameraResiduals(), p.lay.SegmentJSON()}}
	var info motiongraph.SegmentReport
	_, err := p.runStage(st, &info, func(string) (any, error) {
		return motiongraph.SegmentFiles(motiongraph.FilesOptions{Tracks: p.lay.Tracks(), Frames: p.frames,
			FramesDir: p.seq.FramesDir, Name: p.name, Out: p.lay.SegmentDir(), Segment: so, ModelName: model})
	})
	p.res.Clusters = info.Clusters
	p.background = info.Background
	p.cameraBackground = info.CameraBackground()
	p.res.Energy = info.Energy
	p.res.Edges = info.Edges
	p.res.LiftedEdges = info.LiftedEdges
	return err
}

// UncertaintyInfo summarises the uncertainty stage.
type UncertaintyInfo struct {
	uncertainty.Summary
	Heatmaps []string `json:"heatmaps"` // relative to the sequence folder
	// Areas under the VI sparsification curves (with ground truth).
	AUCVI map[string]float64 `json:"auc_vi,omitempty"`
	// VIFalls: VI at the largest removed fraction is below VI at 0 for the
	// proposed ordering (the claim of Kardoost & Keuper, UAI 2021).
	VIFalls *bool `json:"vi_falls,omitempty"`
}

func (p *seqRun) uncertainty() error {
	type params struct {
		Beta         float64                      `json:"beta"`
		HeatmapEvery int                          `json:"heatmap_every"`
		Sparsify     *uncertainty.SparsifyOptions `json:"sparsify,omitempty"`
	}
	pr := params{Beta: p.opt.Segment.Graph.Beta, HeatmapEvery: p.opt.HeatmapEvery}
	tracks := p.lay.LabelledTracks(p.res.TrackFrames)
	outs := []string{p.lay.UncertaintyCSV(), p.lay.ClustersCSV(), p.lay.Heatmaps()}
	if p.gt != nil {
		so := p.opt.Sparsify
		so.Beta = pr.Beta
		pr.Sparsify = &so
		outs = append(outs, filepath.Join(p.lay.SparsifyDir(), "summary.json"))
	}
	st := stage{name: "uncertainty", params: pr,
		inputs:  p.inputsWithGT(append([]string{p.lay.Graph(), p.lay.Labels(), tracks}, p.frames...)...),
		outputs: outs}
	var info UncertaintyInfo
	_, err := p.runStage(st, &info, func(string) (any, error) {
		// heat maps into a fresh folder renamed into place
		tmp := p.lay.Heatmaps() + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp) // after a failure (once in place, it is gone)
		res, err := uncertainty.ComputeFiles(uncertainty.FilesOptions{Graph: p.lay.Graph(), Labels: p.lay.Labels(), Beta: pr.Beta,
			CSV: p.lay.UncertaintyCSV(), Clusters: p.lay.ClustersCSV(), Tracks: tracks, FramesDir: p.seq.FramesDir, Heatmaps: tmp,
			Temperature: uncertainty.DefaultTemperature,
			HeatmapFrames: func(n int) []int {
				// the labelled frames (FBMS: every 10th or 20th), unless they are
				// denser than every HeatmapEvery-th frame (DAVIS labels every frame)
				hgt := p.gt
				if every := max(p.opt.HeatmapEvery, 1); hgt != nil && len(hgt.Frames) > (n+every-1)/every {
					hgt = nil
				}
				return uncertainty.HeatmapFrames(n, hgt, p.opt.HeatmapEvery, false)
			}, Progress: p.progressFunc("heatmaps")})
		if err != nil {
			return nil, err
		}
		if err := atomicfile.ReplaceDir(tmp, p.lay.Heatmaps()); err != nil {
			return nil, err
		}
		info := UncertaintyInfo{Summary: res.Summary}
		g, labels, ts := res.Graph, res.Labels, res.Tracks
		for _, w := range res.Heatmaps {
			info.Heatmaps = append(info.Heatmaps, filepath.Join("uncertainty", "heatmaps", filepath.Base(w)))
		}
		if pr.Sparsify != nil {
			sc, err := uncertainty.SparsifySequence(p.name, g, labels, ts, p.gt, *pr.Sparsify)
			if err != nil {
				return nil, err
			}
			sum, err := uncertainty.WriteSparsifyOutputs(p.lay.SparsifyDir(), []*uncertainty.SequenceCurves{sc}, *pr.Sparsify)
			if err != nil {
				return nil, err
			}
			info.AUCVI = map[string]float64{}
			for _, c := range sum.Sequences[0].Curves {
				info.AUCVI[c.Name] = c.AUCVI
				if c.Name == "proposed" {
					falls := c.VIFalls
					info.VIFalls = &falls
				}
			}
		}
		return info, nil
	})
	p.res.Uncertainty = &info
	return err
}

// Scores are the FBMS numbers of one evaluation (fractions in [0,1]).
type Scores struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F         float64 `json:"f"`
	IoU       float64 `json:"iou"`
	JMean     float64 `json:"j_mean"`
	// JAwayFromThin is the dense masks' J away from the thin parts of the
	// annotation (eval.Result.JMeanAwayFromThin); nil for sparse scores.
	JAwayFromThin *float64 `json:"j_mean_away_from_thin_parts,omitempty"`
	// JBenchmark is the dense masks' J as the DAVIS 2016 benchmark scores a
	// sequence, the first and the last frame left out
	// (eval.Result.JMeanBenchmark), the number published methods report; nil
	// for sparse scores and for results written before densify computed it.
	JBenchmark *float64 `json:"j_mean_benchmark,omitempty"`
	// JWithThinParts and JWithoutHoles are the dense masks' J with the thin
	// parts of the annotated object added to them and with its holes taken
	// out of them (eval.Result.JMeanWithThinParts, JMeanWithoutHoles): two
	// bounds for analysis, like an oracle's J, of what completing the lines
	// and clearing the enclosed background could give. nil for sparse scores
	// and for results written before densify computed them.
	JWithThinParts *float64 `json:"j_mean_with_thin_parts,omitempty"`
	JWithoutHoles  *float64 `json:"j_mean_without_holes,omitempty"`
	Objects        int      `json:"objects"`
	Visible        int      `json:"visible"`
	Density        float64  `json:"density"` // percent
}

func scoresOf(r *eval.Result) *Scores {
	return &Scores{Precision: r.Precision, Recall: r.Recall, F: r.F, IoU: r.IoU, JMean: r.JMean, JAwayFromThin: r.JMeanAwayFromThin,
		JWithThinParts: r.JMeanWithThinParts, JWithoutHoles: r.JMeanWithoutHoles,
		Objects: r.Objects, Visible: r.Visible, Density: r.Density}
}

func (p *seqRun) sparseEval() error {
	if p.gt == nil {
		return nil
	}
	tracks := p.lay.LabelledTracks(p.res.TrackFrames)
	st := stage{name: "eval-sparse", params: p.opt.Eval, inputs: []string{tracks, p.seq.GTPath},
		outputs: []string{p.lay.SparseEval()}}
	var sc Scores
	_, err := p.runStage(st, &sc, func(string) (any, error) {
		r, err := eval.ScoreFiles(p.gt, tracks, p.opt.Eval)
		if err != nil {
			return nil, err
		}
		if err := writeJSON(p.lay.SparseEval(), r); err != nil {
			return nil, err
		}
		return scoresOf(r), nil
	})
	if err == nil {
		p.res.Sparse = &sc
	}
	return err
}

// PrepareInfo summarises the prepared training set.
type PrepareInfo struct {
	trainset.Summary
	// LabelQuality scores the training labels against the ground truth
	// (when the sequence has one).
	LabelQuality *trainset.LabelQuality `json:"label_quality,omitempty"`
	// PrimaryObject records whether the labels keep the primary object
	// only (trainset.Options.PrimaryObject, as decided for the sequence).
	PrimaryObject bool `json:"primary_object,omitempty"`
}

func (p *seqRun) prepare() error {
	po := p.opt.Prepare
	po.BackgroundClusters, po.CameraBackground = p.background, p.cameraBackground
	if p.opt.PrimaryObjectAuto {
		po.PrimaryObject = p.seq.SingleObject
	}
	tracks := p.lay.LabelledTracks(p.res.TrackFrames)
	// the format version is a parameter: a set of an older layout is redone
	type params struct {
		Options trainset.Options `json:"options"`
		Format  int              `json:"format"`
	}
	st := stage{name: "prepare", params: params{po, trainset.FormatVersion},
		inputs:  append([]string{tracks, p.lay.UncertaintyCSV(), p.lay.CameraResiduals()}, p.frames...),
		outputs: []string{filepath.Join(p.lay.Prepared(), "manifest.json")}}
	p.unstampBroken(st.name, p.lay.Prepared())
	var info PrepareInfo
	_, err := p.runStage(st, &info, func(string) (any, error) {
		var residual motiongraph.CameraResiduals
		if po.BackgroundResidual > 0 {
			var err error
			if residual, err = motiongraph.ReadCameraResiduals(p.lay.CameraResiduals()); err != nil {
				return nil, err
			}
		}
		po := po
		po.Progress = p.progressFunc("background cut")
		set, err := trainset.PrepareFiles(p.seq.FramesDir, tracks, p.lay.UncertaintyCSV(), residual.Median, residual.Upper, p.lay.Prepared(), po)
		if err != nil {
			return nil, err
		}
		info := PrepareInfo{Summary: set.Summary(), PrimaryObject: po.PrimaryObject}
		if p.gt != nil {
			q := trainset.ScoreLabels(set, p.gt)
			info.LabelQuality = &q
		}
		return info, nil
	})
	p.res.Prepared = &info
	return err
}

// unstampBroken removes the stamp of the stage that wrote the prepared
// set dir when the set does not load (trainset.CheckSet: damaged or edited
// after it was written), so that runStage prepares it again instead of
// every later run failing at training.
func (p *seqRun) unstampBroken(stage, dir string) {
	if _, err := os.Stat(stampPath(p.dir, stage)); err != nil {
		return
	}
	if err := trainset.CheckSet(dir); err != nil {
		fmt.Fprintf(p.opt.log(), "%s: %s does not load (%v): preparing it again\n", p.name, dir, err)
		os.Remove(stampPath(p.dir, stage))
	}
}

// upstream runs track → segment → uncertainty → sparse eval → prepare.
func (p *seqRun) upstream() error {
	for _, f := range []func() error{p.track, p.segment, p.uncertainty, p.sparseEval, p.prepare} {
		if err := p.checkCtx(); err != nil {
			return err
		}
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, v)
}
