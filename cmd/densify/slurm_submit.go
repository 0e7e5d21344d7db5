package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/densify/densify/slurm"
)

// printAndSubmit prints what the scripts of s run over n sequences and
// where they and their logs are, then, with --submit, submits the job array
// and its merge job with sbatch and prints their job ids.
func printAndSubmit(o *slurmOptions, s *slurm.Options, n int, scripts *slurm.Scripts) error {
	w := o.IO.Out
	fmt.Fprintf(w, "%d sequences in %d array tasks (densify %s --shard auto/%d), %d CPUs", n, s.Shards, s.Command, s.Shards, s.CPUsPerTask)
	if s.GPUsPerTask > 0 {
		fmt.Fprintf(w, " and %d GPUs", s.GPUsPerTask)
	}
	fmt.Fprintf(w, " per task\njob array: %s\n", scripts.Array)
	if scripts.Merge != "" {
		fmt.Fprintf(w, "merge job: %s\n", scripts.Merge)
	}
	fmt.Fprintf(w, "logs:      %s\n", scripts.Logs)
	if !o.Submit {
		fmt.Fprintf(w, "submit with: %s\n", scripts.Submit)
		return nil
	}
	sb := o.Factory.Sbatch
	if sb == nil {
		sb = slurm.ExecSbatch
	}
	jobs, err := slurm.Submit(scripts, sb, o.IO.ErrOut)
	if errors.Is(err, slurm.ErrNoSbatch) {
		return fmt.Errorf("%w; the scripts are written: submit them where Slurm runs with %s", err, scripts.Submit)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "array job: %s\n", jobs.Array)
	if jobs.Merge != "" {
		fmt.Fprintf(w, "merge job: %s → %s\n", jobs.Merge, filepath.Join(s.Work, "report.md"))
	}
	return nil
}
