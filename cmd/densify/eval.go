package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/spf13/cobra"
)

var evalCmd = &cobra.Command{
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
visible, density and avg_region_density (percent), iou, j_mean and per-region details;
for --dataset also the per-sequence objects under "sequences".`,
	Args: cobra.NoArgs,
	RunE: runEval,
}

func init() {
	f := evalCmd.Flags()
	f.String("gt", "", "ground truth: *Def.dat, folder with one, or DAVIS annotation folder")
	f.StringArray("tracks", nil, "Tracks*.dat with cluster labels (repeat or glob for best-of-n)")
	f.String("masks", "", "folder of PNG masks (dense segmentation)")
	f.String("dataset", "", "list file of \"<gt> <tracks-or-masks> [name]\" lines")
	f.Float64("threshold", eval.DefaultThreshold, "F above which an assigned region counts as an extracted object")
	f.Int("eval-frames", 0, "evaluated length E (labelled frames with number > E are skipped); 0 = frames of the tracks file (masks: all); -1 = all")
	f.Bool("allow-missing-masks", false, "score labelled frames without a mask as uncovered (listed in the output and the JSON) instead of failing")
	f.Bool("compact-labels", false, "number clusters by distinct label instead of by label value (MoSegEval: value = cluster, gaps are empty clusters; needed for negative labels)")
	f.String("json", "", "write the result as JSON to this file")
	rootCmd.AddCommand(evalCmd)
}

func runEval(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags()
	gtPath, _ := f.GetString("gt")
	tracks, _ := f.GetStringArray("tracks")
	masks, _ := f.GetString("masks")
	list, _ := f.GetString("dataset")
	jsonPath, _ := f.GetString("json")
	opt := eval.Options{}
	opt.Threshold, _ = f.GetFloat64("threshold")
	opt.EvalFrames, _ = f.GetInt("eval-frames")
	opt.CompactLabels, _ = f.GetBool("compact-labels")
	opt.AllowMissingMasks, _ = f.GetBool("allow-missing-masks")
	if opt.Threshold <= 0 || opt.Threshold >= 1 {
		return fmt.Errorf("--threshold %g must lie in (0,1)", opt.Threshold)
	}
	out := cmd.OutOrStdout()

	if list != "" {
		if gtPath != "" || len(tracks) > 0 || masks != "" {
			return fmt.Errorf("--dataset takes the ground truth and results from the list; drop --gt/--tracks/--masks")
		}
		return evalDataset(out, list, opt, jsonPath)
	}
	if gtPath == "" || (len(tracks) == 0) == (masks == "") {
		return fmt.Errorf("eval needs --gt and exactly one of --tracks or --masks (or --dataset LIST)")
	}
	gt, err := dataset.LoadGroundTruth(gtPath)
	if err != nil {
		return err
	}
	if masks != "" {
		r, err := eval.ScoreFiles(gt, masks, opt)
		if err != nil {
			return err
		}
		printWarnings(r.Warnings)
		if err := eval.WriteReport(out, masks, r); err != nil {
			return err
		}
		return writeEvalJSON(jsonPath, r)
	}
	files, err := expandTracks(tracks)
	if err != nil {
		return err
	}
	results := make([]*eval.Result, len(files))
	for i, p := range files {
		if len(files) > 1 {
			fmt.Fprintf(os.Stderr, "eval: %d/%d %s\n", i+1, len(files), p)
		}
		if results[i], err = eval.ScoreTracks(gt, p, opt); err != nil {
			return err
		}
	}
	printWarnings(results[0].Warnings)
	if len(files) == 1 {
		if err := eval.WriteReport(out, files[0], results[0]); err != nil {
			return err
		}
		return writeEvalJSON(jsonPath, results[0])
	}
	best, bi := eval.BestOfN(results)
	if err := eval.WriteReport(out, files[bi]+fmt.Sprintf(" (best F of %d)", len(files)), results[bi]); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nbest-of-n F(%):")
	for n, v := range best {
		fmt.Fprintf(out, "  n=%-3d %.2f   (%s: %.2f)\n", n+1, 100*v, filepath.Base(files[n]), 100*results[n].F)
	}
	type candidate struct {
		File      string  `json:"file"`
		Precision float64 `json:"precision"`
		Recall    float64 `json:"recall"`
		F         float64 `json:"f"`
		Objects   int     `json:"objects"`
	}
	cands := make([]candidate, len(files))
	for i, r := range results {
		cands[i] = candidate{files[i], r.Precision, r.Recall, r.F, r.Objects}
	}
	return writeEvalJSON(jsonPath, struct {
		*eval.Result
		BestFile   string      `json:"best_file"`
		BestIndex  int         `json:"best_index"`
		BestOfN    []float64   `json:"best_of_n"`
		Candidates []candidate `json:"candidates"`
	}{results[bi], files[bi], bi, best, cands})
}

// expandTracks expands globs (a pattern matching nothing is an error; a
// plain path is kept as is so that a missing file reports its name).
func expandTracks(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("--tracks %q: %w", a, err)
		}
		if len(m) == 0 {
			if _, err := os.Stat(a); err != nil {
				return nil, fmt.Errorf("--tracks %q: %w", a, err)
			}
			m = []string{a}
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	return files, nil
}

func evalDataset(out io.Writer, list string, opt eval.Options, jsonPath string) error {
	entries, err := eval.ReadList(list)
	if err != nil {
		return err
	}
	names := make([]string, len(entries))
	results := make([]*eval.Result, len(entries))
	for i, e := range entries {
		fmt.Fprintf(os.Stderr, "eval: %d/%d %s\n", i+1, len(entries), e.Name)
		gt, err := dataset.LoadGroundTruth(e.GT)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		names[i] = e.Name
		if results[i], err = eval.ScoreFiles(gt, e.Target, opt); err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		printWarnings(results[i].Warnings)
	}
	s := eval.Dataset(names, results)
	if err := eval.WriteTable(out, s); err != nil {
		return err
	}
	return writeEvalJSON(jsonPath, s)
}

// printWarnings writes one "warning: …" line per warning to stderr.
func printWarnings(ws []string) {
	for _, w := range ws {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
}

func writeEvalJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
