package main

import (
	"github.com/densify/densify/eval"
	"github.com/spf13/cobra"
)

type evalOptions struct {
	IO  *IOStreams
	Run eval.RunOptions
}

func NewCmdEval(f *Factory) *cobra.Command {
	o := &evalOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "eval --gt GT (--tracks T.dat ... | --masks DIR) | --dataset LIST",
		Short: "Score sparse (tracks) or dense (masks) segmentations with the FBMS MoSegEval precision/recall protocol",
		Long: `eval reimplements the FBMS evaluation (MoSegEvalPR / MoSegEvalAllPR; Ochs, Malik,
Brox, TPAMI 2014): per-region precision, recall and F of the clusters, a Hungarian
assignment maximising the total F, averages over the assigned pairs, extracted objects
(F > threshold, background excluded), density and average region density. Dense masks
are scored with every pixel of every labelled frame as a one-point track.

  --gt       a *Def.dat, a folder holding one (or GroundTruth/<seq>Def.dat), or a DAVIS
             annotation folder (Annotations/480p/<seq>; also its JPEGImages folder)
  --tracks   a Tracks*.dat with cluster labels; give it several times or as a glob
             ("alt_*.dat", quoted) for best-of-n: every file is scored, the best F is
             reported, and best_of_n[n-1] is the best F among the first n files
             (files of one glob are taken in name order)
  --masks    a folder of PNG masks, one per frame: 00000.png (DAVIS, 0-based) or
             <seq>_0001.png (FBMS, 1-based); label = grey value / colour / palette index
  --dataset  a text file, one sequence per line: "<gt> <tracks file or mask folder>
             [name]", '#' comments, paths relative to the list file; fields are
             separated by tabs when the line holds a tab (paths with spaces),
             by white space otherwise. Prints one row per
             sequence and the MoSegEvalAllPR summary (mean P, mean R, F from the means,
             objects of visible objects, standard deviations).

The table is in percent. --json writes precision, recall, f (fractions), objects,
visible, density and avg_region_density (percent), iou, j_mean (every labelled frame), the
DAVIS 2016 benchmark's j_mean_benchmark, j_recall and j_decay (first and last frame left
out), j_frames (J of every labelled frame) and per-region details;
for --dataset also the per-sequence objects under "sequences".`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runEval(o) },
	}
	cmd.Example = evalExample
	fl, r := cmd.Flags(), &o.Run
	fl.StringVar(&r.GT, "gt", "", "ground truth: *Def.dat, folder with one, or DAVIS annotation folder")
	fl.StringArrayVar(&r.Tracks, "tracks", nil, "Tracks*.dat with cluster labels (repeat or glob for best-of-n)")
	fl.StringVar(&r.Masks, "masks", "", "folder of PNG masks (dense segmentation)")
	fl.StringVar(&r.Dataset, "dataset", "", "list file of \"<gt> <tracks-or-masks> [name]\" lines")
	fl.Float64Var(&r.Options.Threshold, "threshold", eval.DefaultThreshold, "F above which an assigned region counts as an extracted object")
	fl.IntVar(&r.Options.EvalFrames, "eval-frames", 0, "evaluated length E (labelled frames with number > E are skipped); 0 = frames of the tracks file (masks: all); -1 = all")
	fl.BoolVar(&r.Options.AllowMissingMasks, "allow-missing-masks", false, "score labelled frames without a mask as uncovered (listed in the output and the JSON) instead of failing")
	fl.BoolVar(&r.Options.CompactLabels, "compact-labels", false, "number clusters by distinct label instead of by label value (MoSegEval: value = cluster, gaps are empty clusters; needed for negative labels)")
	fl.StringVar(&r.JSON, "json", "", "write the result as JSON to this file")
	return cmd
}

func runEval(o *evalOptions) error {
	o.Run.Log = o.IO.ErrOut
	res, err := eval.Run(o.Run)
	if err != nil {
		return err
	}
	return res.Write(o.IO.Out)
}
