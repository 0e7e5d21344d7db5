package main

import (
	"fmt"
	"strconv"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/train"
	"github.com/densify/densify/trainset"
	"github.com/spf13/pflag"
)

// graphFlags are the neighbour-rule flags shared by segment, fit-costs and
// the pipeline commands.
type graphFlags struct {
	k, minOverlap, liftedPer, farPer int
	radius, liftedRadius, farRadius  float64
	lifted                           bool
}

func (v *graphFlags) bind(f *pflag.FlagSet) {
	d := motiongraph.DefaultGraphParams()
	f.IntVar(&v.k, "k", d.K, "neighbour rule: K nearest alive trajectories per frame")
	f.Float64Var(&v.radius, "radius", d.Radius, "neighbour rule: radius in pixels")
	f.IntVar(&v.minOverlap, "min-overlap", d.MinOverlap, "minimum number of common frames of an edge")
	f.IntVar(&v.farPer, "long-range-per-node", d.LongRangePerNode, "long-range edges (part of E) drawn per trajectory (0 = off)")
	f.Float64Var(&v.farRadius, "long-range-radius", d.LongRangeRadius, "long-range edges: radius in pixels")
	f.BoolVar(&v.lifted, "lifted", false, "add lifted edges to longer-range pairs")
	f.Float64Var(&v.liftedRadius, "lifted-radius", d.LiftedRadius, "lifted edges: radius in pixels")
	f.IntVar(&v.liftedPer, "lifted-per-node", d.LiftedPerNode, "lifted edges: drawn per trajectory")
}

func (v *graphFlags) params(beta float64) motiongraph.GraphParams {
	p := motiongraph.DefaultGraphParams()
	p.K, p.Radius, p.MinOverlap = v.k, v.radius, v.minOverlap
	p.LongRangePerNode, p.LongRangeRadius = v.farPer, v.farRadius
	p.Lifted, p.LiftedRadius, p.LiftedPerNode = v.lifted, v.liftedRadius, v.liftedPer
	p.Beta = beta
	return p
}

// bindPrepareFlags binds the training-data options (prepare, train, run,
// ablate). With auto (the dataset commands), --primary-object also takes
// "auto", its default there: on for single-object datasets (DAVIS 2016).
func bindPrepareFlags(f *pflag.FlagSet, o *trainset.Options, auto *bool) {
	f.BoolVar(&o.Multi, "multi", o.Multi, "multi-label mode (one class per segment) instead of background vs moving objects")
	f.IntVar(&o.Background, "background", o.Background, "cluster id of the background (-1: the cluster with most points on the image border)")
	f.IntVar(&o.MinSegment, "min-segment", o.MinSegment, "drop segments with fewer trajectories (0 keeps all)")
	f.BoolVar(&o.DropIsolated, "drop-isolated", o.DropIsolated, "drop foreground points with no same-class point within --isolated-radius")
	f.Float64Var(&o.IsolatedRadius, "isolated-radius", o.IsolatedRadius, "radius in pixels for --drop-isolated")
	f.BoolVar(&o.BorderPoints, "border-points", o.BorderPoints, "add background points along the image borders (every 10 px, 5 and 15 px in)")
	f.Float64Var(&o.FarBackground, "far-background", o.FarBackground, "background points (every 10 px) farther than this fraction of the image diagonal from every foreground point of the frame (0 = none)")
	f.Float64Var(&o.SupportRadius, "support-radius", o.SupportRadius, "keep a foreground point of a short trajectory (shorter than its segment's point-weighted median length) only within this many pixels of a long trajectory of the same segment in the same frame (0 = off)")
	f.IntVar(&o.SupportLength, "support-length", o.SupportLength, "--support-radius: a trajectory of at least this many points is long whatever its segment's median (0 = no cap)")
	f.BoolVar(&o.SupportAlone, "support-alone", o.SupportAlone, "--support-radius: keep the short trajectories' points of a segment in a frame where it has no long trajectory (nothing there can support them)")
	f.IntVar(&o.ColourWindow, "colour-window", o.ColourWindow, "also drop the foreground trajectories whose colours the background's colour model explains better, on the whole, than their class's (GrabCut mixtures per frame over the frames within this many of it; 0 = off)")
	f.Float64Var(&o.Unsteady, "unsteady", o.Unsteady, "K: also drop the foreground trajectories whose median acceleration, less their segment's mean acceleration in the same frame, exceeds K times the segment's median of it and whose colours do not say object (the colour check's mean log-likelihood ratio above −1, with --colour-window); water moving with the object: wake, reflection, spray; 0 = off)")
	f.BoolVar(&o.CutBackground, "cut-background", o.CutBackground, "also add background points (every 10 px) within --far-background of the object where a graph cut with the frame's labels as hard constraints (Boykov & Jolly, ICCV 2001: colour mixtures, contrast-sensitive Potts) gives the pixel to the background, more than --cut-margin px from what it gives to the object")
	f.Float64Var(&o.CutMargin, "cut-margin", o.CutMargin, "--cut-background: keep its points this many pixels away from every pixel the cut gives to the object")
	f.Float64Var(&o.FarGap, "far-gap", o.FarGap, "far-background points keep this many pixels away from the points of trajectories left unlabelled by --background-residual (0 = off)")
	f.Float64Var(&o.BackgroundResidual, "background-residual", o.BackgroundResidual, "R: leave unlabelled the trajectories of a camera-explained background cluster whose upper-quartile normalised camera residual (segment's camera.csv) exceeds R·max(1, Q), Q the cluster's median of them, when the cluster's median of the trajectories' median residuals is ≤ R")
	primaryUsage := "keep only the primary moving object (single-object benchmarks such as DAVIS 2016; off for FBMS59, which annotates every moving object): the foreground segment with most trajectory points and the segments mostly within its box grown by --primary-margin, frame by frame; what moves beyond it becomes background"
	if auto == nil {
		f.BoolVar(&o.PrimaryObject, "primary-object", o.PrimaryObject, primaryUsage)
	} else {
		f.Var(primaryFlag{o, auto}, "primary-object", primaryUsage+" (auto: on for the sequences of a DAVIS 2016 root, off for FBMS59 and folders of sequences)")
		f.Lookup("primary-object").NoOptDefVal = "true"
	}
	f.Float64Var(&o.PrimaryMargin, "primary-margin", o.PrimaryMargin, "--primary-object: grow the object's box by this fraction of its diagonal on every side")
	f.BoolVar(&o.Balance, "balance", o.Balance, "class balance weights ⌊n_major/n_minor/10⌋+1 (ACCV'20)")
	f.Float64Var(&o.Phi, "phi", o.Phi, "segment-uncertainty threshold φ: hard examples only in segments with mean uncertainty > φ")
	f.Float64Var(&o.Factor, "factor", o.Factor, "loss weight of hard examples (oversampling factor; 1 disables)")
}

// primaryFlag binds --primary-object of the dataset commands: true, false
// or auto (pflag.Value; a bare --primary-object is true).
type primaryFlag struct {
	o    *trainset.Options
	auto *bool
}

func (f primaryFlag) String() string {
	if f.o == nil {
		return ""
	}
	if *f.auto {
		return "auto"
	}
	return strconv.FormatBool(f.o.PrimaryObject)
}

func (f primaryFlag) Set(s string) error {
	if s == "auto" {
		*f.auto, f.o.PrimaryObject = true, false
		return nil
	}
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true, false or auto, got %q", s)
	}
	*f.auto, f.o.PrimaryObject = false, on
	return nil
}

func (f primaryFlag) Type() string { return "true|false|auto" }

// variantFlag binds a train.Variant (pflag.Value).
type variantFlag struct{ v *train.Variant }

func (f variantFlag) String() string {
	if f.v == nil {
		return ""
	}
	return string(*f.v)
}
func (f variantFlag) Set(s string) (err error) { *f.v, err = train.ParseVariant(s); return err }
func (f variantFlag) Type() string             { return "variant" }
