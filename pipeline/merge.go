package pipeline

// Results on disk and the dataset report built from them.
//
// Every run (Run, Ablate; sharded or not) writes WORK/plan.json, the whole
// selection it belongs to (before sharding), and, when it finishes a
// sequence (also when the sequence failed), WORK/<seq>/result.json. The
// dataset report (report.md, report.json, and ablation.md/.csv when the
// plan is an ablation's) is built by one
// function, buildReport, from those files only: by Run at its end when it
// is not sharded, and by Merge (densify report WORK) after the shards of a
// job array have finished. The two therefore cannot disagree, and Merge
// computes nothing again.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// PlanName is the file in the work folder that records the selection of
// the latest run started there; ResultName is a sequence's outcome in its
// folder (WORK/<seq>/result.json).
const (
	PlanName   = "plan.json"
	ResultName = "result.json"
)

// Plan is the selection a run belongs to: every sequence of the dataset
// selection (all shards together), the variants trained and the settings
// that matter for the numbers. The shards of one job array write identical
// plans (there is no time in it). A later run in the same work folder
// replaces the plan, so `densify report WORK` reports on the selection of
// the latest run started there.
type Plan struct {
	Command   string         `json:"command"` // run or ablate
	Root      string         `json:"root"`
	Variants  []Variant      `json:"variants"`
	Shards    int            `json:"shards,omitempty"` // n of --shard i/n; 0 = not sharded
	Sequences []PlanSequence `json:"sequences"`
	Options   map[string]any `json:"options"`
}

// PlanSequence is one sequence of a plan.
type PlanSequence struct {
	Name      string `json:"name"`
	Split     string `json:"split,omitempty"`
	FramesDir string `json:"frames_dir"`
	GT        string `json:"ground_truth,omitempty"`
}

// SequenceRecord is the content of WORK/<seq>/result.json: the sequence's
// row of the report (with the error when it failed) and when and where it
// ran.
type SequenceRecord struct {
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Host     string          `json:"host"`
	Shard    string          `json:"shard,omitempty"` // i/n when a shard ran it
	Result   *SequenceResult `json:"result"`
}

func newPlan(command, root string, seqs []dataset.SequenceInfo, variants []Variant, opt Options) (*Plan, error) {
	p := &Plan{Command: command, Root: root, Variants: variants, Shards: opt.Shard.Count}
	for _, s := range seqs {
		p.Sequences = append(p.Sequences, PlanSequence{Name: s.Name, Split: s.Split, FramesDir: s.FramesDir, GT: s.GTPath})
	}
	// The options as JSON reads them back, so that a report built from a
	// plan in memory and one read from plan.json are the same.
	b, err := json.Marshal(reportOptions(opt))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &p.Options); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Plan) write(work string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(work, PlanName), append(b, '\n'))
}

// only returns the plan restricted to the named sequences.
func (p *Plan) only(seqs []dataset.SequenceInfo) *Plan {
	q := *p
	q.Sequences = nil
	for _, ps := range p.Sequences {
		if slices.ContainsFunc(seqs, func(s dataset.SequenceInfo) bool { return s.Name == ps.Name }) {
			q.Sequences = append(q.Sequences, ps)
		}
	}
	return &q
}

// ReadPlan reads WORK/plan.json.
func ReadPlan(work string) (*Plan, error) {
	path := filepath.Join(work, PlanName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file: %s is not the work folder of densify run or ablate (or no run has started there yet)", path, work)
	}
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(p.Sequences) == 0 {
		return nil, fmt.Errorf("%s: the plan lists no sequence", path)
	}
	return &p, nil
}

func resultPath(work, seq string) string { return filepath.Join(work, seq, ResultName) }

// writeRecord stores rec in WORK/<seq>/result.json (atomically).
func writeRecord(work string, rec *SequenceRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(resultPath(work, rec.Result.Name), append(b, '\n'))
}

// readRecord reads WORK/<seq>/result.json; a missing file gives an error
// wrapping fs.ErrNotExist.
func readRecord(work, seq string) (*SequenceRecord, error) {
	path := resultPath(work, seq)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec SequenceRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Result == nil || rec.Result.Name != seq {
		return nil, fmt.Errorf("%s: not the result of sequence %s", path, seq)
	}
	if err := checkRecordNumbers(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := rec.Result.checkScores(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rec, nil
}

// maxRecordNumber bounds the magnitude of every number of a result.json:
// counts, seconds, energies and scores of real runs stay far below, and the
// report prints the numbers as they are (a precision of −7e300 took 300
// digits).
const maxRecordNumber = 1e15

// checkRecordNumbers refuses a number beyond ±maxRecordNumber anywhere in
// the JSON b (a damaged or hand-edited file), naming its key path.
func checkRecordNumbers(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	var walk func(at string, v any) error
	walk = func(at string, v any) error {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if err := walk(strings.TrimPrefix(at+"."+k, "."), e); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(fmt.Sprintf("%s[%d]", at, i), e); err != nil {
					return err
				}
			}
		case json.Number:
			if f, err := x.Float64(); err != nil || math.Abs(f) > maxRecordNumber {
				return fmt.Errorf("%s = %s is beyond ±%g: not a result densify writes", at, x, maxRecordNumber)
			}
		}
		return nil
	}
	return walk("", v)
}

// checkScores refuses scores outside their ranges: the fractions (P, R, F,
// IoU, J) in [0, 1], the density in [0, 100] %, no negative count.
func (r *SequenceResult) checkScores() error {
	check := func(what string, s *Scores) error {
		if s == nil {
			return nil
		}
		fr := [][2]any{{"precision", s.Precision}, {"recall", s.Recall}, {"f", s.F}, {"iou", s.IoU}, {"j_mean", s.JMean}}
		for _, l := range besideJ {
			if v := l.ofScores(s); v != nil {
				fr = append(fr, [2]any{l.key, *v})
			}
		}
		for _, f := range fr {
			if v := f[1].(float64); !(v >= 0 && v <= 1) {
				return fmt.Errorf("%s %s %g outside [0, 1]", what, f[0], v)
			}
		}
		if !(s.Density >= 0 && s.Density <= 100) {
			return fmt.Errorf("%s density %g outside [0, 100] %%", what, s.Density)
		}
		if s.Visible < 0 || s.Objects < 0 {
			return fmt.Errorf("%s: %d objects of %d visible", what, s.Objects, s.Visible)
		}
		return nil
	}
	if err := check("sparse", r.Sparse); err != nil {
		return err
	}
	for v, d := range r.Dense {
		if d != nil {
			if err := check(fmt.Sprintf("dense %s", v), d.Scores); err != nil {
				return err
			}
		}
	}
	for v, ds := range r.Repeats {
		for _, d := range ds {
			if d != nil {
				if err := check(fmt.Sprintf("dense %s (seed %d)", v, d.Seed), d.Scores); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// missingReason says why a sequence has no result: not run yet, or a run
// holds (or held, if it was killed) its lock.
func missingReason(work, seq string) string {
	why := fmt.Sprintf("missing: no %s (not run yet, or its run was stopped before the end)", resultPath(work, seq))
	if b, err := os.ReadFile(filepath.Join(work, seq, LockName)); err == nil {
		var li LockInfo
		if json.Unmarshal(b, &li) == nil {
			why = fmt.Sprintf("missing: no %s; the folder is locked by %s (still running, or killed)", resultPath(work, seq), li)
		}
	}
	return why
}

// buildReport builds the dataset report of plan from the result files in
// work, computing nothing: one row per planned sequence, in plan order; a
// sequence without result.json is listed in Missing (a row with the
// reason), one whose run failed (or whose result cannot be read) in Failed.
// Started is the earliest start of a sequence and Seconds the summed stage
// time of the sequences (shards run side by side, so the wall time of the
// whole is not a property of the results).
func buildReport(work string, plan *Plan) *Report {
	rep := &Report{Root: plan.Root, Work: work, Variants: plan.Variants, Options: plan.Options}
	for _, ps := range plan.Sequences {
		blank := &SequenceResult{Name: ps.Name, Split: ps.Split, FramesDir: ps.FramesDir, GT: ps.GT}
		rec, err := readRecord(work, ps.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			blank.Error = missingReason(work, ps.Name)
			rep.Missing = append(rep.Missing, ps.Name)
			rep.Sequences = append(rep.Sequences, blank)
			continue
		case err != nil:
			blank.Error = err.Error()
			rep.Failed = append(rep.Failed, ps.Name)
			rep.Sequences = append(rep.Sequences, blank)
			continue
		}
		res := rec.Result
		if res.Error != "" {
			rep.Failed = append(rep.Failed, ps.Name)
		}
		if rep.Started.IsZero() || rec.Started.Before(rep.Started) {
			rep.Started = rec.Started.UTC()
		}
		rep.Seconds += res.Seconds()
		rep.Sequences = append(rep.Sequences, res)
	}
	rep.summarise()
	return rep
}

// incomplete is the error of a report with missing or failed sequences.
func (r *Report) incomplete() error {
	if len(r.Missing) == 0 && len(r.Failed) == 0 {
		return nil
	}
	var parts []string
	if len(r.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d missing (%s)", len(r.Missing), strings.Join(r.Missing, ", ")))
	}
	if len(r.Failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d failed (%s)", len(r.Failed), strings.Join(r.Failed, ", ")))
	}
	return fmt.Errorf("%d sequences: %s", len(r.Sequences), strings.Join(parts, ", "))
}

// Merge is densify report WORK: it rebuilds the dataset report of the
// latest plan in work (WORK/plan.json) from the sequences' result files,
// computing nothing again, writes report.md and report.json (and
// ablation.md / ablation.csv for an ablate plan)
// and returns them. Missing or failed sequences are listed in the report
// and make the returned error (the report is written all the same).
func Merge(work string, log io.Writer) (*Report, *Ablation, error) {
	plan, err := ReadPlan(work)
	if err != nil {
		return nil, nil, err
	}
	rep := buildReport(work, plan)
	if err := rep.Write(work); err != nil {
		return rep, nil, fmt.Errorf("the report could not be written: %w", err)
	}
	rep.ReportPath = filepath.Join(work, "report.md")
	var a *Ablation
	if plan.Command == "ablate" {
		a = AblationOf(rep, plan.Variants)
		if err := a.Write(work); err != nil {
			return rep, a, err
		}
	}
	if log != nil {
		fmt.Fprintf(log, "report: %d sequences from %s (%d missing, %d failed)\n", len(rep.Sequences), filepath.Join(work, "*", ResultName), len(rep.Missing), len(rep.Failed))
		for _, s := range rep.Sequences {
			if slices.Contains(rep.Failed, s.Name) {
				fmt.Fprintf(log, "report: %s failed: %s\n", s.Name, s.Error)
			}
		}
	}
	if err := rep.incomplete(); err != nil {
		return rep, a, fmt.Errorf("%w (see %s)", err, rep.ReportPath)
	}
	return rep, a, nil
}
