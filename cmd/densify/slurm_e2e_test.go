package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/densify/densify/internal/slurmtest"
	"github.com/densify/densify/pipeline"
)

// The Slurm path end to end on a real one-node cluster (internal/slurmtest:
// munged, slurmctld and slurmd on 127.0.0.1, stopped afterwards; skipped
// with the reason where they cannot run): three synthetic sequences, densify
// slurm --submit with two shards, the array and the merge job run by
// Slurm, and the merged report equals a sequential densify run of the same
// sequences with the same seed and flags (every score, count, energy and
// final training loss; not the timings). The work folder's name holds a
// space and a quote, which the scripts must quote.
func TestSlurmEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slurm: -short")
	}
	c := slurmtest.Start(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := densify(t, "synth", "--out", data, "--count", "3", "--frames", "8", "--width", "160", "--height", "120", "--gt-every", "3"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	flags := []string{"--epochs", "2", "--min-segment", "0", "--seed", "7"}

	seqWork := filepath.Join(dir, "sequential")
	if out, err := densify(t, append([]string{"run", data, "--out", seqWork, "--threads", "1", "--device", "cpu"}, flags...)...); err != nil {
		t.Fatalf("sequential run: %v\n%s", err, out)
	}

	work := filepath.Join(dir, "work dir's")
	cmd := exec.Command(bin, append([]string{"slurm", data, "--out", work, "--shards", "2", "--cpus-per-task", "1",
		"--partition", c.Partition, "--time", "10:00", "--submit", "--"}, flags...)...)
	cmd.Env = c.Env
	outB, err := cmd.CombinedOutput()
	out := string(outB)
	if err != nil {
		t.Fatalf("densify slurm --submit: %v\n%s%s", err, out, c.Logs())
	}
	arrayID := regexp.MustCompile(`(?m)^array job: (\d+)$`).FindStringSubmatch(out)
	mergeID := regexp.MustCompile(`(?m)^merge job: (\d+) → `).FindStringSubmatch(out)
	if arrayID == nil || mergeID == nil {
		t.Fatalf("no job ids in:\n%s", out)
	}
	t0 := time.Now()
	state, err := c.Wait(mergeID[1], 4*time.Minute)
	logs, _ := filepath.Glob(filepath.Join(work, "slurm", "logs", "*.out"))
	var logText strings.Builder
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		logText.WriteString("--- " + filepath.Base(l) + "\n" + string(b))
	}
	arrayState, _ := c.JobState(arrayID[1])
	if err != nil || state != "COMPLETED" {
		t.Fatalf("merge job %s: %s, %v (array %s: %s)\n%s%s", mergeID[1], state, err, arrayID[1], arrayState, logText.String(), c.Logs())
	}
	t.Logf("array %s (%s) and merge job %s (%s) done %.1f s after submission", arrayID[1], arrayState, mergeID[1], state, time.Since(t0).Seconds())
	if arrayState != "COMPLETED COMPLETED" {
		t.Errorf("array tasks: %s", arrayState)
	}
	// one log per task, each naming the shard it took from Slurm's variables
	for i, want := range []string{
		"shard 0/2 (SLURM_ARRAY_TASK_ID=0, n from --shard auto/2): 2 of 3 sequences: synth01, synth03",
		"shard 1/2 (SLURM_ARRAY_TASK_ID=1, n from --shard auto/2): 1 of 3 sequences: synth02",
	} {
		b, err := os.ReadFile(filepath.Join(work, "slurm", "logs", "run-"+arrayID[1]+"_"+string(rune('0'+i))+".out"))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("task %d log (%v) lacks %q:\n%s", i, err, want, b)
		}
	}
	for seq, shard := range map[string]string{"synth01": "0/2", "synth02": "1/2", "synth03": "0/2"} {
		var rec pipeline.SequenceRecord
		b, err := os.ReadFile(filepath.Join(work, seq, pipeline.ResultName))
		if err != nil || json.Unmarshal(b, &rec) != nil || rec.Shard != shard {
			t.Errorf("%s: result %v, shard %q, want %s", seq, err, rec.Shard, shard)
		}
	}
	got, want := readRunReport(t, work), readRunReport(t, seqWork)
	if len(got.Sequences) != 3 || got.Missing != nil || got.Failed != nil {
		t.Fatalf("merged report: %d sequences, missing %v, failed %v", len(got.Sequences), got.Missing, got.Failed)
	}
	if g, w := comparable(t, got), comparable(t, want); g != w {
		t.Errorf("merged report differs from the sequential run:\n%s\n--- sequential:\n%s", g, w)
	}
	if want.Dense[pipeline.DefaultVariant] == nil || want.Dense[pipeline.DefaultVariant].Count != 3 {
		t.Errorf("the sequential run scored %+v", want.Dense)
	}

	// Task 1 resubmitted alone (as after a failure): it keeps its part,
	// finds every stage up to date, and the report merged again is the same.
	outB, err = c.Command(t.Context(), "sbatch", "--parsable", "--array=1", filepath.Join(work, "slurm", "array.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("resubmission: %v\n%s", err, outB)
	}
	again := strings.TrimSpace(string(outB))
	if state, err := c.Wait(again, 2*time.Minute); err != nil || state != "COMPLETED" {
		t.Fatalf("resubmitted task: %s, %v%s", state, err, c.Logs())
	}
	b, err := os.ReadFile(filepath.Join(work, "slurm", "logs", "run-"+again+"_1.out"))
	if err != nil || !strings.Contains(string(b), "shard 1/2 (SLURM_ARRAY_TASK_ID=1, n from --shard auto/2): 1 of 3 sequences: synth02") ||
		!strings.Contains(string(b), "synth02: train-uniform skipped (") {
		t.Errorf("resubmitted task's log (%v):\n%s", err, b)
	}
	if out, err := densify(t, "report", work); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if g, w := comparable(t, readRunReport(t, work)), comparable(t, want); g != w {
		t.Errorf("report after the resubmission differs:\n%s\n--- sequential:\n%s", g, w)
	}

	// Failing tasks (a cost model that is not there: densify slurm checks
	// the flags, not the files) cancel the merge job instead of leaving it
	// pending for ever.
	bad := filepath.Join(dir, "bad")
	cmd = exec.Command(bin, "slurm", data, "--out", bad, "--shards", "2", "--cpus-per-task", "1", "--partition", c.Partition, "--submit", "--", "--cost-model", filepath.Join(dir, "missing.json"))
	cmd.Env = c.Env
	if outB, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("densify slurm --submit: %v\n%s", err, outB)
	}
	mergeID = regexp.MustCompile(`(?m)^merge job: (\d+) → `).FindStringSubmatch(string(outB))
	if mergeID == nil {
		t.Fatalf("no merge job id in:\n%s", outB)
	}
	if state, err := c.Wait(mergeID[1], 2*time.Minute); err != nil || state != "CANCELLED" {
		t.Errorf("merge job after failed tasks: %s, %v", state, err)
	}
	if _, err := os.Stat(filepath.Join(bad, "report.md")); err == nil {
		t.Error("a report was written after failed tasks")
	}
}

func readRunReport(t *testing.T, work string) *pipeline.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r pipeline.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// comparable is Report.Deterministic.
func comparable(t *testing.T, r *pipeline.Report) string {
	t.Helper()
	s, err := r.Deterministic()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
