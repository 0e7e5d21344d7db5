package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
)

// SelectSequences discovers the sequences under root (dataset.FindSequences:
// an FBMS59 root, a DAVIS 2016 root, a folder of FBMS-layout sequences or a
// single sequence) and keeps those of opt.Split and opt.Sequences. Asking
// for a split or name that does not exist is an error.
func SelectSequences(root string, opt Options) ([]dataset.SequenceInfo, error) {
	all, err := dataset.FindSequences(root)
	if err != nil {
		return nil, err
	}
	var out []dataset.SequenceInfo
	splits := map[string]bool{}
	for _, s := range all {
		splits[s.Split] = true
		if opt.Split != "" && s.Split != opt.Split {
			continue
		}
		if opt.Sequences != nil && !slices.Contains(opt.Sequences, s.Name) {
			continue
		}
		out = append(out, s)
	}
	for _, n := range opt.Sequences {
		if !slices.ContainsFunc(all, func(s dataset.SequenceInfo) bool { return s.Name == n }) {
			return nil, fmt.Errorf("%s: no sequence %q", root, n)
		}
	}
	if opt.Split != "" && !splits[opt.Split] {
		var have []string
		for s := range splits {
			if s != "" {
				have = append(have, s)
			}
		}
		slices.Sort(have)
		return nil, fmt.Errorf("%s: no split %q (have: %s)", root, opt.Split, strings.Join(have, ", "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sequence left after selecting split %q and names %v", root, opt.Split, opt.Sequences)
	}
	seen := map[string]string{}
	for _, s := range out {
		if prev, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("%s: two sequences named %s (%s and %s); choose a split", root, s.Name, prev, s.FramesDir)
		}
		seen[s.Name] = s.FramesDir
	}
	return out, nil
}

func checkWork(work string) error {
	if work == "" {
		return errors.New("no work folder given")
	}
	return os.MkdirAll(work, 0o755)
}

// preflight checks, before any work, what can be checked cheaply for every
// selected sequence: its cost model when opt.CostModels gives them per
// sequence, at least two frames, and ground truth of the frames' size
// (headers only; dataset.CheckGroundTruthFiles).
func preflight(seqs []dataset.SequenceInfo, opt Options) error {
	for _, s := range seqs {
		if _, ok := opt.CostModels[s.Name]; opt.CostModels != nil && !ok {
			return fmt.Errorf("%s: no cost model among the %d per-sequence models (%s)", s.Name, len(opt.CostModels), strings.Join(slices.Sorted(maps.Keys(opt.CostModels)), ", "))
		}
		frames, err := dataset.ListFrames(s.FramesDir)
		if err != nil {
			return err
		}
		if len(frames) < 2 {
			return fmt.Errorf("%s: %d frames, need at least 2", s.FramesDir, len(frames))
		}
		if s.GTPath == "" {
			continue
		}
		w, h, err := dataset.ImageSize(frames[0])
		if err != nil {
			return err
		}
		if err := dataset.CheckGroundTruthFiles(s.GTPath, w, h, s.FramesDir); err != nil {
			return err
		}
	}
	return nil
}

// PrepareDataset runs the missing upstream stages (track → segment →
// uncertainty → sparse eval → prepare) for every selected sequence of root
// and returns the prepared training-set folders, in sequence order, with
// their sequences. It stops at the first failing sequence. With opt.Shard
// it prepares only that part of the selection.
func PrepareDataset(root, work string, opt Options) (setDirs []string, seqs []dataset.SequenceInfo, err error) {
	dirs, seqs, locks, err := prepareDataset(context.Background(), root, work, &opt)
	locks.Release()
	return dirs, seqs, err
}

// PrepareDatasetLocked is PrepareDataset that keeps the sequences' work
// folders locked (see LockName) for the caller's next step, training on the
// prepared sets; the caller releases the locks (also on error: nil locks
// release nothing).
func PrepareDatasetLocked(root, work string, opt Options) (setDirs []string, seqs []dataset.SequenceInfo, locks Locks, err error) {
	return prepareDataset(context.Background(), root, work, &opt)
}

func prepareDataset(ctx context.Context, root, work string, opt *Options) (_ []string, _ []dataset.SequenceInfo, locks Locks, err error) {
	if err := opt.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if err := opt.Shard.Validate(); err != nil {
		return nil, nil, nil, err
	}
	all, err := SelectSequences(root, *opt)
	if err != nil {
		return nil, nil, nil, err
	}
	seqs := opt.Shard.Pick(all)
	if opt.Shard.Active() {
		fmt.Fprintln(opt.log(), describeShard(opt.Shard, seqs, all))
	}
	if err := preflight(seqs, *opt); err != nil {
		return nil, nil, nil, err
	}
	if err := checkWork(work); err != nil {
		return nil, nil, nil, err
	}
	if locks, err = LockSequences(work, seqs); err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			locks.Release()
			locks = nil
		}
	}()
	var dirs []string
	for _, s := range seqs {
		p, err := newSeqRun(ctx, s, work, opt)
		if err != nil {
			return nil, nil, locks, err
		}
		if err := p.upstream(); err != nil {
			return nil, nil, locks, err
		}
		p.dropFlows() // nothing here predicts
		dirs = append(dirs, p.lay.Prepared())
	}
	return dirs, seqs, locks, nil
}

// Run runs the whole chain for every selected sequence of root (a sequence
// folder or a dataset root) in work, training and scoring the given
// variants (default: VariantWeighted). It writes work/plan.json (the
// selection, see Plan) first and work/<seq>/result.json as each sequence
// ends (also when it fails), then builds work/report.md and
// work/report.json from those files (buildReport, as Merge does). A failing
// sequence is reported and the others go on; the returned error then names
// the failures (the report is still written).
//
// With opt.Shard, Run processes only its part of the selection and writes
// no dataset report: it returns the report of its own sequences (not
// written) and `densify report` (Merge) builds the dataset's once every
// shard has finished.
func Run(ctx context.Context, root, work string, opt Options, variants ...Variant) (*Report, error) {
	if len(variants) == 0 {
		variants = []Variant{DefaultVariant}
	}
	return run(ctx, root, work, opt, "run", variants)
}

// run is Run for command "run" or "ablate" (recorded in the plan: Merge
// writes the ablation tables of an ablate plan).
func run(ctx context.Context, root, work string, opt Options, command string, variants []Variant) (*Report, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Shard.Validate(); err != nil {
		return nil, err
	}
	all, err := SelectSequences(root, opt)
	if err != nil {
		return nil, err
	}
	seqs := opt.Shard.Pick(all)
	if opt.Shard.Active() {
		fmt.Fprintln(opt.log(), describeShard(opt.Shard, seqs, all))
	}
	if err := preflight(seqs, opt); err != nil {
		return nil, err
	}
	if err := checkWork(work); err != nil {
		return nil, err
	}
	if w := opt.StartingWeights; w != nil {
		opt.Train.Init = startingWeightsPath(work, w.Name)
	}
	plan, err := newPlan(command, root, all, variants, opt)
	if err != nil {
		return nil, err
	}
	locks, err := LockSequences(work, seqs)
	if err != nil {
		return nil, err
	}
	defer locks.Release()
	// After the locks: a run stopped by another's lock leaves nothing behind.
	if err := plan.write(work); err != nil {
		return nil, err
	}
	if w := opt.StartingWeights; w != nil {
		if err := writeStartingWeights(work, w); err != nil {
			return nil, err
		}
	}
	host, _ := os.Hostname()
	var failed []string
	for i, s := range seqs {
		fmt.Fprintf(opt.log(), "== sequence %d/%d: %s\n", i+1, len(seqs), s.Name)
		// A result of an earlier run must not stand for this one if this
		// one is killed.
		if err := os.Remove(resultPath(work, s.Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		started := time.Now()
		res, err := runSequence(ctx, s, work, &opt, variants)
		if res == nil {
			res = &SequenceResult{Name: s.Name, Split: s.Split, FramesDir: s.FramesDir, GT: s.GTPath}
		}
		if err != nil {
			res.Error = err.Error()
			failed = append(failed, err.Error())
			fmt.Fprintf(opt.log(), "%s: failed: %v\n", s.Name, err)
		}
		rec := &SequenceRecord{Started: started.UTC(), Finished: time.Now().UTC(), Host: host, Shard: opt.Shard.String(), Result: res}
		if werr := writeRecord(work, rec); werr != nil {
			failed = append(failed, fmt.Sprintf("%s: the result could not be recorded: %v", s.Name, werr))
		}
		if err != nil && ctx != nil && ctx.Err() != nil {
			break
		}
	}
	if opt.Shard.Active() {
		rep := buildReport(work, plan.only(seqs))
		fmt.Fprintf(opt.log(), "shard %s: %d sequence(s) recorded in %s; when every shard has finished, `densify report %s` writes the dataset report\n",
			opt.Shard, len(seqs), filepath.Join(work, "<seq>", ResultName), work)
		if len(failed) > 0 {
			return rep, fmt.Errorf("%d of %d sequences of shard %s failed: %s", len(failed), len(seqs), opt.Shard, strings.Join(failed, "; "))
		}
		return rep, nil
	}
	rep := buildReport(work, plan)
	if err := rep.Write(work); err != nil {
		// The cause of the sequences' failures first: an unwritable work
		// folder usually fails them too.
		if len(failed) > 0 {
			return rep, fmt.Errorf("%d of %d sequences failed: %s; and the report could not be written: %w",
				len(failed), len(seqs), strings.Join(failed, "; "), err)
		}
		return rep, fmt.Errorf("the report could not be written: %w", err)
	}
	rep.ReportPath = filepath.Join(work, "report.md")
	fmt.Fprintf(opt.log(), "report: %s\n", rep.ReportPath)
	if len(failed) > 0 {
		return rep, fmt.Errorf("%d of %d sequences failed (see %s): %s", len(failed), len(seqs),
			rep.ReportPath, strings.Join(failed, "; "))
	}
	if err := rep.incomplete(); err != nil { // stopped by ctx: the rest is missing
		return rep, fmt.Errorf("%w (see %s)", err, rep.ReportPath)
	}
	return rep, nil
}

func runSequence(ctx context.Context, s dataset.SequenceInfo, work string, opt *Options, variants []Variant) (*SequenceResult, error) {
	p, err := newSeqRun(ctx, s, work, opt)
	if err != nil {
		return nil, err
	}
	defer func() { p.res.Stages = p.status }()
	if err := p.upstream(); err != nil {
		return p.res, err
	}
	for k := range max(1, opt.Seeds) {
		for _, v := range variants {
			if err := p.checkCtx(); err != nil {
				return p.res, err
			}
			if err := p.dense(v, k); err != nil {
				return p.res, err
			}
		}
	}
	p.res.Stages = p.status
	p.dropFlows()
	return p.res, nil
}

// startingWeightsPath is where the run writes Options.StartingWeights.
func startingWeightsPath(work, name string) string {
	return filepath.Join(work, StartingWeightsDir, name+".ckpt")
}

// writeStartingWeights writes w to its file in work unless the file holds
// it already: every run and every shard of a job array would otherwise
// write the same megabytes again (the stamps compare the contents, so a
// rewrite would retrain nothing).
func writeStartingWeights(work string, w *StartingWeights) error {
	path := startingWeightsPath(work, w.Name)
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, w.Data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, w.Data)
}
