package slurm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func testOptions(work string) Options {
	return Options{Densify: "/opt/densify/bin/densify", Command: "run", Dataset: "/data/davis", Work: work,
		Shards: 3, CPUsPerTask: 8, Partition: "gpu", Time: "4:00:00", Mem: "16G",
		Sbatch: []string{"--account=lab"}, Args: []string{"--split", "val", "--epochs", "30"}}
}

func TestArrayScript(t *testing.T) {
	o := testOptions("/scratch/it's work")
	got := o.ArrayScript("/scratch/it's work/slurm/logs")
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --job-name=densify-run\n",
		"#SBATCH --array=0-2\n",
		"#SBATCH --output=\"/scratch/it's work/slurm/logs/run-%A_%a.out\"\n",
		"#SBATCH --cpus-per-task=8\n",
		"#SBATCH --mem=16G\n",
		"#SBATCH --partition=gpu\n",
		"#SBATCH --time=4:00:00\n",
		"#SBATCH --account=lab\n",
		"threads=\"${SLURM_CPUS_PER_TASK:-8}\"\n",
		`exec '/opt/densify/bin/densify' run '/data/davis' --out '/scratch/it'\''s work' --shard auto/3 --threads "$threads" --device cpu '--split' 'val' '--epochs' '30'` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("array script lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "gpus-per-task") {
		t.Errorf("GPUs requested without --gpus-per-task:\n%s", got)
	}
	o.GPUsPerTask = 1
	if got := o.ArrayScript("/l"); !strings.Contains(got, "#SBATCH --gpus-per-task=1\n") || !strings.Contains(got, "--device cuda") {
		t.Errorf("GPU script:\n%s", got)
	}
	// every #SBATCH line comes before the first command (sbatch stops reading them there)
	lines := strings.Split(got, "\n")
	seenCommand := false
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "#SBATCH") && seenCommand {
			t.Errorf("#SBATCH after a command: %q", l)
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			seenCommand = true
		}
	}
}

// The quoted exec line, run by bash, hands densify exactly its arguments.
func TestQuoteRoundTrip(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	args := []string{"plain", "it's", `a "b" $HOME`, "back\\slash", "new\nline", ""}
	var q []string
	for _, a := range args {
		q = append(q, Quote(a))
	}
	out, err := exec.Command(bash, "-c", `printf '%s\0' `+strings.Join(q, " ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("bash read %q, want %q", got, args)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Command = "predict" }, `--command must be run, ablate or train, got "predict"`},
		{func(o *Options) { o.Shards = 0 }, "number of shards must be in [1, 100000], got 0"},
		{func(o *Options) { o.Work = "rel/work" }, `the --out path "rel/work" is not absolute`},
		{func(o *Options) { o.Work = "/w/50%" }, "Slurm log paths cannot hold %"},
		{func(o *Options) { o.Dataset = "/d\nx" }, "holds a line break"},
		{func(o *Options) { o.Time = "1 day" }, `--time "1 day": only letters`},
		{func(o *Options) { o.Sbatch = []string{"account=lab"} }, "want one sbatch option"},
		{func(o *Options) { o.Time = "abc" }, `--time "abc" is not a Slurm time limit`},
		{func(o *Options) { o.Time = "-1" }, `--time "-1" is not a Slurm time limit`},
		{func(o *Options) { o.Time = "1:75:00" }, `--time "1:75:00" is not a Slurm time limit`},
		{func(o *Options) { o.Mem = "lots" }, `--mem "lots" is not a Slurm memory size`},
		{func(o *Options) { o.Mem = "1.5G" }, `--mem "1.5G" is not a Slurm memory size`},
		{func(o *Options) { o.Args = []string{"--out=/x"} }, "--out is set by densify slurm itself"},
		{func(o *Options) { o.Args = []string{"--shard", "0/2"} }, "--shard is set by densify slurm itself"},
	} {
		o := testOptions("/scratch/work")
		c.mod(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	o := testOptions("/scratch/work")
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
	for _, tm := range []string{"30", "30:00", "4:00:00", "2-12", "2-12:30", "2-12:30:00", "UNLIMITED", "infinite"} {
		o.Time = tm
		if err := o.Validate(); err != nil {
			t.Errorf("--time %s: %v", tm, err)
		}
	}
	for _, m := range []string{"16G", "16000", "512M", "1t"} {
		o.Mem = m
		if err := o.Validate(); err != nil {
			t.Errorf("--mem %s: %v", m, err)
		}
	}
}

// Write lays out WORK/slurm (no merge job for train); Submit submits the
// array, then the merge job after it, parsing sbatch --parsable.
func TestWriteAndSubmit(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work")
	o := testOptions(work)
	s, err := Write(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Array, s.Merge, s.Submit} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s: %v, mode %v", p, err, st.Mode())
		}
	}
	if st, err := os.Stat(s.Logs); err != nil || !st.IsDir() {
		t.Errorf("logs: %v", err)
	}
	merge, _ := os.ReadFile(s.Merge)
	if !strings.Contains(string(merge), "exec '/opt/densify/bin/densify' report '"+work+"'\n") ||
		!strings.Contains(string(merge), "#SBATCH --account=lab\n") || strings.Contains(string(merge), "--array") {
		t.Errorf("merge script:\n%s", merge)
	}
	sub, _ := os.ReadFile(s.Submit)
	if !strings.Contains(string(sub), "--dependency=afterok:\"$array\" --kill-on-invalid-dep=yes") {
		t.Errorf("submit script:\n%s", sub)
	}

	var calls [][]string
	ids := []string{"4242;cluster\n", "4243\n"}
	fake := func(args ...string) (string, error) {
		calls = append(calls, args)
		out := ids[0]
		ids = ids[1:]
		return out, nil
	}
	var log strings.Builder
	jobs, err := Submit(s, fake, &log)
	if err != nil || jobs != (Jobs{Array: "4242", Merge: "4243"}) {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	want := [][]string{{"--parsable", s.Array}, {"--parsable", "--dependency=afterok:4242", "--kill-on-invalid-dep=yes", s.Merge}}
	if len(calls) != 2 || strings.Join(calls[0], " ") != strings.Join(want[0], " ") || strings.Join(calls[1], " ") != strings.Join(want[1], " ") {
		t.Errorf("sbatch calls %q, want %q", calls, want)
	}

	o.Command = "train"
	s2, err := Write(o)
	if err != nil || s2.Merge != "" {
		t.Fatalf("train: %+v, %v", s2, err)
	}
	calls = nil
	ids = []string{"7\n"}
	if jobs, err := Submit(s2, fake, &log); err != nil || jobs != (Jobs{Array: "7"}) || len(calls) != 1 {
		t.Errorf("train submission: %+v, %v, %q", jobs, err, calls)
	}

	failing := func(args ...string) (string, error) { return "", errors.New("sbatch: error: invalid partition") }
	if _, err := Submit(s, failing, &log); err == nil || !strings.Contains(err.Error(), "invalid partition") {
		t.Errorf("failing sbatch: %v", err)
	}
	garbage := func(args ...string) (string, error) { return "Submitted batch job 5\n", nil }
	if _, err := Submit(s, garbage, &log); err == nil || !strings.Contains(err.Error(), "not a job id") {
		t.Errorf("non-parsable output: %v", err)
	}
}
