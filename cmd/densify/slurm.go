package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/slurm"
	"github.com/spf13/cobra"
)

type slurmOptions struct {
	IO        *IOStreams
	Factory   *Factory
	Slurm     slurm.Options
	Split     string
	Sequences []string
	Submit    bool
}

func NewCmdSlurm(f *Factory) *cobra.Command {
	o := &slurmOptions{IO: f.IO, Factory: f, Slurm: slurm.Options{Command: "run", CPUsPerTask: 4}}
	cmd := &cobra.Command{
		Use:   "slurm DATASET --out WORK [--shards N] [--command run|ablate|train] [resources] [--submit] [-- densify flags]",
		Short: "Write (and with --submit, submit) a Slurm job array over a dataset's sequences and a merge job for the report",
		Long: `slurm writes into WORK/slurm/ a Slurm job array with one task per shard of DATASET's selected
sequences and a merge job, and with --submit submits both with sbatch:

  array.sh   task i runs  densify <command> DATASET --out WORK --shard auto/N ...  which
             processes the i-th of N parts of the sequences (sorted names, round robin; i is
             SLURM_ARRAY_TASK_ID, so a task resubmitted alone with sbatch --array=i keeps its
             part), with --threads from
             SLURM_CPUS_PER_TASK and --device cuda when --gpus-per-task > 0;
             logs in WORK/slurm/logs/<command>-<array id>_<task>.out
  merge.sh   densify report WORK (the dataset report from the sequences' result files), submitted
             with --dependency=afterok:<array> --kill-on-invalid-dep=yes, so it starts when every
             task has succeeded and is cancelled if one fails (then resubmit the failed tasks with
             sbatch --array=<i> WORK/slurm/array.sh and run densify report WORK yourself)
  submit.sh  the two sbatch calls, for submitting by hand

WORK must be on a filesystem every node sees. The scripts call this densify binary by its
absolute path. The number of shards defaults to one per selected sequence. Flags after -- go to
every task's densify command (for example -- --epochs 30 --preset unet-paper, or with
--command ablate: -- --seeds 5); --split and
--sequences select the sequences here and are passed on. With --command train there is no merge
job: each task trains one model per sequence in WORK/<seq>.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if d := cmd.ArgsLenAtDash(); d == 0 || d > 1 || d < 0 && len(args) > 1 {
				return fmt.Errorf("slurm takes one DATASET; flags for the tasks' densify command go after --")
			}
			o.Slurm.Args = args[1:]
			return runSlurm(o, args[0])
		},
	}
	cmd.Example = slurmExample
	fl, s := cmd.Flags(), &o.Slurm
	fl.StringVar(&s.Work, "out", "", "work folder on a shared filesystem (the tasks' --out; scripts in WORK/slurm)")
	fl.StringVar(&s.Command, "command", s.Command, "densify command each task runs: run, ablate or train")
	fl.IntVar(&s.Shards, "shards", 0, "array tasks, one part of the sequences each")
	fl.StringVar(&s.Partition, "partition", "", "Slurm partition (default: the cluster's)")
	fl.StringVar(&s.Time, "time", "", "time limit per task, e.g. 4:00:00 (default: the partition's)")
	fl.StringVar(&s.Mem, "mem", "", "memory per task, e.g. 16G (default: the cluster's)")
	fl.IntVar(&s.CPUsPerTask, "cpus-per-task", s.CPUsPerTask, "CPUs per task; the tasks' libtorch threads follow SLURM_CPUS_PER_TASK")
	fl.IntVar(&s.GPUsPerTask, "gpus-per-task", 0, "GPUs per task; > 0 runs the tasks with --device cuda")
	fl.StringVar(&s.JobName, "job-name", "", "job name (default densify-<command>)")
	fl.StringArrayVar(&s.Sbatch, "sbatch", nil, "further sbatch option for both jobs, e.g. --sbatch=--account=lab (repeatable)")
	fl.StringVar(&o.Split, "split", "", "dataset split (passed on to the tasks)")
	fl.StringSliceVar(&o.Sequences, "sequences", nil, "only these sequences (passed on to the tasks)")
	fl.BoolVar(&o.Submit, "submit", false, "submit the array and the merge job with sbatch")
	return cmd
}

func runSlurm(o *slurmOptions, dataset string) error {
	s := &o.Slurm
	if s.Work == "" {
		return errors.New("--out is required")
	}
	seqs, err := pipeline.SelectSequences(dataset, pipeline.Options{Split: o.Split, Sequences: o.Sequences})
	if err != nil {
		return err
	}
	switch {
	case s.Shards == 0:
		s.Shards = len(seqs)
	case s.Shards > len(seqs):
		fmt.Fprintf(o.IO.ErrOut, "slurm: %d shards for %d sequences: %d tasks instead (one sequence each)\n", s.Shards, len(seqs), len(seqs))
		s.Shards = len(seqs)
	}
	if s.Dataset, err = filepath.Abs(dataset); err != nil {
		return err
	}
	if s.Work, err = filepath.Abs(s.Work); err != nil {
		return err
	}
	exe := o.Factory.Executable
	if exe == nil {
		exe = os.Executable
	}
	if s.Densify, err = exe(); err != nil {
		return fmt.Errorf("slurm: the path of this densify binary: %w", err)
	}
	if o.Split != "" {
		s.Args = append([]string{"--split", o.Split}, s.Args...)
	}
	if len(o.Sequences) > 0 {
		s.Args = append([]string{"--sequences", strings.Join(o.Sequences, ",")}, s.Args...)
	}
	if err := s.Validate(); err != nil {
		return err
	}
	if err := checkTaskFlags(s.Command, s.Dataset, s.Work, s.Args); err != nil {
		return err
	}
	scripts, err := slurm.Write(*s)
	if err != nil {
		return err
	}
	return printAndSubmit(o, s, len(seqs), scripts)
}
