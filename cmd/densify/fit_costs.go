package main

import (
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

var fitCostsFlags struct {
	data, tracksDir, out, calib string
	flow                        string
	spacing                     int
	lambda                      float64
	noColour, heldOut           bool
	graph                       costsGraphFlags
}

// costsGraphFlags are the neighbour-rule flags shared by fit-costs and segment.
type costsGraphFlags struct {
	k, minOverlap, liftedPer int
	radius, liftedRadius     float64
	lifted                   bool
}

func addCostsGraphFlags(cmd *cobra.Command, v *costsGraphFlags) {
	d := motiongraph.DefaultGraphParams()
	cmd.Flags().IntVar(&v.k, "k", d.K, "neighbour rule: K nearest alive trajectories per frame")
	cmd.Flags().Float64Var(&v.radius, "radius", d.Radius, "neighbour rule: radius in pixels")
	cmd.Flags().IntVar(&v.minOverlap, "min-overlap", d.MinOverlap, "minimum number of common frames of an edge")
	cmd.Flags().BoolVar(&v.lifted, "lifted", false, "add lifted edges to longer-range pairs")
	cmd.Flags().Float64Var(&v.liftedRadius, "lifted-radius", d.LiftedRadius, "lifted edges: radius in pixels")
	cmd.Flags().IntVar(&v.liftedPer, "lifted-per-node", d.LiftedPerNode, "lifted edges: drawn per trajectory")
}

func (v *costsGraphFlags) params(beta float64) motiongraph.GraphParams {
	p := motiongraph.DefaultGraphParams()
	p.K, p.Radius, p.MinOverlap = v.k, v.radius, v.minOverlap
	p.Lifted, p.LiftedRadius, p.LiftedPerNode = v.lifted, v.liftedRadius, v.liftedPer
	p.Beta = beta
	return p
}

var fitCostsCmd = &cobra.Command{
	Use:   "fit-costs --data DIR --out model.json",
	Short: "Fit the edge cost model (logistic regression on ground-truth labelled trajectory pairs)",
	Long: `fit-costs finds the sequences under --data (FBMS, DAVIS or synthetic layout), reads or computes
their trajectories (cached as <tracks-dir>/<seq>Tracks<frames>.dat), builds the motion graph pairs,
labels each pair "cut" when the ground truth puts its trajectories in different regions, and fits
p_cut = σ(θ·[1, features]) by L2-regularised logistic regression. It writes the model JSON, the
reliability table (CSV, --calibration) and a JSON report (<out>.calibration.json) with in-sample
and, for ≥ 2 sequences, leave-one-sequence-out calibration.`,
	Args: cobra.NoArgs,
	RunE: runFitCosts,
}

func init() {
	f := fitCostsCmd.Flags()
	f.StringVar(&fitCostsFlags.data, "data", "", "dataset root (FBMS59, DAVIS 2016, densify synth output)")
	f.StringVar(&fitCostsFlags.tracksDir, "tracks-dir", "", "folder of cached <seq>Tracks<frames>.dat (default: <out folder>/tracks)")
	f.StringVar(&fitCostsFlags.out, "out", "", "output model JSON")
	f.StringVar(&fitCostsFlags.calib, "calibration", "", "reliability table CSV (default: <out>.calibration.csv)")
	f.StringVar(&fitCostsFlags.flow, "flow", string(video.DefaultMethod), "optical flow for tracking missing sequences (farneback|dis)")
	f.IntVar(&fitCostsFlags.spacing, "spacing", trajectory.DefaultTrackerOptions().Spacing, "tracker grid spacing (px)")
	f.Float64Var(&fitCostsFlags.lambda, "lambda", 1, "L2 penalty on the standardised feature weights")
	f.BoolVar(&fitCostsFlags.noColour, "no-colour", false, "do not read frames for the colour feature")
	f.BoolVar(&fitCostsFlags.heldOut, "held-out", true, "also report leave-one-sequence-out calibration")
	addCostsGraphFlags(fitCostsCmd, &fitCostsFlags.graph)
	fitCostsCmd.MarkFlagRequired("data")
	fitCostsCmd.MarkFlagRequired("out")
	rootCmd.AddCommand(fitCostsCmd)
}

// costsFitReport is the JSON written beside the model.
type costsFitReport struct {
	Model     string                              `json:"model"`
	Sequences []costsFitSeq                       `json:"sequences"`
	InSample  *motiongraph.Calibration            `json:"in_sample"`
	HeldOut   *motiongraph.Calibration            `json:"held_out,omitempty"`
	PerSeqOut map[string]*motiongraph.Calibration `json:"held_out_per_sequence,omitempty"`
}

type costsFitSeq struct {
	Name    string `json:"name"`
	Tracks  int    `json:"tracks"`
	Pairs   int    `json:"pairs"`
	Cut     int    `json:"cut"`
	Skipped int    `json:"skipped_unlabelled"`
}

func runFitCosts(cmd *cobra.Command, _ []string) error {
	fl := &fitCostsFlags
	gp := fl.graph.params(0.5)
	method, err := video.ParseMethod(fl.flow)
	if err != nil {
		return err
	}
	tracksDir := fl.tracksDir
	if tracksDir == "" {
		tracksDir = filepath.Join(filepath.Dir(fl.out), "tracks")
	}
	seqs, err := dataset.FindSequences(fl.data)
	if err != nil {
		return err
	}
	fp := motiongraph.DefaultFeatureParams()
	var samples []motiongraph.PairSample
	rep := costsFitReport{Model: fl.out}
	for _, sq := range seqs {
		if sq.GTPath == "" {
			fmt.Fprintf(os.Stderr, "fit-costs: %s has no ground truth, skipped\n", sq.Name)
			continue
		}
		gt, err := dataset.LoadGroundTruth(sq.GTPath)
		if err != nil {
			return err
		}
		ts, paths, err := costsSequenceTracks(sq.Name, sq.FramesDir, tracksDir, method, fl.spacing)
		if err != nil {
			return err
		}
		var imgs []image.Image
		if !fl.noColour {
			if imgs, err = costsReadFrames(paths); err != nil {
				return err
			}
		}
		ps, err := motiongraph.ComputePairs(ts, imgs, gp, fp)
		if err != nil {
			return fmt.Errorf("%s: %w", sq.Name, err)
		}
		reg := dataset.TrackRegions(ts, gt.Frames)
		s := motiongraph.LabelPairs(ps, reg, sq.Name, gp.Lifted)
		cut := 0
		for _, x := range s {
			if x.Cut {
				cut++
			}
		}
		fs := costsFitSeq{Name: sq.Name, Tracks: len(ts.Tracks), Pairs: len(s), Cut: cut, Skipped: ps.Len() - len(s)}
		rep.Sequences = append(rep.Sequences, fs)
		fmt.Fprintf(os.Stderr, "fit-costs: %-24s %6d tracks %8d pairs (%.1f%% cut, %d skipped)\n",
			sq.Name, fs.Tracks, fs.Pairs, 100*float64(cut)/float64(max(len(s), 1)), fs.Skipped)
		samples = append(samples, s...)
	}
	opt := motiongraph.FitOptions{Lambda: fl.lambda, Params: fp,
		Source: fmt.Sprintf("densify fit-costs --data %s (%d sequences, %d pairs)", filepath.Base(filepath.Clean(fl.data)), len(rep.Sequences), len(samples))}
	m, cal, err := motiongraph.FitCosts(samples, opt)
	if err != nil {
		return err
	}
	rep.InSample = cal
	if fl.heldOut && len(rep.Sequences) >= 2 {
		rep.HeldOut, rep.PerSeqOut, err = motiongraph.HeldOutCalibration(samples, opt)
		if err != nil {
			return err
		}
	}
	calibPath := fl.calib
	if calibPath == "" {
		calibPath = strings.TrimSuffix(fl.out, ".json") + ".calibration.csv"
	}
	reportPath := strings.TrimSuffix(fl.out, ".json") + ".calibration.json"
	if err := motiongraph.WriteCostModel(fl.out, m); err != nil {
		return err
	}
	if err := cal.WriteCSV(calibPath); err != nil {
		return err
	}
	if err := atomicfile.Write(reportPath, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "theta (standardised features %v): %.4f\n", motiongraph.FeatureNames, m.Theta)
	fmt.Fprintf(out, "in-sample calibration:\n%s", cal.Table())
	if rep.HeldOut != nil {
		fmt.Fprintf(out, "leave-one-sequence-out calibration:\n%s", rep.HeldOut.Table())
	}
	fmt.Fprintf(out, "wrote %s, %s, %s\n", fl.out, calibPath, reportPath)
	return nil
}

var costsTracksRE = regexp.MustCompile(`^(.*)Tracks(\d+)\.dat$`)

// costsSequenceTracks returns the trajectories of a sequence: <tracksDir>/<name>Tracks<frames>.dat
// (or the same name in the frame folder) when it exists, otherwise it tracks
// the frames and caches the result in tracksDir.
func costsSequenceTracks(name, framesDir, tracksDir string, method video.Method, spacing int) (*trajectory.TrackSet, []string, error) {
	paths, err := dataset.ListFrames(framesDir)
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%s: no frames", framesDir)
	}
	file := fmt.Sprintf("%sTracks%d.dat", name, len(paths))
	for _, p := range []string{filepath.Join(tracksDir, file), filepath.Join(framesDir, file)} {
		if _, err := os.Stat(p); err == nil {
			ts, err := trajectory.ReadTracks(p)
			return ts, paths, err
		}
	}
	opt := trajectory.DefaultTrackerOptions()
	opt.Spacing = spacing
	ts, err := video.TrackSequence(paths, opt, method, progress.Func(os.Stderr, "track "+name))
	if err != nil {
		return nil, nil, err
	}
	if err := trajectory.WriteTracks(filepath.Join(tracksDir, file), ts); err != nil {
		return nil, nil, err
	}
	return ts, paths, nil
}

// costsReadFrames decodes the frames for the colour feature.
func costsReadFrames(paths []string) ([]image.Image, error) {
	imgs := make([]image.Image, len(paths))
	for i, p := range paths {
		im, err := dataset.ReadImage(p)
		if err != nil {
			return nil, err
		}
		imgs[i] = im
	}
	return imgs, nil
}
