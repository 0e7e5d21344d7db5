package eval

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// RunOptions is one evaluation of `densify eval` (Run): a ground truth with
// one or more Tracks files (best-of-n) or a mask folder, or a dataset list.
type RunOptions struct {
	GT      string   // *Def.dat, a folder holding one, or a DAVIS annotation folder
	Tracks  []string // Tracks files or globs (files of one glob in name order; ScoreTracks)
	Masks   string   // mask folder
	Dataset string   // list file of "<gt> <tracks-or-masks> [name]" lines
	JSON    string   // write the result as JSON here ("" = not)
	Options Options
	Log     io.Writer // ground-truth warnings, one line per scored item when there are several (nil: none)
}

// RunResult is the outcome of Run: for one target its Result; for several
// Tracks files every Result, the best one and best-of-n; for a dataset the
// summary.
type RunResult struct {
	Files   []string  // scored targets (tracks files or the mask folder)
	Results []*Result // one per file
	Best    int       // index of the best F
	BestOfN []float64 // BestOfN[n-1]: best F among the first n files
	Summary *Summary  // Dataset
}

// Result of the run: the best (or only) file's result.
func (r *RunResult) Result() *Result { return r.Results[r.Best] }

// Write prints the result: the dataset table, the report of the one target,
// or the best target's report and the best-of-n F (percent).
func (r *RunResult) Write(w io.Writer) error {
	switch {
	case r.Summary != nil:
		return WriteTable(w, r.Summary)
	case len(r.Files) == 1:
		return WriteReport(w, r.Files[0], r.Result())
	}
	if err := WriteReport(w, r.Files[r.Best]+fmt.Sprintf(" (best F of %d)", len(r.Files)), r.Result()); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nbest-of-n F(%):")
	for n, v := range r.BestOfN {
		fmt.Fprintf(w, "  n=%-3d %.2f   (%s: %.2f)\n", n+1, 100*v, filepath.Base(r.Files[n]), 100*r.Results[n].F)
	}
	return nil
}

// Run scores the targets of opt and writes opt.JSON (atomically): the
// Result, the dataset Summary, or for best-of-n the best Result with
// best_file, best_index, best_of_n and every candidate's P, R, F, objects.
func Run(opt RunOptions) (*RunResult, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if opt.Options.Threshold <= 0 || opt.Options.Threshold >= 1 {
		return nil, fmt.Errorf("--threshold %g must lie in (0,1)", opt.Options.Threshold)
	}
	if opt.Dataset != "" {
		if opt.GT != "" || len(opt.Tracks) > 0 || opt.Masks != "" {
			return nil, fmt.Errorf("--dataset takes the ground truth and results from the list; drop --gt/--tracks/--masks")
		}
		return runDataset(opt, log)
	}
	if opt.GT == "" || (len(opt.Tracks) == 0) == (opt.Masks == "") {
		return nil, fmt.Errorf("eval needs --gt and exactly one of --tracks or --masks (or --dataset LIST)")
	}
	gt, err := dataset.LoadGroundTruth(opt.GT)
	if err != nil {
		return nil, err
	}
	res := &RunResult{Files: []string{opt.Masks}}
	if opt.Masks == "" {
		if res.Files, err = ExpandGlobs(opt.Tracks); err != nil {
			return nil, err
		}
	}
	res.Results = make([]*Result, len(res.Files))
	for i, p := range res.Files {
		if len(res.Files) > 1 {
			fmt.Fprintf(log, "eval: %d/%d %s\n", i+1, len(res.Files), p)
		}
		score := ScoreTracks
		if opt.Masks != "" {
			score = ScoreFiles
		}
		if res.Results[i], err = score(gt, p, opt.Options); err != nil {
			return nil, err
		}
	}
	warn(log, res.Results[0].Warnings)
	if len(res.Files) == 1 {
		return res, writeJSON(opt.JSON, res.Results[0])
	}
	res.BestOfN, res.Best = BestOfN(res.Results)
	type candidate struct {
		File      string  `json:"file"`
		Precision float64 `json:"precision"`
		Recall    float64 `json:"recall"`
		F         float64 `json:"f"`
		Objects   int     `json:"objects"`
	}
	cands := make([]candidate, len(res.Files))
	for i, r := range res.Results {
		cands[i] = candidate{res.Files[i], r.Precision, r.Recall, r.F, r.Objects}
	}
	return res, writeJSON(opt.JSON, struct {
		*Result
		BestFile   string      `json:"best_file"`
		BestIndex  int         `json:"best_index"`
		BestOfN    []float64   `json:"best_of_n"`
		Candidates []candidate `json:"candidates"`
	}{res.Result(), res.Files[res.Best], res.Best, res.BestOfN, cands})
}

func runDataset(opt RunOptions, log io.Writer) (*RunResult, error) {
	entries, err := ReadList(opt.Dataset)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	results := make([]*Result, len(entries))
	for i, e := range entries {
		fmt.Fprintf(log, "eval: %d/%d %s\n", i+1, len(entries), e.Name)
		gt, err := dataset.LoadGroundTruth(e.GT)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		names[i] = e.Name
		if results[i], err = ScoreFiles(gt, e.Target, opt.Options); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		warn(log, results[i].Warnings)
	}
	s := Dataset(names, results)
	return &RunResult{Files: names, Results: results, Summary: s}, writeJSON(opt.JSON, s)
}

// ExpandGlobs expands file globs in order (the matches of one glob sorted by
// name); a pattern matching nothing is kept as a plain path when it exists,
// and is an error otherwise (so a missing file reports its name).
func ExpandGlobs(args []string) ([]string, error) {
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

// warn writes one "warning: …" line per warning of the ground truth.
func warn(log io.Writer, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
}

func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	return atomicfile.WriteJSON(path, v)
}
