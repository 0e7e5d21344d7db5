package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trainset"
	"github.com/spf13/cobra"
)

type prepareOptions struct {
	IO                               *IOStreams
	Frames, Tracks, Uncertainty, Out string
	Segment, GT                      string
	Oracle                           bool
	Prepare                          trainset.Options
}

func NewCmdPrepare(f *Factory) *cobra.Command {
	o := &prepareOptions{IO: f.IO, Prepare: trainset.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "prepare --frames DIR --tracks T.dat [--uncertainty U.csv] --out DIR",
		Short: "Build U-Net training data from a labelled sparse segmentation (hard examples from the uncertainty)",
		Long: `prepare turns a labelled Tracks file into a training-set folder: per frame a sparse
label map (frames/NNNNN_labels.npy, int16, -1 = unlabelled), the base loss weights
(NNNNN_weights.npy, float32, class balance), the hard-example mask (NNNNN_hard.npy,
uint8), PNG previews and manifest.json (with --factor). Hard examples (UAI'21 Sec.
4.3): trajectories with u > μ_A in segments with mean uncertainty μ_A > φ; training
weights them × factor (densify train --variant hard, the default). The oversampling
is a loss weight, so memory does not depend on the factor.

--oracle (with --gt) labels the same trajectories from the ground truth instead of
their clusters: the training set of a perfect segmentation, to tell whether the
segmentation or the densifier limits a sequence's dense masks.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runPrepare(o) },
	}
	cmd.Example = prepareExample
	fl := cmd.Flags()
	fl.StringVar(&o.Frames, "frames", "", "frames folder of the sequence")
	fl.StringVar(&o.Tracks, "tracks", "", "labelled Tracks*.dat (from densify segment)")
	fl.StringVar(&o.Uncertainty, "uncertainty", "", "uncertainty CSV (from densify uncertainty); without it there are no hard examples")
	fl.StringVar(&o.Out, "out", "", "output training-set folder")
	fl.StringVar(&o.Segment, "segment", "", "segment.json of densify segment: its background clusters (camera-explained or on the border) are the background, and its camera residuals feed --background-residual (instead of --background)")
	fl.StringVar(&o.GT, "gt", "", "ground truth (Def.dat or DAVIS annotation folder): score the training labels against it")
	fl.BoolVar(&o.Oracle, "oracle", false, "label the trajectories from the ground truth (--gt) instead of the segmentation")
	bindPrepareFlags(fl, &o.Prepare, nil)
	return cmd
}

func runPrepare(o *prepareOptions) error {
	if o.Frames == "" || o.Tracks == "" || o.Out == "" {
		return fmt.Errorf("prepare needs --frames, --tracks and --out")
	}
	var residual motiongraph.CameraResiduals
	if o.Segment != "" {
		var err error
		if residual, err = segmentEvidence(o.Segment, &o.Prepare, o.Oracle); err != nil {
			return err
		}
		if o.Prepare.BackgroundResidual > 0 && !o.Oracle {
			switch {
			case residual.Median == nil:
				fmt.Fprintf(o.IO.ErrOut, "note: %s lists no camera residuals (written by an older densify segment): background trajectories are not checked against the camera motion\n", o.Segment)
			case residual.Upper == nil:
				fmt.Fprintf(o.IO.ErrOut, "note: the camera residuals of %s have no upper quartiles (written by an older densify segment): background trajectories are checked by their median residual; run densify segment again for the upper quartile\n", o.Segment)
			}
		}
	}
	var gt *dataset.GroundTruth
	if o.GT != "" {
		var err error
		if gt, err = dataset.LoadGroundTruth(o.GT); err != nil {
			return err
		}
	}
	if o.Oracle && gt == nil {
		return fmt.Errorf("prepare --oracle needs --gt")
	}
	var set *trainset.Set
	var err error
	o.Prepare.Progress = progress.Func(o.IO.ErrOut, "background cut")
	if o.Oracle {
		set, err = trainset.PrepareOracleFiles(o.Frames, o.Tracks, gt, o.Out, o.Prepare)
	} else {
		set, err = trainset.PrepareFiles(o.Frames, o.Tracks, o.Uncertainty, residual.Median, residual.Upper, o.Out, o.Prepare)
	}
	if err != nil {
		return err
	}
	return printPrepared(o, set, gt)
}

// segmentEvidence reads a segment.json: its background clusters and
// camera-explained background clusters go into opt, and it returns the
// per-trajectory camera residuals (none when the report lists none or for
// oracle labels, which do not use the segmentation).
func segmentEvidence(path string, opt *trainset.Options, oracle bool) (motiongraph.CameraResiduals, error) {
	r, err := motiongraph.ReadSegmentReport(path)
	if err != nil {
		return motiongraph.CameraResiduals{}, err
	}
	opt.BackgroundClusters = r.Background
	opt.CameraBackground = r.CameraBackground()
	rp := r.CameraResidualsPath(path)
	if rp == "" || oracle || opt.BackgroundResidual == 0 {
		return motiongraph.CameraResiduals{}, nil
	}
	return motiongraph.ReadCameraResiduals(rp)
}
