// Package slurm writes and submits the Slurm batch scripts that run densify
// on a whole dataset on a cluster: a job array with one task per shard
// (densify run | ablate | train DATASET --shard auto/N, the task's part i
// of N from SLURM_ARRAY_TASK_ID, see pipeline.ParseShard; a task
// resubmitted alone with sbatch --array=i keeps its part),
// and a merge job that starts when every task has succeeded
// (--dependency=afterok) and runs densify report WORK, which builds the
// dataset report from the per-sequence results. It uses Slurm as it is
// (sbatch); it schedules nothing itself.
//
// Files written in WORK/slurm/:
//
//	array.sh   the job array (#SBATCH lines, then exec densify … --shard auto/N)
//	merge.sh   the merge job (densify report WORK); not for train
//	submit.sh  both sbatch calls, the merge job depending on the array
//	logs/      one log per task (<command>-<array id>_<task>.out) and per merge
package slurm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
)

// Options describe the submission.
type Options struct {
	Densify string // absolute path of the densify binary the tasks run
	Command string // run, ablate or train
	Dataset string // the dataset root (made absolute)
	Work    string // the work folder (--out; made absolute)
	Shards  int    // array tasks, one shard each (≥ 1)

	// Resources per task (empty or zero: the cluster's defaults).
	Partition   string // --partition
	Time        string // --time (also the merge job's)
	Mem         string // --mem
	CPUsPerTask int    // --cpus-per-task; the tasks' --threads follow SLURM_CPUS_PER_TASK
	GPUsPerTask int    // --gpus-per-task; > 0 runs the tasks with --device cuda
	JobName     string // --job-name (default densify-<command>)

	// Sbatch holds further sbatch options for both jobs, one per element
	// ("--account=lab", "--qos=short"), written as #SBATCH lines.
	Sbatch []string
	// Args are further flags of the densify command (--split, --epochs, …).
	Args []string
}

// Scripts are the files Write wrote.
type Scripts struct {
	Dir, Array, Merge, Submit, Logs string
}

// MaxShards bounds Options.Shards (the size of the job array).
const MaxShards = 100000

var plainValue = regexp.MustCompile(`^[A-Za-z0-9_.:,+=/@-]+$`)

// timeLimit and memSize are the forms of sbatch --time and --mem (a
// minute or second field after the first is below 60).
var (
	timeLimit = regexp.MustCompile(`^(?i:unlimited|infinite)$|^([0-9]+-[0-9]{1,2}(:[0-5]?[0-9]){0,2}|[0-9]+(:[0-5]?[0-9]){0,2})$`)
	memSize   = regexp.MustCompile(`^[0-9]+[KMGTkmgt]?$`)
)

// Validate checks the options before anything is written.
func (o *Options) Validate() error {
	switch o.Command {
	case "run", "ablate", "train":
	default:
		return fmt.Errorf("slurm: --command must be run, ablate or train, got %q", o.Command)
	}
	if o.Shards < 1 || o.Shards > MaxShards {
		return fmt.Errorf("slurm: the number of shards must be in [1, %d], got %d", MaxShards, o.Shards)
	}
	if o.CPUsPerTask < 0 || o.GPUsPerTask < 0 {
		return fmt.Errorf("slurm: --cpus-per-task and --gpus-per-task must be ≥ 0")
	}
	for _, p := range [][2]string{{"densify binary", o.Densify}, {"dataset", o.Dataset}, {"--out", o.Work}} {
		if !filepath.IsAbs(p[1]) {
			return fmt.Errorf("slurm: the %s path %q is not absolute", p[0], p[1])
		}
		if strings.ContainsAny(p[1], "\n\r\x00") {
			return fmt.Errorf("slurm: the %s path %q holds a line break", p[0], p[1])
		}
	}
	// The log paths go into #SBATCH --output="…", where % starts one of
	// Slurm's file-name patterns and a double quote ends the value.
	if strings.ContainsAny(o.Work, `%"\`) {
		return fmt.Errorf("slurm: --out %q: Slurm log paths cannot hold %%, \" or \\", o.Work)
	}
	for _, v := range [][2]string{{"--partition", o.Partition}, {"--time", o.Time}, {"--mem", o.Mem}, {"--job-name", o.JobName}} {
		if v[1] != "" && !plainValue.MatchString(v[1]) {
			return fmt.Errorf("slurm: %s %q: only letters, digits and _ . : , + = / @ - are allowed", v[0], v[1])
		}
	}
	if o.Time != "" && !timeLimit.MatchString(o.Time) {
		return fmt.Errorf("slurm: --time %q is not a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED (e.g. 4:00:00)", o.Time)
	}
	if o.Mem != "" && !memSize.MatchString(o.Mem) {
		return fmt.Errorf("slurm: --mem %q is not a Slurm memory size: a whole number with an optional unit K, M, G or T (e.g. 16G)", o.Mem)
	}
	for _, s := range o.Sbatch {
		if !strings.HasPrefix(s, "--") || strings.ContainsAny(s, "\n\r\x00") {
			return fmt.Errorf("slurm: --sbatch %q: want one sbatch option such as --account=lab", s)
		}
	}
	for _, a := range o.Args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--out", "--shard":
			return fmt.Errorf("slurm: %s is set by densify slurm itself (give --out to densify slurm; each task gets --shard auto/N)", name)
		}
		if strings.ContainsAny(a, "\x00") {
			return fmt.Errorf("slurm: argument %q holds a NUL byte", a)
		}
	}
	return nil
}

// Quote quotes s for bash (single quotes; a single quote becomes '\”).
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (o *Options) jobName() string {
	if o.JobName != "" {
		return o.JobName
	}
	return "densify-" + o.Command
}

// directives are the #SBATCH lines shared by both jobs.
func (o *Options) directives(b *strings.Builder) {
	if o.Partition != "" {
		fmt.Fprintf(b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(b, "#SBATCH --time=%s\n", o.Time)
	}
	for _, s := range o.Sbatch {
		fmt.Fprintf(b, "#SBATCH %s\n", s)
	}
}

// ArrayScript is the job array: one task per shard, each running the
// densify command on its part (--shard auto/N: part SLURM_ARRAY_TASK_ID of
// N, also when a task is resubmitted alone with --array=i), with libtorch's threads set to the task's CPUs
// (SLURM_CPUS_PER_TASK; the CPUs requested when Slurm does not set it,
// else 0 = all cores) and --device cuda when GPUs are requested.
func (o *Options) ArrayScript(logs string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# densify %s on %s, one shard per array task; written by densify slurm.\n", o.Command, o.Dataset)
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", o.jobName())
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", o.Shards-1)
	fmt.Fprintf(&b, "#SBATCH --output=\"%s\"\n", filepath.Join(logs, o.Command+"-%A_%a.out"))
	if o.CPUsPerTask > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", o.CPUsPerTask)
	}
	if o.GPUsPerTask > 0 {
		fmt.Fprintf(&b, "#SBATCH --gpus-per-task=%d\n", o.GPUsPerTask)
	}
	if o.Mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", o.Mem)
	}
	o.directives(&b)
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "threads=\"${SLURM_CPUS_PER_TASK:-%d}\"\n", o.CPUsPerTask)
	b.WriteString("export OMP_NUM_THREADS=\"$threads\"\n")
	device := "cpu"
	if o.GPUsPerTask > 0 {
		device = "cuda"
	}
	fmt.Fprintf(&b, "exec %s %s %s --out %s --shard auto/%d --threads \"$threads\" --device %s",
		Quote(o.Densify), o.Command, Quote(o.Dataset), Quote(o.Work), o.Shards, device)
	for _, a := range o.Args {
		b.WriteString(" " + Quote(a))
	}
	b.WriteString("\n")
	return b.String()
}

// MergeScript is the merge job: densify report WORK.
func (o *Options) MergeScript(logs string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# The dataset report of %s once every array task has succeeded; written by densify slurm.\n", o.Work)
	fmt.Fprintf(&b, "#SBATCH --job-name=%s-report\n", o.jobName())
	fmt.Fprintf(&b, "#SBATCH --output=\"%s\"\n", filepath.Join(logs, "report-%j.out"))
	b.WriteString("#SBATCH --cpus-per-task=1\n")
	o.directives(&b)
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "exec %s report %s\n", Quote(o.Densify), Quote(o.Work))
	return b.String()
}

// SubmitScript submits the array, then the merge job depending on it.
func SubmitScript(s *Scripts) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# Submits the job array and, for run and ablate, the merge job that waits for it.\nset -euo pipefail\n")
	fmt.Fprintf(&b, "array=$(sbatch --parsable %s)\narray=\"${array%%%%;*}\"\necho \"array job $array\"\n", Quote(s.Array))
	if s.Merge != "" {
		fmt.Fprintf(&b, "merge=$(sbatch --parsable --dependency=afterok:\"$array\" --kill-on-invalid-dep=yes %s)\necho \"merge job ${merge%%%%;*} (starts when every task of $array has succeeded)\"\n", Quote(s.Merge))
	}
	return b.String()
}

// Write validates o and writes the scripts into WORK/slurm (creating WORK,
// WORK/slurm and WORK/slurm/logs), each atomically and executable.
func Write(o Options) (*Scripts, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dir := filepath.Join(o.Work, "slurm")
	s := &Scripts{Dir: dir, Array: filepath.Join(dir, "array.sh"), Submit: filepath.Join(dir, "submit.sh"), Logs: filepath.Join(dir, "logs")}
	if o.Command != "train" {
		s.Merge = filepath.Join(dir, "merge.sh")
	}
	if err := os.MkdirAll(s.Logs, 0o755); err != nil {
		return nil, err
	}
	files := [][2]string{{s.Array, o.ArrayScript(s.Logs)}, {s.Submit, SubmitScript(s)}}
	if s.Merge != "" {
		files = append(files, [2]string{s.Merge, o.MergeScript(s.Logs)})
	}
	for _, f := range files {
		if err := atomicfile.WriteBytes(f[0], []byte(f[1])); err != nil {
			return nil, err
		}
		if err := os.Chmod(f[0], 0o755); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Sbatch runs sbatch with args and returns its standard output.
type Sbatch func(args ...string) (string, error)

// Jobs are the submitted job ids (Merge empty for train).
type Jobs struct{ Array, Merge string }

// ParseJobID reads the output of sbatch --parsable: "<id>" or
// "<id>;<cluster>".
func ParseJobID(out string) (string, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if id == "" || strings.IndexFunc(id, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return "", fmt.Errorf("sbatch --parsable printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// Submit submits s: the array, then the merge job with
// --dependency=afterok:<array> and --kill-on-invalid-dep=yes (a failed task
// cancels the merge job instead of leaving it pending for ever). Progress
// lines go to log.
func Submit(s *Scripts, sbatch Sbatch, log io.Writer) (Jobs, error) {
	var j Jobs
	out, err := sbatch("--parsable", s.Array)
	if err != nil {
		return j, fmt.Errorf("sbatch %s: %w", s.Array, err)
	}
	if j.Array, err = ParseJobID(out); err != nil {
		return j, err
	}
	fmt.Fprintf(log, "submitted job array %s (%s)\n", j.Array, s.Array)
	if s.Merge == "" {
		return j, nil
	}
	out, err = sbatch("--parsable", "--dependency=afterok:"+j.Array, "--kill-on-invalid-dep=yes", s.Merge)
	if err != nil {
		return j, fmt.Errorf("sbatch %s (the array %s is submitted; run densify report when it is done): %w", s.Merge, j.Array, err)
	}
	if j.Merge, err = ParseJobID(out); err != nil {
		return j, err
	}
	fmt.Fprintf(log, "submitted merge job %s (runs densify report when every task of %s has succeeded)\n", j.Merge, j.Array)
	return j, nil
}

// ErrNoSbatch is returned by ExecSbatch when sbatch is not on PATH.
var ErrNoSbatch = errors.New("sbatch not found on PATH (not a Slurm login node?)")

// ExecSbatch runs the sbatch found on PATH (with this process's
// environment); its standard error becomes part of the error.
func ExecSbatch(args ...string) (string, error) {
	path, err := exec.LookPath("sbatch")
	if err != nil {
		return "", ErrNoSbatch
	}
	cmd := exec.Command(path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}
