package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/video"
)

func mapEnv(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// run --shard auto inside a (pretend) Slurm array task takes its part from
// SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT, says so, and writes no
// dataset report; densify report lists the other shard's sequences as
// missing until it has run, then reports all three.
func TestShardedRunAndReportInProcess(t *testing.T) {
	dir := t.TempDir()
	f := &Factory{Densifier: &blankDensifier{}, Tracker: video.Tracker{}}
	data, work := filepath.Join(dir, "data"), filepath.Join(dir, "work")
	if _, errOut, err := execute(t, f, "synth", "--out", data, "--count", "3", "--frames", "4", "--width", "96", "--height", "72", "--gt-every", "3"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	f.Getenv = mapEnv("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "2", "SLURM_ARRAY_TASK_MIN", "0")
	out, errOut, err := execute(t, f, "run", data, "--out", work, "--shard", "auto", "--min-segment", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "shard 1/2 (SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=2): 1 of 3 sequences: synth02\n") ||
		!strings.Contains(errOut, "`densify report "+work+"` writes the dataset report") {
		t.Errorf("log:\n%s", errOut)
	}
	if !strings.Contains(out, "synth02") || strings.Contains(out, "synth01") {
		t.Errorf("summary:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(work, "report.md")); err == nil {
		t.Error("a shard wrote report.md")
	}
	out, _, err = execute(t, f, "report", work)
	if err == nil || !strings.Contains(err.Error(), "3 sequences: 2 missing (synth01, synth03)") ||
		!strings.Contains(out, "synth01 MISSING") || !strings.Contains(out, "synth03 MISSING") {
		t.Errorf("report of one shard: %v\n%s", err, out)
	}

	// the other shard explicitly, inside the same pretend array task: the flag wins
	if _, errOut, err = execute(t, f, "run", data, "--out", work, "--shard", "0/2", "--min-segment", "0"); err != nil ||
		!strings.Contains(errOut, "shard 0/2 (--shard 0/2): 2 of 3 sequences: synth01, synth03\n") {
		t.Fatalf("%v\n%s", err, errOut)
	}
	out, errOut, err = execute(t, f, "report", work)
	if err != nil || strings.Count(out, "synth0") != 3 || strings.Contains(out, "MISSING") ||
		!strings.Contains(out, "report: "+filepath.Join(work, "report.md")) ||
		!strings.Contains(errOut, "report: 3 sequences from ") {
		t.Errorf("merged report: %v\n%s\n%s", err, out, errOut)
	}

	// without --shard the environment is ignored, with a note
	_, errOut, err = execute(t, f, "run", data, "--out", filepath.Join(dir, "all"), "--sequences", "synth03", "--min-segment", "0")
	if err != nil || !strings.Contains(errOut, "note: SLURM_ARRAY_TASK_ID=1 is set but --shard is not") {
		t.Errorf("%v\n%s", err, errOut)
	}
	for _, c := range []struct{ shard, want string }{
		{"2/2", "the index must be in [0, 2)"},
		{"auto/1", "SLURM_ARRAY_TASK_ID=1 is not in [0, 1)"},
	} {
		if _, _, err := execute(t, f, "run", data, "--out", work, "--shard", c.shard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--shard %s: %v, want %q", c.shard, err, c.want)
		}
	}
	if _, _, err := execute(t, f, "report", filepath.Join(dir, "data")); err == nil || !strings.Contains(err.Error(), "plan.json: no such file") {
		t.Errorf("report of a folder that is no work folder: %v", err)
	}
}

// densify slurm writes the scripts with this binary's absolute path, one
// task per sequence by default, the flags after -- and --split passed on;
// --submit submits the array and then the merge job after it.
func TestSlurmCommandInProcess(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	ids := []string{"100\n", "101\n"}
	f := &Factory{
		Executable: func() (string, error) { return "/opt/densify", nil },
		Sbatch: func(args ...string) (string, error) {
			calls = append(calls, strings.Join(args, " "))
			id := ids[0]
			ids = ids[1:]
			return id, nil
		},
	}
	data := filepath.Join(dir, "data")
	if _, errOut, err := execute(t, f, "synth", "--out", data, "--count", "3", "--frames", "3", "--width", "64", "--height", "48"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	t.Chdir(dir)
	out, errOut, err := execute(t, f, "slurm", "data", "--out", "work", "--command", "ablate", "--gpus-per-task", "1", "--sequences", "synth01,synth03", "--", "--epochs", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	work := filepath.Join(dir, "work")
	if !strings.Contains(out, "2 sequences in 2 array tasks (densify ablate --shard auto/2), 4 CPUs and 1 GPUs per task") ||
		!strings.Contains(out, "submit with: "+filepath.Join(work, "slurm", "submit.sh")) || len(calls) != 0 {
		t.Errorf("output:\n%s", out)
	}
	array, _ := os.ReadFile(filepath.Join(work, "slurm", "array.sh"))
	if !strings.Contains(string(array), "#SBATCH --array=0-1\n") ||
		!strings.Contains(string(array), "exec '/opt/densify' ablate '"+data+"' --out '"+work+"' --shard auto/2 --threads \"$threads\" --device cuda '--sequences' 'synth01,synth03' '--epochs' '3'\n") {
		t.Errorf("array.sh:\n%s", array)
	}

	out, errOut, err = execute(t, f, "slurm", data, "--out", work, "--shards", "5", "--submit")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "5 shards for 3 sequences: 3 tasks instead") || !strings.Contains(out, "array job: 100\nmerge job: 101 → "+filepath.Join(work, "report.md")) ||
		len(calls) != 2 || calls[1] != "--parsable --dependency=afterok:100 --kill-on-invalid-dep=yes "+filepath.Join(work, "slurm", "merge.sh") {
		t.Errorf("submission: %q\n%s\n%s", calls, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slurm", data}, "--out is required"},
		{[]string{"slurm", data, "extra", "--out", work}, "slurm takes one DATASET"},
		{[]string{"slurm", data, "--out", work, "--", "--shard", "1/2"}, "--shard is set by densify slurm itself"},
		{[]string{"slurm", data, "--out", work, "--split", "val"}, `no split "val"`},
		{[]string{"slurm", data, "--out", work, "--cpus-per-task", "-1"}, "--cpus-per-task"},
		{[]string{"slurm", data, "--out", data}, "--out"},
		// resources and the tasks' flags are checked before anything is written
		{[]string{"slurm", data, "--out", work, "--time", "abc"}, `--time "abc" is not a Slurm time limit`},
		{[]string{"slurm", data, "--out", work, "--time", "-1"}, `--time "-1" is not a Slurm time limit`},
		{[]string{"slurm", data, "--out", work, "--mem", "lots"}, `--mem "lots" is not a Slurm memory size`},
		{[]string{"slurm", data, "--out", work, "--", "--epochs", "0"}, "the tasks' densify run would refuse its flags: --epochs 0 is out of range"},
		{[]string{"slurm", data, "--out", work, "--command", "train", "--", "--variant", "nope"}, `the tasks' densify train would refuse its flags: invalid argument "nope"`},
	} {
		if _, _, err := execute(t, f, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}
