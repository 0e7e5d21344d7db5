package main

import (
	"fmt"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

type fitCostsOptions struct {
	IO    *IOStreams
	Fit   motiongraph.FitDatasetOptions
	Flow  string
	Graph graphFlags
}

func NewCmdFitCosts(f *Factory) *cobra.Command {
	o := &fitCostsOptions{IO: f.IO}
	o.Fit.Tracker, o.Fit.TrackerOptions = f.Tracker, trajectory.DefaultTrackerOptions()
	cmd := &cobra.Command{
		Use:   "fit-costs --data DIR --out model.json",
		Short: "Fit the edge cost model (logistic regression on ground-truth labelled trajectory pairs)",
		Long: `fit-costs finds the sequences under --data (FBMS, DAVIS or synthetic layout), reads or computes
their trajectories (cached as <tracks-dir>/<seq>Tracks<frames>.dat with a record of the tracker
settings, flow parameters and frames beside it, <file>.json: a cache of other settings or frames,
or without a record, is tracked again), builds the motion graph pairs,
labels each pair "cut" when the ground truth puts its trajectories in different regions, and fits
p_cut = σ(θ·[1, features]) by L2-regularised logistic regression. It writes the model JSON, the
reliability table (CSV, --calibration) and a JSON report (<out>.calibration.json) with in-sample
and, for ≥ 2 sequences, leave-one-sequence-out calibration.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runFitCosts(o) },
	}
	cmd.Example = fitCostsExample
	fl, fo := cmd.Flags(), &o.Fit
	fl.StringVar(&fo.Data, "data", "", "dataset root (FBMS59, DAVIS 2016, densify synth output)")
	fl.StringVar(&fo.TracksDir, "tracks-dir", "", "folder of cached <seq>Tracks<frames>.dat (default: <out folder>/tracks)")
	fl.StringVar(&fo.Out, "out", "", "output model JSON")
	fl.StringVar(&fo.Calibration, "calibration", "", "reliability table CSV (default: <out>.calibration.csv)")
	fl.StringVar(&o.Flow, "flow", string(video.DefaultMethod), "optical flow for tracking missing sequences (farneback|dis)")
	fl.IntVar(&fo.TrackerOptions.Spacing, "spacing", fo.TrackerOptions.Spacing, "tracker grid spacing (px)")
	fl.Float64Var(&fo.Lambda, "lambda", 1, "L2 penalty on the standardised feature weights")
	fl.BoolVar(&fo.NoColour, "no-colour", false, "do not read frames for the colour feature")
	fl.BoolVar(&fo.HeldOut, "held-out", true, "also report leave-one-sequence-out calibration")
	fl.StringVar(&fo.FoldModels, "fold-models", "", "write the leave-one-sequence-out models as DIR/<sequence>.json (each fitted without that sequence)")
	o.Graph.bind(fl)
	cmd.MarkFlagRequired("data")
	cmd.MarkFlagRequired("out")
	return cmd
}

func runFitCosts(o *fitCostsOptions) error {
	m, err := video.ParseMethod(o.Flow)
	if err != nil {
		return err
	}
	o.Fit.Flow, o.Fit.Graph, o.Fit.Log = string(m), o.Graph.params(0.5), o.IO.ErrOut
	rep, err := motiongraph.FitDataset(o.Fit)
	if err != nil {
		return err
	}
	w := o.IO.Out
	fmt.Fprintf(w, "theta (standardised features %v): %.4f\n", motiongraph.FeatureNames, rep.CostModel.Theta)
	fmt.Fprintf(w, "in-sample calibration:\n%s", rep.InSample.Table())
	if rep.HeldOut != nil {
		fmt.Fprintf(w, "leave-one-sequence-out calibration:\n%s", rep.HeldOut.Table())
	}
	fmt.Fprintf(w, "wrote %s, %s, %s\n", o.Fit.Out, rep.Calibration, rep.Report)
	return nil
}
